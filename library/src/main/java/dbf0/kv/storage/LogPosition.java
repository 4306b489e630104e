package dbf0.kv.storage;

/**
 * A position in the log of a store's owner, for a store that keeps no log of its own ({@link
 * CheckpointedStore}): a replicated shard's Raft log, whose entries the store applies in order. The
 * store's durable state holds every write up to the entry at this position and none after; the
 * owner replays its log from the entry after it.
 *
 * @param term the Raft term of the entry
 * @param index the entry's index in the log
 */
public record LogPosition(long term, long index) {

    /** No position yet: an empty store, before the log's first entry. */
    public static final LogPosition NONE = new LogPosition(0, 0);

    @Override
    public String toString() {
        return "term " + term + ", index " + index;
    }
}
