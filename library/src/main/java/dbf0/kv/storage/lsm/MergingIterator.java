package dbf0.kv.storage.lsm;

import dbf0.common.ByteArrayWrapper;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Merges sorted sources into one sorted stream with one cell per key: the newest, by sequence
 * number. A priority queue holds each source at its current key, smallest key first and, among
 * equal keys, the highest sequence number first; taking a key advances every source past it, so the
 * older versions underneath are skipped. Tombstones come out like any cell: whoever reads decides
 * (a get or scan hides them, a compaction keeps them unless it writes the bottom level).
 */
final class MergingIterator extends CursorIterator {

    private final PriorityQueue<KvIterator> heap =
            new PriorityQueue<>(
                    (a, b) -> {
                        int byKey = a.key().compareTo(b.key());
                        return byKey != 0 ? byKey : Long.compare(b.cell().seq(), a.cell().seq());
                    });

    MergingIterator(List<? extends KvIterator> sources) {
        for (KvIterator source : sources) {
            if (source.valid()) {
                heap.add(source);
            }
        }
        next();
    }

    @Override
    public void next() {
        KvIterator top = heap.poll();
        if (top == null) {
            at(null, null);
            return;
        }
        ByteArrayWrapper key = top.key();
        at(key, top.cell());
        advance(top);
        // every older version of this key, in the other sources, is hidden by the newest
        while (!heap.isEmpty() && heap.peek().key().equals(key)) {
            advance(heap.poll());
        }
    }

    private void advance(KvIterator source) {
        source.next();
        if (source.valid()) {
            heap.add(source);
        }
    }
}
