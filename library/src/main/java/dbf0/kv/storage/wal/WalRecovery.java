package dbf0.kv.storage.wal;

import static dbf0.kv.storage.wal.WalStore.LOG_NAME;
import static dbf0.kv.storage.wal.WalStore.REWRITE_NAME;

import dbf0.common.ByteSizes;
import dbf0.common.Words;
import dbf0.kv.storage.Store;
import java.io.IOException;

/**
 * What start-up found in the log, and the replay that finds it.
 *
 * @param records records replayed
 * @param keys keys in the store afterwards
 * @param bytes the log's good bytes, which appends go on after
 * @param droppedBytes bytes cut off after the last good record (a torn tail, or with {@code
 *     recoverTruncate} everything after a corrupt record)
 * @param problem what was wrong with the first dropped byte, or null
 * @param staleRewrite whether an unfinished rewrite's file was found and deleted
 * @param seconds time spent replaying
 */
public record WalRecovery(
        long records,
        int keys,
        long bytes,
        long droppedBytes,
        String problem,
        boolean staleRewrite,
        double seconds) {

    /** The start-up line. */
    public String summary() {
        StringBuilder line =
                new StringBuilder(
                        String.format(
                                "log replayed: %s, %s, %s in %.3f s (%,.0f records/s)",
                                Words.count(records, "record"),
                                Words.count(keys, "key"),
                                ByteSizes.format(bytes),
                                seconds,
                                seconds > 0 ? records / seconds : 0.0));
        if (droppedBytes > 0) {
            line.append(
                    String.format(
                            "; cut %s after the last good record (%s)",
                            Words.count(droppedBytes, "byte"), problem));
        }
        if (staleRewrite) {
            line.append("; deleted an unfinished rewrite");
        }
        return line.toString();
    }

    /** The log's file, open and cut to its good records, and what replaying it found. */
    record Replayed(WalFile file, WalRecovery recovery) {}

    /**
     * Opens the log in {@code dir} and replays it into {@code inner}, which should be empty.
     *
     * @throws CorruptWalException when a bad record has good ones after it and {@link
     *     WalOptions#recoverTruncate()} is off
     */
    static Replayed replay(Store inner, WalOptions options, WalDirectory dir) throws IOException {
        return replay(inner, options, dir, LOG_NAME);
    }

    /**
     * Replays the log named {@code name} in {@code dir} into {@code inner} and closes it: for a
     * store that keeps several logs (the LSM store, one per memtable). A torn tail is cut off and
     * reported in the result.
     *
     * @throws CorruptWalException when a bad record has good ones after it and {@link
     *     WalOptions#recoverTruncate()} is off
     */
    public static WalRecovery replayNamed(
            Store inner, WalOptions options, WalDirectory dir, String name) throws IOException {
        Replayed replayed = replay(inner, options, dir, name);
        replayed.file().close();
        return replayed.recovery();
    }

    static Replayed replay(Store inner, WalOptions options, WalDirectory dir, String name)
            throws IOException {
        boolean stale = name.equals(LOG_NAME) && dir.exists(REWRITE_NAME);
        if (stale) {
            dir.delete(REWRITE_NAME); // a rewrite that never reached its rename: the log is whole
        }
        boolean existed = dir.exists(name);
        WalFile log = dir.open(name);
        try {
            if (!existed || stale) {
                dir.sync(); // a new log's name must survive a power cut before anything in it
                // is acked
            }
            long start = System.nanoTime();
            WalReader.Outcome outcome = WalReader.read(log, record -> WalLog.apply(inner, record));
            if (outcome.corruptAt() >= 0 && !options.recoverTruncate()) {
                throw new CorruptWalException(
                        String.format(
                                "%s: corrupt record at byte offset %d (%s), with good records after"
                                    + " it; this is damage, not a crash. Keep a copy of the file,"
                                    + " then start with --recover-truncate to keep the %d records"
                                    + " before it and drop the %d bytes from it on",
                                dir.describe(name),
                                outcome.corruptAt(),
                                outcome.problem(),
                                outcome.records(),
                                outcome.droppedBytes()),
                        outcome.corruptAt());
            }
            if (outcome.droppedBytes() > 0) {
                log.truncate(outcome.goodBytes());
                log.force();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            WalRecovery recovery =
                    new WalRecovery(
                            outcome.records(),
                            inner.size(),
                            outcome.goodBytes(),
                            outcome.droppedBytes(),
                            outcome.problem(),
                            stale,
                            seconds);
            return new Replayed(log, recovery);
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }
}
