package dbf0.kv.check;

import java.util.BitSet;

/** A key of {@code PartitionSearch.failed}: a set of operations (as a BitSet) and a model state. */
final class Visited<S> {
    final BitSet ops;
    final S state;
    final Model<S, ?, ?> model;
    final int hash;

    Visited(BitSet ops, S state, Model<S, ?, ?> model) {
        this.ops = ops;
        this.state = state;
        this.model = model;
        this.hash = 31 * ops.hashCode() + model.stateHash(state);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Visited<?> v
                && v.hash == hash
                && v.ops.equals(ops)
                && model.stateEquals(state, cast(v.state));
    }

    @SuppressWarnings("unchecked")
    private S cast(Object s) {
        return (S) s;
    }
}
