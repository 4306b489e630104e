package dbf0.kv.check;

import java.util.List;

/**
 * The operations of one recorded run, in any order, and the model they are meant to follow. Each
 * parser returns one; {@link LinearizabilityChecker#check} takes one.
 */
public record History<S, I, O>(Model<S, I, O> model, List<Operation<I, O>> operations) {

    public History {
        operations = List.copyOf(operations);
    }

    public int size() {
        return operations.size();
    }
}
