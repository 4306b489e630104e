package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.storage.wal.WalRecovery;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The start-up lines of the log and of the LSM store, in words: counts, sizes, plurals. */
class RecoverySummaryTest {

    private static WalRecovery log(long records, int keys, long bytes, long dropped) {
        return new WalRecovery(
                records, keys, bytes, dropped, dropped > 0 ? "torn" : null, false, 0.5);
    }

    @Test
    void oneOfEachIsSingular() {
        assertThat(new LsmRecovery(List.of(log(1, 1, 40, 0)), 0, 1).summary())
                .isEqualTo("lsm store opened: 1 table, 1 log replayed (1 record)");
        assertThat(log(1, 1, 40, 1).summary())
                .isEqualTo(
                        "log replayed: 1 record, 1 key, 40 B in 0.500 s (2 records/s); cut 1 byte"
                                + " after the last good record (torn)");
    }

    @Test
    void manyArePluralAndSizesHaveUnits() {
        assertThat(new LsmRecovery(List.of(log(2, 2, 80, 6), log(0, 0, 0, 0)), 5, 3).summary())
                .isEqualTo(
                        "lsm store opened: 3 tables, 2 logs replayed (2 records); a log's torn"
                                + " tail of 6 bytes cut (torn); the manifest's torn last edit of 5"
                                + " bytes cut");
        assertThat(log(3_000, 1_500, 3L << 20, 0).summary())
                .isEqualTo(
                        "log replayed: 3,000 records, 1,500 keys, 3 MiB in 0.500 s (6,000"
                                + " records/s)");
    }
}
