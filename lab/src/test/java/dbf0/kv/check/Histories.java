package dbf0.kv.check;

import java.util.ArrayList;
import java.util.List;

/** Short-hand for writing small histories in tests. */
final class Histories {

    private Histories() {}

    static final RegisterModel REGISTER = new RegisterModel();
    static final KvModel KV = new KvModel();

    static final class Reg {
        final List<Operation<RegisterModel.Input, RegisterModel.Output>> ops = new ArrayList<>();

        Reg write(int client, String v, long invoke, long ret) {
            ops.add(
                    Operation.ok(
                            client,
                            RegisterModel.Input.write(v),
                            RegisterModel.Output.WRITTEN,
                            invoke,
                            ret));
            return this;
        }

        Reg read(int client, String v, long invoke, long ret) {
            ops.add(
                    Operation.ok(
                            client,
                            RegisterModel.Input.read(),
                            RegisterModel.Output.read(v),
                            invoke,
                            ret));
            return this;
        }

        Reg cas(int client, String expected, String v, boolean swapped, long invoke, long ret) {
            ops.add(
                    Operation.ok(
                            client,
                            RegisterModel.Input.cas(expected, v),
                            swapped
                                    ? RegisterModel.Output.SWAPPED
                                    : RegisterModel.Output.NOT_SWAPPED,
                            invoke,
                            ret));
            return this;
        }

        Reg pendingWrite(int client, String v, long invoke) {
            ops.add(
                    Operation.pending(
                            client, RegisterModel.Input.write(v), invoke, Long.MAX_VALUE));
            return this;
        }

        Reg pendingCas(int client, String expected, String v, long invoke) {
            ops.add(
                    Operation.pending(
                            client, RegisterModel.Input.cas(expected, v), invoke, Long.MAX_VALUE));
            return this;
        }

        History<String, RegisterModel.Input, RegisterModel.Output> history() {
            return new History<>(REGISTER, ops);
        }
    }

    static Reg register() {
        return new Reg();
    }
}
