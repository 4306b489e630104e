package dbf0.kv.storage.btree;

import dbf0.common.Words;
import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import dbf0.kv.storage.wal.WalOptions;
import dbf0.kv.storage.wal.WalRecovery;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What opening the store found, and the opening itself: write again the pages of a checkpoint the
 * power cut short (from the double-write file), open the tree's file as of its last checkpoint,
 * replay every log from the one its meta names, oldest first (checkpointing whenever half the pool
 * is dirty, so a long log never needs more memory than the pool), checkpoint what the replay
 * changed under a new log's number, and delete the older logs.
 *
 * @param repairedPages pages written again from the double-write file (a checkpoint cut short)
 * @param logs what replaying each log found, oldest first (torn tails cut and reported there)
 * @param keys keys in the tree after the replay
 * @param pages pages in the tree's file
 * @param created whether the file was new
 */
public record BTreeRecovery(
        int repairedPages, List<WalRecovery> logs, long keys, long pages, boolean created) {

    /** Copies the list. */
    public BTreeRecovery {
        logs = List.copyOf(logs);
    }

    /** The start-up line. */
    public String summary() {
        long records = logs.stream().mapToLong(WalRecovery::records).sum();
        StringBuilder line =
                new StringBuilder(
                        String.format(
                                "btree store opened%s: %s in %s, %s replayed (%s)",
                                created ? " (a new file)" : "",
                                Words.count(keys, "key"),
                                Words.count(pages, "page"),
                                Words.count(logs.size(), "log"),
                                Words.count(records, "record")));
        if (repairedPages > 0) {
            line.append(
                    String.format(
                            "; a checkpoint cut short: %s written again from the double-write file",
                            Words.count(repairedPages, "page")));
        }
        for (WalRecovery log : logs) {
            if (log.droppedBytes() > 0) {
                line.append(
                        String.format(
                                "; a log's torn tail of %s cut (%s)",
                                Words.count(log.droppedBytes(), "byte"), log.problem()));
            }
        }
        return line.toString();
    }

    /** A log's file name: its number, six digits at least. */
    static String logName(long number) {
        return String.format("%06d.log", number);
    }

    /** The number of a log's file name, or -1 if it is not one. */
    static long logNumber(String name) {
        if (!name.endsWith(".log") || name.length() == 4) {
            return -1;
        }
        String digits = name.substring(0, name.length() - 4);
        for (int i = 0; i < digits.length(); i++) {
            if (!Character.isDigit(digits.charAt(i))) {
                return -1;
            }
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Deletes every log numbered below {@code first}. */
    static void deleteLogsBefore(WalDirectory dir, long first) throws IOException {
        for (String name : dir.list()) {
            long n = logNumber(name);
            if (n >= 0 && n < first) {
                dir.delete(name);
            }
        }
    }

    /** The parts an opened store is made of. */
    record Opened(BTree tree, WalFile doubleWrite, long logNumber, BTreeRecovery recovery) {}

    static Opened run(BTreeOptions options, WalDirectory dir, WalOptions walOptions)
            throws IOException {
        int repaired = DoubleWrite.recover(dir);
        if (dir.exists(Vacuum.NAME)) { // a vacuum cut short before its rename: the old file rules
            dir.delete(Vacuum.NAME);
        }
        TreeFile.Opened opened = TreeFile.open(dir, options.pageSize());
        WalFile doubleWrite = null;
        try {
            BufferPool pool = new BufferPool(opened.file(), options.bufferPoolBytes());
            BTree tree = new BTree(pool, opened.meta());
            boolean dwbExisted = dir.exists(DoubleWrite.NAME);
            doubleWrite = dir.open(DoubleWrite.NAME);
            if (!dwbExisted) {
                dir.sync();
            }
            long first = opened.meta().logNumber;
            List<Long> logs = new ArrayList<>();
            long largest = first;
            for (String name : dir.list()) {
                long n = logNumber(name);
                largest = Math.max(largest, n);
                if (n >= first) {
                    logs.add(n);
                }
            }
            logs.sort(null);
            WalFile dwb = doubleWrite;
            Applier replay =
                    new Applier(
                            tree,
                            () -> {
                                if (pool.dirtyBytes() >= pool.capacityBytes() / 2) {
                                    checkpoint(tree, first, dwb); // the same first log: replay
                                    // starts there again if the power goes before the end
                                }
                            });
            List<WalRecovery> replayed = new ArrayList<>();
            for (long n : logs) {
                replayed.add(WalRecovery.replayNamed(replay, walOptions, dir, logName(n)));
            }
            long newLog = largest + 1;
            checkpoint(tree, newLog, doubleWrite);
            deleteLogsBefore(dir, newLog);
            BTreeRecovery recovery =
                    new BTreeRecovery(
                            repaired,
                            replayed,
                            tree.keys.get(),
                            tree.meta.pageCount,
                            opened.created());
            return new Opened(tree, doubleWrite, newLog, recovery);
        } catch (IOException | RuntimeException e) {
            opened.file().close();
            if (doubleWrite != null) {
                doubleWrite.close();
            }
            throw e;
        }
    }

    private static void checkpoint(BTree tree, long logNumber, WalFile doubleWrite) {
        try {
            Checkpoint.write(Checkpoint.take(tree, logNumber), tree.pool, doubleWrite);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
