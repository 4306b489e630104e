package dbf0.kv.storage.wal;

import static dbf0.kv.storage.wal.WalTesting.b;
import static dbf0.kv.storage.wal.WalTesting.contents;
import static dbf0.kv.storage.wal.WalTesting.open;
import static dbf0.kv.storage.wal.WalTesting.opts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.Words;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Replaying the log at open: torn tails, corruption, a left-over rewrite. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WalRecoveryTest {

    @Test
    void aTornTailIsCutOffAtTheLastGoodRecordWhereverTheCrashStopped() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            store.put(b("a"), b("1"));
            store.put(b("b"), b("2"));
        }
        byte[] two = disk.bytes(WalStore.LOG_NAME);
        byte[] third = WalRecord.encode(new WalRecord.Put(b("c"), b("333")));
        int goodBytes = two.length;
        for (int cut = 1; cut < third.length; cut++) {
            byte[] torn = new byte[two.length + cut];
            System.arraycopy(two, 0, torn, 0, two.length);
            System.arraycopy(third, 0, torn, two.length, cut);
            disk.replace(WalStore.LOG_NAME, torn);
            try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
                assertThat(store.recovery().records()).as("cut at %d", cut).isEqualTo(2);
                assertThat(store.recovery().droppedBytes()).isEqualTo(cut);
                assertThat(store.recovery().summary())
                        .contains(
                                "cut " + Words.count(cut, "byte") + " after the last good record");
                assertThat(contents(store)).hasSize(2);
                store.put(b("d"), b("4")); // appends right after the last good record
            }
            try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
                assertThat(store.recovery().droppedBytes()).isZero();
                assertThat(store.get(b("d"))).isEqualTo(b("4"));
                assertThat(store.recovery().bytes())
                        .isEqualTo(
                                goodBytes
                                        + WalRecord.encodedSize(new WalRecord.Put(b("d"), b("4"))));
            }
        }
    }

    @Test
    void aBadChecksumOnTheLastRecordIsATornTailToo() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            store.put(b("a"), b("1"));
            store.put(b("b"), b("2"));
        }
        byte[] log = disk.bytes(WalStore.LOG_NAME);
        log[log.length - 1] ^= 0x40;
        disk.replace(WalStore.LOG_NAME, log);
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            assertThat(contents(store)).containsExactly(Map.entry(b("a"), b("1")));
            assertThat(store.recovery().problem()).contains("checksum");
        }
    }

    @Test
    void corruptionInTheMiddleStopsTheStartNamingFileAndOffset() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            for (int i = 0; i < 5; i++) {
                store.put(b("k" + i), b("v" + i));
            }
        }
        byte[] log = disk.bytes(WalStore.LOG_NAME);
        long recordSize = WalRecord.encodedSize(new WalRecord.Put(b("k0"), b("v0")));
        int second = (int) recordSize;
        log[second + WalRecord.HEADER_BYTES + 3] ^= 1; // inside the second record's body
        disk.replace(WalStore.LOG_NAME, log);
        assertThatThrownBy(() -> open(disk, opts(FsyncPolicy.ALWAYS)))
                .isInstanceOf(CorruptWalException.class)
                .hasMessageContaining("sim:/" + WalStore.LOG_NAME)
                .hasMessageContaining("offset " + second)
                .hasMessageContaining("--recover-truncate")
                .satisfies(e -> assertThat(((CorruptWalException) e).offset()).isEqualTo(second));
        // the log is untouched by the refused start
        assertThat(disk.bytes(WalStore.LOG_NAME)).isEqualTo(log);

        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS).withRecoverTruncate(true))) {
            assertThat(contents(store)).containsExactly(Map.entry(b("k0"), b("v0")));
            assertThat(store.recovery().droppedBytes()).isEqualTo(4 * recordSize);
        }
    }

    @Test
    void aLeftOverRewriteFileIsDeletedAtStart() throws IOException {
        SimulatedDirectory disk = new SimulatedDirectory();
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            store.put(b("a"), b("1"));
        }
        disk.replace(WalStore.REWRITE_NAME, WalRecord.encode(new WalRecord.Put(b("junk"), b("x"))));
        try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
            assertThat(store.recovery().staleRewrite()).isTrue();
            assertThat(contents(store)).containsOnlyKeys(b("a"));
        }
        assertThat(disk.bytes(WalStore.REWRITE_NAME)).isNull();
    }
}
