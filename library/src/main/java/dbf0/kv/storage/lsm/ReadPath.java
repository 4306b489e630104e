package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.KeyValue;
import dbf0.kv.storage.StorageFailureException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Reads, newest data first: the memtable taking writes, the one being flushed, level 0's tables
 * newest first, then each deeper level. The first version found is the answer (a tombstone or a
 * cell older than the last clear means absent). In a table the bloom filter is asked first, so a
 * key the table lacks usually costs no block read; then the index names the one block that may hold
 * it.
 */
final class ReadPath {

    /** What {@link #lookup} answers when, told to stay in memory, it would need a disk read. */
    static final Cell NOT_IN_MEMORY = new Cell(-1, Cell.Kind.DELETE, null);

    private final LsmCore core;

    ReadPath(LsmCore core) {
        this.core = core;
    }

    /**
     * The newest cell of {@code key}, or null; with {@code memoryOnly}, {@link #NOT_IN_MEMORY} when
     * a block it needs is not in the cache.
     */
    Cell lookup(ByteArrayWrapper key, boolean memoryOnly) {
        int e = core.readGate.enter();
        try {
            return lookupEntered(key, memoryOnly);
        } finally {
            core.readGate.leave(e);
        }
    }

    /**
     * What a delete asks before it takes the log's lock: whether {@code key} has a value now, with
     * what the answer rests on ({@link WritePath.Probe}). The read, maybe of the disk, happens here
     * rather than under the lock, where it would hold up every writer. With {@code memoryOnly},
     * null if it would need the disk.
     */
    WritePath.Probe probe(ByteArrayWrapper key, boolean memoryOnly) {
        int e = core.readGate.enter();
        try {
            long floor = core.clearSeq;
            LsmState s = core.state;
            Cell cell = lookupIn(s, floor, key, memoryOnly);
            if (cell == NOT_IN_MEMORY) {
                return null;
            }
            return new WritePath.Probe(s.active(), floor, cell != null && !cell.isTombstone());
        } finally {
            core.readGate.leave(e);
        }
    }

    private Cell lookupEntered(ByteArrayWrapper key, boolean memoryOnly) {
        long floor = core.clearSeq;
        return lookupIn(core.state, floor, key, memoryOnly);
    }

    private Cell lookupIn(LsmState s, long floor, ByteArrayWrapper key, boolean memoryOnly) {
        long hash = Bloom.hash(key); // once for every filter asked
        Cell cell = s.active().get(key, hash);
        if (cell == null && s.immutable() != null) {
            cell = s.immutable().get(key, hash);
        }
        Version version = s.version();
        for (int level = 0; cell == null && level < Version.LEVELS; level++) {
            List<Table> tables = version.level(level);
            if (tables.isEmpty()) {
                continue;
            }
            if (version.sortedRun(level)) {
                Table table = covering(tables, key);
                cell = table == null ? null : inTable(table, key, hash, memoryOnly);
            } else {
                for (int i = 0; cell == null && i < tables.size(); i++) {
                    Table table = tables.get(i);
                    if (table.meta().overlaps(key, key)) {
                        cell = inTable(table, key, hash, memoryOnly);
                    }
                }
            }
        }
        if (cell == NOT_IN_MEMORY) {
            return cell;
        }
        return cell == null || cell.seq() < floor ? null : cell;
    }

    /** The table of a sorted run whose range holds {@code key}, by binary search, or null. */
    static Table covering(List<Table> byKey, ByteArrayWrapper key) {
        int lo = LowerBound.of(byKey.size(), i -> byKey.get(i).meta().largest().compareTo(key) < 0);
        if (lo == byKey.size() || byKey.get(lo).meta().smallest().compareTo(key) > 0) {
            return null;
        }
        return byKey.get(lo);
    }

    private Cell inTable(Table table, ByteArrayWrapper key, long hash, boolean memoryOnly) {
        if (core.tuning.bloomFilters() && !table.mightContainHash(hash)) {
            return null;
        }
        int b = table.findBlock(key);
        if (b == table.blocks()) {
            return null;
        }
        Block block;
        try {
            block = core.cache.get(table, b, memoryOnly);
        } catch (IOException e) {
            throw new StorageFailureException(table.name() + ": read failed: " + e, e);
        }
        if (block == null) {
            return NOT_IN_MEMORY;
        }
        int i = block.seek(key);
        return i < block.count() && block.compareKey(i, key) == 0 ? block.cell(i) : null;
    }

    /** Every source of a read from {@code from} on, newest first, merged. */
    KvIterator merged(ByteArrayWrapper from, ByteArrayWrapper toExclusive) {
        LsmState s = core.state;
        List<KvIterator> sources = new ArrayList<>();
        sources.add(new MemtableIterator(s.active(), from));
        if (s.immutable() != null) {
            sources.add(new MemtableIterator(s.immutable(), from));
        }
        for (Table table : s.version().all()) {
            if (table.meta().overlaps(from, toExclusive)) {
                sources.add(new TableIterator(table, core.cache, true, from));
            }
        }
        return new MergingIterator(sources);
    }

    /** Visits live pairs in key order from {@code from} to before {@code toExclusive}. */
    void forRange(
            ByteArrayWrapper from,
            ByteArrayWrapper toExclusive,
            long limit,
            BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        int e = core.readGate.enter(); // the tables it reads stay open until it ends
        try {
            long floor = core.clearSeq;
            KvIterator it = merged(from, toExclusive);
            long seen = 0;
            for (; it.valid() && seen < limit; it.next()) {
                if (toExclusive != null && it.key().compareTo(toExclusive) >= 0) {
                    break;
                }
                Cell cell = it.cell();
                if (cell.isTombstone() || cell.seq() < floor) {
                    continue;
                }
                action.accept(it.key(), cell.value());
                seen++;
            }
        } finally {
            core.readGate.leave(e);
        }
    }

    List<KeyValue> scan(ByteArrayWrapper from, ByteArrayWrapper toExclusive, int limit) {
        List<KeyValue> out = new ArrayList<>(Math.min(limit, 1024));
        forRange(from, toExclusive, limit, (k, v) -> out.add(new KeyValue(k, v)));
        return out;
    }
}
