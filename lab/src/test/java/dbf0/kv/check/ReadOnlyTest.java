package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * {@link Model#readOnly} lets the checker linearize an operation without trying the other orders,
 * which is sound only if the operation never changes the state wherever {@code step} allows it.
 * Each model's claim is checked here against its own {@code step}, over every pair of small states
 * and operations.
 */
class ReadOnlyTest {

    private static final List<String> VALUES = Arrays.asList(null, "", "1", "2", "12");

    /** Asserts {@code readOnly} where {@code step} keeps the state, and never where it changes. */
    private static <I, O> int check(Model<String, I, O> model, List<I> inputs, List<O> outputs) {
        int readOnly = 0;
        for (I in : inputs) {
            for (O out : outputs) {
                boolean changes = false;
                for (String s : VALUES) {
                    for (String next : model.step(s, in, out)) {
                        changes |= !Objects.equals(next, s);
                    }
                }
                if (model.readOnly(in, out)) {
                    readOnly++;
                    assertThat(changes)
                            .as("%s is read-only, so it keeps every state", model.describe(in, out))
                            .isFalse();
                }
            }
        }
        return readOnly;
    }

    @Test
    void registerReadsAndUnswappedCasesAreReadOnlyAndNothingElse() {
        RegisterModel m = new RegisterModel();
        List<RegisterModel.Input> inputs = new ArrayList<>();
        inputs.add(RegisterModel.Input.read());
        for (String a : List.of("1", "2")) {
            inputs.add(RegisterModel.Input.write(a));
            for (String b : List.of("1", "2")) {
                inputs.add(RegisterModel.Input.cas(a, b));
            }
        }
        List<RegisterModel.Output> outputs = new ArrayList<>();
        for (String v : VALUES) {
            outputs.add(RegisterModel.Output.read(v));
        }
        outputs.add(RegisterModel.Output.SWAPPED);
        assertThat(check(m, inputs, outputs)).isPositive();

        assertThat(m.readOnly(RegisterModel.Input.read(), RegisterModel.Output.read("1"))).isTrue();
        assertThat(m.readOnly(RegisterModel.Input.cas("1", "2"), RegisterModel.Output.NOT_SWAPPED))
                .isTrue();
        assertThat(m.readOnly(RegisterModel.Input.cas("1", "2"), RegisterModel.Output.SWAPPED))
                .isFalse();
        assertThat(m.readOnly(RegisterModel.Input.write("1"), RegisterModel.Output.WRITTEN))
                .isFalse();
    }

    @Test
    void kvGetsAndDeletesOfMissingKeysAreReadOnlyAndNothingElse() {
        KvModel m = new KvModel();
        List<KvModel.Input> inputs = new ArrayList<>();
        inputs.add(KvModel.Input.get("k"));
        inputs.add(KvModel.Input.delete("k"));
        for (String v : List.of("", "1", "2")) {
            inputs.add(KvModel.Input.put("k", v));
            inputs.add(KvModel.Input.append("k", v));
        }
        List<KvModel.Output> outputs = new ArrayList<>();
        outputs.add(KvModel.Output.NONE);
        outputs.add(KvModel.Output.missing());
        for (String v : List.of("", "1", "12")) {
            outputs.add(KvModel.Output.found(v));
            outputs.add(KvModel.Output.emptyMeansMissing(v));
        }
        assertThat(check(m, inputs, outputs)).isPositive();

        assertThat(m.readOnly(KvModel.Input.get("k"), KvModel.Output.found("1"))).isTrue();
        assertThat(m.readOnly(KvModel.Input.delete("k"), KvModel.Output.missing())).isTrue();
        assertThat(m.readOnly(KvModel.Input.delete("k"), KvModel.Output.NONE)).isFalse();
        assertThat(m.readOnly(KvModel.Input.delete("k"), new KvModel.Output(true, null))).isFalse();
        assertThat(m.readOnly(KvModel.Input.append("k", ""), KvModel.Output.NONE)).isFalse();
    }
}
