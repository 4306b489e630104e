package dbf0.kv.bench.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every disk-bench engine promises, whatever is underneath: the answers of a map, writes that
 * survive a close and a reopen under every fsync policy, and forces where its policy says.
 */
@Timeout(60)
class DiskEngineContractTest {

    static DiskEngine open(EngineType type, Path dir, FsyncPolicy policy) throws Exception {
        LsmOptions options =
                LsmOptions.defaults(dir)
                        .withMemtableBytes(64 << 10)
                        .withBlockCacheBytes(1 << 20)
                        .withFsync(policy)
                        .withFsyncInterval(Duration.ofMillis(20));
        return type.open(options, 4096);
    }

    static byte[] key(int i) {
        return String.format("%06d", i).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] value(int i, int version) {
        return ("value " + i + " v" + version).getBytes(StandardCharsets.US_ASCII);
    }

    static Stream<Arguments> everyTypeAndPolicy() {
        List<Arguments> all = new ArrayList<>();
        for (EngineType type : EngineType.values()) {
            for (FsyncPolicy policy : FsyncPolicy.values()) {
                all.add(Arguments.of(type, policy));
            }
        }
        return all.stream();
    }

    @ParameterizedTest
    @EnumSource(EngineType.class)
    void answersAsAMapWould(EngineType type, @TempDir Path dir) throws Exception {
        try (DiskEngine engine = open(type, dir, FsyncPolicy.NEVER)) {
            assertThat(engine.get(key(1))).isFalse();
            assertThat(engine.delete(key(1))).as("a missing key").isFalse();
            engine.put(key(1), value(1, 0));
            engine.put(key(1), value(1, 1));
            engine.put(key(2), new byte[0]);
            assertThat(engine.get(key(1))).isTrue();
            assertThat(engine.get(key(2))).as("an empty value is a value").isTrue();
            assertThat(engine.delete(key(1))).isTrue();
            assertThat(engine.delete(key(1))).as("deleted once already").isFalse();
            assertThat(engine.get(key(1))).isFalse();
            assertThat(engine.get(key(3))).isFalse();
        }
    }

    @ParameterizedTest
    @MethodSource("everyTypeAndPolicy")
    void reopenedItHasEveryWriteAndNoDeletedKey(
            EngineType type, FsyncPolicy policy, @TempDir Path dir) throws Exception {
        int keys = policy == FsyncPolicy.ALWAYS ? 60 : 600;
        try (DiskEngine engine = open(type, dir, policy)) {
            for (int i = 0; i < keys; i++) {
                engine.put(key(i), value(i, 0));
            }
            for (int i = 0; i < keys; i += 3) {
                assertThat(engine.delete(key(i))).isTrue();
            }
        }
        try (DiskEngine engine = open(type, dir, policy)) {
            for (int i = 0; i < keys; i++) {
                assertThat(engine.get(key(i))).as("key %d after reopen", i).isEqualTo(i % 3 != 0);
            }
            engine.put(key(keys), value(keys, 0));
            assertThat(engine.get(key(keys))).as("writable after reopen").isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(EngineType.class)
    void underAlwaysEveryWriteWaitsForAForce(EngineType type, @TempDir Path dir) throws Exception {
        try (DiskEngine engine = open(type, dir, FsyncPolicy.ALWAYS)) {
            long before = engine.counters().fsyncs();
            // One thread: no other writer to share a force with.
            for (int i = 0; i < 20; i++) {
                engine.put(key(i), value(i, 0));
            }
            assertThat(engine.delete(key(0))).isTrue();
            assertThat(engine.counters().fsyncs() - before).isGreaterThanOrEqualTo(21);
            assertThat(engine.describe()).startsWith(type.cliName()).contains("fsync always");
        }
    }

    @ParameterizedTest
    @EnumSource(EngineType.class)
    void underIntervalATimerForcesAndWritesDoNot(EngineType type, @TempDir Path dir)
            throws Exception {
        try (DiskEngine engine = open(type, dir, FsyncPolicy.INTERVAL)) {
            for (int i = 0; i < 200; i++) {
                engine.put(key(i), value(i, 0));
            }
            // A force per write would be 200; a 20 ms timer during the loop forces far fewer.
            long forced = engine.counters().fsyncs();
            assertThat(forced).isLessThan(200);
            engine.put(key(200), value(200, 0));
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.counters().fsyncs() > forced);
            assertThat(engine.describe()).startsWith(type.cliName()).contains("fsync interval");
        }
    }

    @ParameterizedTest
    @EnumSource(EngineType.class)
    void underNeverNoWriteWaitsForAForce(EngineType type, @TempDir Path dir) throws Exception {
        try (DiskEngine engine = open(type, dir, FsyncPolicy.NEVER)) {
            for (int i = 0; i < 200; i++) {
                engine.put(key(i), value(i, 0));
            }
            assertThat(engine.counters().fsyncs()).isZero();
            assertThat(engine.describe()).startsWith(type.cliName()).contains("fsync never");
        }
    }

    @ParameterizedTest
    @EnumSource(EngineType.class)
    void concurrentWritersLoseNothing(EngineType type, @TempDir Path dir) throws Exception {
        int threads = 4;
        int each = 250;
        try (DiskEngine engine = open(type, dir, FsyncPolicy.NEVER)) {
            List<Thread> writers = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < threads; t++) {
                int first = t * each;
                writers.add(
                        Thread.ofPlatform()
                                .start(
                                        () -> {
                                            try {
                                                for (int i = first; i < first + each; i++) {
                                                    engine.put(key(i), value(i, 0));
                                                    assertThat(engine.get(key(i))).isTrue();
                                                }
                                            } catch (Throwable e) {
                                                failures.add(e);
                                            }
                                        }));
            }
            for (Thread w : writers) {
                w.join();
            }
            assertThat(failures).isEmpty();
            for (int i = 0; i < threads * each; i++) {
                assertThat(engine.get(key(i))).as("key %d", i).isTrue();
            }
        }
    }
}
