package dbf0.kv.storage.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The log's promises one by one: replay, group commit, the policies, failures, rewrites. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DurableStoreTest {

  static ByteArrayWrapper b(String s) {
    return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
  }

  static WalOptions opts(FsyncPolicy policy) {
    return WalOptions.defaults(Path.of("unused")).withFsync(policy).withRewrite(0, 0);
  }

  static WalStore open(SimulatedDirectory disk, WalOptions options) throws IOException {
    return WalStore.open(new MapStore(new ConcurrentHashMap<>()), options, disk.mount());
  }

  static Map<ByteArrayWrapper, ByteArrayWrapper> contents(Store store) {
    Map<ByteArrayWrapper, ByteArrayWrapper> copy = new HashMap<>();
    store.forEach(copy::put);
    return copy;
  }

  @Test
  void putsDeletesAndClearsSurviveARestart(@TempDir Path dir) throws IOException {
    WalOptions options = WalOptions.defaults(dir);
    try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options)) {
      store.put(b("a"), b("1"));
      store.put(b("b"), b("2"));
      store.put(b("a"), b("3"));
      assertThat(store.delete(b("b"))).isTrue();
      assertThat(store.delete(b("nope"))).isFalse();
      store.clear();
      store.put(b("c"), b("4"));
      store.put(b("d"), b("5"));
      store.delete(b("d"));
    }
    try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options)) {
      assertThat(contents(store)).containsExactly(Map.entry(b("c"), b("4")));
      assertThat(store.recovery().records()).isEqualTo(9);
      assertThat(store.recovery().keys()).isEqualTo(1);
      assertThat(store.recovery().droppedBytes()).isZero();
      assertThat(store.recovery().summary()).contains("9 records", "1 keys");
    }
  }

  @Test
  void aSecondServerOnTheSameDirectoryIsRefused(@TempDir Path dir) throws IOException {
    try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), WalOptions.defaults(dir))) {
      store.put(b("a"), b("1"));
      assertThatThrownBy(() -> WalStore.open(new MapStore(new ConcurrentHashMap<>()), WalOptions.defaults(dir)))
          .isInstanceOf(IOException.class).hasMessageContaining("in use");
    }
  }

  @Test
  void concurrentWritersShareFsyncs() throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    int threads = 16;
    int each = 200;
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> writers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        writers.add(Thread.ofPlatform().start(() -> {
          try {
            start.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int i = 0; i < each; i++) {
            store.put(b(id + "-" + i), b("v"));
          }
        }));
      }
      start.countDown();
      for (Thread w : writers) {
        w.join();
      }
      WalStats stats = store.stats();
      assertThat(stats.recordsWritten()).isEqualTo(threads * each);
      assertThat(stats.recordsForced()).isEqualTo(threads * each);
      // Each put waited for its own force, so without sharing there would be one force per put.
      assertThat(stats.fsyncs()).isLessThan(threads * each);
      assertThat(stats.recordsPerFsync()).isGreaterThan(1.0);
      assertThat(store.size()).isEqualTo(threads * each);
    }
  }

  /** Holds the first force until released, so that the writes behind it queue up and commit together. */
  private static WalStore afterACommitOfTwo(StalledForce stalled, WalOptions options) throws Exception {
    WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options, stalled);
    var first = store.putAsync(b("first"), b("v"));
    assertThat(stalled.entered.await(10, TimeUnit.SECONDS)).isTrue();
    var a = store.putAsync(b("a"), b("v"));
    var c = store.putAsync(b("c"), b("v"));
    stalled.release.countDown();
    first.join();
    a.join();
    c.join();
    assertThat(store.stats().fsyncs()).as("first alone, then a and c together").isEqualTo(2);
    return store;
  }

  @Test
  @Timeout(60)
  void afterACommitOfTwoALoneWriteWaitsForASecondAndTheyShareOneFsync() throws Exception {
    WalOptions options = opts(FsyncPolicy.ALWAYS).withCommitWait(WalOptions.MAX_COMMIT_WAIT_MICROS);
    try (WalStore store = afterACommitOfTwo(new StalledForce(new SimulatedDirectory().mount()), options)) {
      var x = store.putAsync(b("x"), b("v"));
      Thread.sleep(100);
      assertThat(x).as("waiting, up to a second, for as many writes as the last commit had").isNotDone();
      var y = store.putAsync(b("y"), b("v"));
      x.join();
      y.join();
      assertThat(store.stats().fsyncs()).isEqualTo(3);
      assertThat(store.stats().recordsForced()).isEqualTo(5);
    }
  }

  @Test
  @Timeout(60)
  void withTheCommitWaitOffALoneWriteIsForcedAtOnce() throws Exception {
    WalOptions options = opts(FsyncPolicy.ALWAYS).withCommitWait(0);
    try (WalStore store = afterACommitOfTwo(new StalledForce(new SimulatedDirectory().mount()), options)) {
      store.putAsync(b("x"), b("v")).join(); // no partner comes: only an unconditional force ends this
      assertThat(store.stats().fsyncs()).isEqualTo(3);
    }
  }

  @Test
  @Timeout(60)
  void aLoneWriterNeverWaits() throws Exception {
    // The last commit had one write, so the next one alone is as big as the last: no wait, even
    // with the longest wait allowed (a second): ten writes one after another take far less.
    WalOptions options = opts(FsyncPolicy.ALWAYS).withCommitWait(WalOptions.MAX_COMMIT_WAIT_MICROS);
    try (WalStore store = open(new SimulatedDirectory(), options)) {
      long started = System.nanoTime();
      for (int i = 0; i < 10; i++) {
        store.put(b("k" + i), b("v"));
      }
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
      assertThat(store.stats().fsyncs()).isEqualTo(10);
    }
  }

  @Test
  void alwaysAcknowledgesOnlyForcedRecords() throws IOException {
    SimulatedDirectory disk = new SimulatedDirectory();
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      store.put(b("k"), b("v"));
      disk.powerCut(null); // keeps only what was forced, with no torn tail
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      assertThat(store.get(b("k"))).isEqualTo(b("v"));
    }
  }

  @Test
  void neverLosesUnforcedWritesToAPowerCut() throws IOException {
    // The other side of the same model: it is the force that keeps a write, not the write call.
    SimulatedDirectory disk = new SimulatedDirectory();
    try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
      store.put(b("k"), b("v"));
      assertThat(store.get(b("k"))).isEqualTo(b("v"));
      disk.powerCut(null);
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
      assertThat(store.get(b("k"))).isNull();
    }
  }

  @Test
  void intervalForcesWithinTheInterval() throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    WalOptions options = opts(FsyncPolicy.INTERVAL).withFsyncInterval(Duration.ofMillis(50));
    try (WalStore store = open(disk, options)) {
      long before = disk.forces();
      store.put(b("k"), b("v"));
      long acked = System.nanoTime();
      while (disk.forces() == before) {
        assertThat(System.nanoTime() - acked).as("force within a few intervals").isLessThan(TimeUnit.SECONDS.toNanos(2));
        Thread.sleep(5);
      }
      disk.powerCut(null);
    }
    try (WalStore store = open(disk, options)) {
      assertThat(store.get(b("k"))).isEqualTo(b("v"));
    }
  }

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
        assertThat(store.recovery().summary()).contains("cut " + cut + " bytes");
        assertThat(contents(store)).hasSize(2);
        store.put(b("d"), b("4")); // appends right after the last good record
      }
      try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
        assertThat(store.recovery().droppedBytes()).isZero();
        assertThat(store.get(b("d"))).isEqualTo(b("4"));
        assertThat(store.recovery().bytes()).isEqualTo(goodBytes + WalRecord.encodedSize(new WalRecord.Put(b("d"), b("4"))));
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
  void aFailedWriteIsAnErrorAndTheStoreGoesOn() throws IOException {
    SimulatedDirectory disk = new SimulatedDirectory();
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      store.put(b("a"), b("1"));
      disk.failNext(SimulatedDirectory.Op.WRITE, 1);
      assertThatThrownBy(() -> store.put(b("b"), b("2"))).isInstanceOf(StorageFailureException.class)
          .hasMessageContaining("not acknowledged");
      assertThat(store.get(b("b"))).as("a failed write is not applied").isNull();
      assertThat(store.get(b("a"))).isEqualTo(b("1"));
      store.put(b("c"), b("3"));
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      assertThat(contents(store)).containsOnlyKeys(b("a"), b("c"));
      assertThat(store.recovery().droppedBytes()).isZero();
    }
  }

  @Test
  void aFailedForceIsAnErrorAndTheHalfWrittenBatchIsCutBack() throws IOException {
    SimulatedDirectory disk = new SimulatedDirectory();
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      store.put(b("a"), b("1"));
      disk.failNext(SimulatedDirectory.Op.FORCE, 1);
      assertThatThrownBy(() -> store.put(b("b"), b("2"))).isInstanceOf(StorageFailureException.class);
      assertThat(store.get(b("b"))).isNull();
      store.put(b("c"), b("3"));
      assertThat(store.stats().failure()).isNull();
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      assertThat(contents(store)).containsOnlyKeys(b("a"), b("c"));
    }
  }

  @Test
  void aFullDiskRefusesWritesAndKeepsEverythingAcknowledged() throws IOException {
    SimulatedDirectory disk = new SimulatedDirectory();
    List<String> acked = new ArrayList<>();
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      disk.capacity(1000);
      int refused = 0;
      for (int i = 0; i < 100; i++) {
        try {
          store.put(b("key" + i), b("value" + i));
          acked.add("key" + i);
        } catch (StorageFailureException e) {
          refused++;
        }
      }
      assertThat(refused).isPositive();
      assertThat(acked).isNotEmpty();
      assertThat(store.get(b(acked.get(0)))).as("reads go on").isNotNull();
      disk.powerCut(new java.util.Random(1));
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      for (String key : acked) {
        assertThat(store.get(b(key))).as(key).isNotNull();
      }
      assertThat(store.size()).isEqualTo(acked.size());
    }
  }

  @Test
  void whenTheRepairFailsTooWritesAreRefusedButReadsGoOn() throws IOException {
    SimulatedDirectory disk = new SimulatedDirectory();
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      store.put(b("a"), b("1"));
      disk.failNext(SimulatedDirectory.Op.FORCE, 1);
      disk.failNext(SimulatedDirectory.Op.TRUNCATE, 1);
      assertThatThrownBy(() -> store.put(b("b"), b("2"))).isInstanceOf(StorageFailureException.class);
      assertThatThrownBy(() -> store.put(b("c"), b("3"))).isInstanceOf(StorageFailureException.class)
          .hasMessageContaining("refused until restart");
      assertThat(store.stats().failure()).contains("refused");
      assertThat(store.get(b("a"))).isEqualTo(b("1"));
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      assertThat(store.get(b("a"))).isEqualTo(b("1"));
      assertThat(store.get(b("c"))).isNull();
    }
  }

  @Test
  void aRewriteKeepsTheDataShrinksTheLogAndWritesGoOnMeanwhile() throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    Map<ByteArrayWrapper, ByteArrayWrapper> expected = new HashMap<>();
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      for (int round = 0; round < 20; round++) {
        for (int k = 0; k < 50; k++) {
          store.put(b("k" + k), b("v" + round));
          expected.put(b("k" + k), b("v" + round));
        }
      }
      long before = store.stats().logBytes();
      var rewrite = store.rewriteAsync();
      for (int k = 0; k < 50; k += 2) { // writes racing the rewrite
        store.put(b("k" + k), b("during"));
        expected.put(b("k" + k), b("during"));
      }
      store.delete(b("k1"));
      expected.remove(b("k1"));
      rewrite.get(20, TimeUnit.SECONDS);
      store.put(b("after"), b("x"));
      expected.put(b("after"), b("x"));
      WalStats stats = store.stats();
      assertThat(stats.rewrites()).isEqualTo(1);
      assertThat(stats.lastRewriteStatus()).isEqualTo("ok");
      assertThat(stats.logBytes()).isLessThan(before / 5);
      assertThat(disk.bytes(WalStore.REWRITE_NAME)).isNull();
      disk.powerCut(null);
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.ALWAYS))) {
      assertThat(contents(store)).isEqualTo(expected);
    }
  }

  @Test
  void aFailedRewriteLeavesTheLogAsItWas() throws Exception {
    for (SimulatedDirectory.Op op : List.of(SimulatedDirectory.Op.RENAME, SimulatedDirectory.Op.FORCE,
        SimulatedDirectory.Op.OPEN)) {
      SimulatedDirectory disk = new SimulatedDirectory();
      try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
        for (int i = 0; i < 100; i++) {
          store.put(b("k" + (i % 10)), b("v" + i));
        }
        disk.failNext(op, 1);
        assertThatThrownBy(() -> store.rewriteAsync().get(20, TimeUnit.SECONDS)).as(op.name())
            .hasCauseInstanceOf(StorageFailureException.class);
        assertThat(store.stats().lastRewriteStatus()).startsWith("failed");
        store.put(b("after"), b("x"));
        store.syncAsync().get(5, TimeUnit.SECONDS);
      }
      try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
        assertThat(store.size()).as(op.name()).isEqualTo(11);
        assertThat(store.get(b("k9"))).isEqualTo(b("v99"));
        assertThat(store.recovery().staleRewrite()).isFalse();
      }
    }
  }

  @Test
  void aRewriteThatFallsTooFarBehindIsAbandonedAtTheSideBufferLimit() throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    CountDownLatch snapshotStarted = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // A map whose snapshot waits until the test has written past the limit.
    Store slow = new dbf0.kv.storage.ForwardingStore() {
      @Override
      public void forEach(java.util.function.BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
        snapshotStarted.countDown();
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        map.forEach(action);
      }
    };
    WalLimits limits = WalLimits.DEFAULTS.withRewriteSideBufferBytes(1024);
    try (WalStore store = WalStore.open(slow, opts(FsyncPolicy.NEVER), disk.mount(), limits)) {
      store.put(b("before"), b("x"));
      var rewrite = store.rewriteAsync();
      assertThat(snapshotStarted.await(10, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < 100; i++) { // 100 records of 25+ bytes: past 1 KiB
        store.put(b("k" + i), b("value-" + i));
      }
      release.countDown();
      assertThatThrownBy(() -> rewrite.get(20, TimeUnit.SECONDS)).hasMessageContaining("side buffer");
      assertThat(store.stats().lastRewriteStatus()).contains("1024-byte side buffer");
      assertThat(store.stats().rewrites()).isZero();
      store.syncAsync().get(5, TimeUnit.SECONDS);
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.NEVER))) {
      assertThat(store.size()).isEqualTo(101); // the log was left as it was, and complete
      assertThat(store.recovery().staleRewrite()).isFalse();
    }
  }

  @Test
  void theLogRewritesItselfPastTheGrowthFactor() throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    WalOptions options = opts(FsyncPolicy.NEVER).withRewrite(2.0, 4096);
    try (WalStore store = open(disk, options)) {
      for (int i = 0; i < 2000; i++) {
        store.put(b("k" + (i % 10)), b("value-" + i));
        if (i % 100 == 99) {
          // Every write racing a rewrite lands in the new log whole, and a write under never costs
          // about a microsecond: pace them, so that at most 100 race each rewrite.
          org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
              .until(() -> !store.stats().rewriteInProgress());
        }
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> store.stats().rewrites() > 0 && !store.stats().rewriteInProgress());
      // bounded: after rewrites, 10 live keys and the 100 writes that raced the last rewrite stay
      // well under twice the 4 KiB minimum plus those writes
      assertThat(store.stats().logBytes()).isLessThan(2000L * 20);
      store.syncAsync().get(5, TimeUnit.SECONDS);
    }
    try (WalStore store = open(disk, options)) {
      assertThat(store.size()).isEqualTo(10);
      assertThat(store.get(b("k9"))).isEqualTo(b("value-1999"));
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

  @Test
  void writesAfterCloseAreRefused(@TempDir Path dir) throws IOException {
    WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), WalOptions.defaults(dir));
    store.put(b("a"), b("1"));
    store.close();
    assertThatThrownBy(() -> store.put(b("b"), b("2"))).isInstanceOf(StorageFailureException.class)
        .hasMessageContaining("closed");
    assertThat(Files.size(dir.resolve(WalStore.LOG_NAME))).isEqualTo(
        WalRecord.encodedSize(new WalRecord.Put(b("a"), b("1"))));
  }

  // ---------------------------------------------------------------- interval and never: pending records, one write per flush

  /** A store under interval or never whose safety net waits a minute: only an explicit flush writes. */
  private static WalStore withoutSafetyNet(SimulatedDirectory disk, FsyncPolicy policy) throws IOException {
    return WalStore.open(new MapStore(new ConcurrentHashMap<>()), opts(policy), disk.mount(),
        WalLimits.DEFAULTS.withLateFlush(Duration.ofMinutes(1)));
  }

  @Test
  void underIntervalAndNeverWritesWaitForAFlushWhichWritesThemAllWithOneWriteCall() throws Exception {
    for (FsyncPolicy policy : List.of(FsyncPolicy.INTERVAL, FsyncPolicy.NEVER)) {
      SimulatedDirectory disk = new SimulatedDirectory();
      WalStore store = withoutSafetyNet(disk, policy);
      store.put(b("old"), b("0"));
      byte[] logBefore = disk.bytes(WalStore.LOG_NAME);
      long writesBefore = disk.writes();

      List<String> completed = java.util.Collections.synchronizedList(new ArrayList<>());
      var putNew = store.putAsync(b("new"), b("1"));
      var putOld = store.putAsync(b("old"), b("2"));
      var deleteNew = store.deleteAsync(b("new"));
      var deleteNone = store.deleteAsync(b("none"));
      putNew.thenRun(() -> completed.add("put new"));
      putOld.thenRun(() -> completed.add("put old"));
      deleteNew.thenRun(() -> completed.add("delete new"));
      deleteNone.thenRun(() -> completed.add("delete none"));

      assertThat(List.of(putNew, putOld, deleteNew, deleteNone)).as(policy.name())
          .noneMatch(java.util.concurrent.CompletableFuture::isDone);
      assertThat(store.stats().recordsWritten()).as("only the first").isEqualTo(1);
      assertThat(store.get(b("new"))).as("not applied before it is written").isNull();
      assertThat(store.get(b("old"))).isEqualTo(b("0"));
      assertThat(disk.bytes(WalStore.LOG_NAME)).as("nothing written yet").isEqualTo(logBefore);
      assertThat(disk.writes()).isEqualTo(writesBefore);

      store.flush();
      assertThat(disk.writes() - writesBefore).as("one write call for the four").isEqualTo(1);
      assertThat(completed).as("completed in order, before flush returned")
          .containsExactly("put new", "put old", "delete new", "delete none");
      assertThat(putNew).isCompletedWithValue(true);
      assertThat(putOld).isCompletedWithValue(true);
      assertThat(deleteNew).as("applied in order: the put came first").isCompletedWithValue(true);
      assertThat(deleteNone).isCompletedWithValue(false);
      assertThat(store.get(b("old"))).isEqualTo(b("2"));
      assertThat(store.get(b("new"))).isNull();
      assertThat(disk.bytes(WalStore.LOG_NAME).length - logBefore.length).isEqualTo(
          WalRecord.encodedSize(new WalRecord.Put(b("new"), b("1")))
              + WalRecord.encodedSize(new WalRecord.Put(b("old"), b("2")))
              + WalRecord.encodedSize(new WalRecord.Delete(b("new")))
              + WalRecord.encodedSize(new WalRecord.Delete(b("none"))));
      assertThat(store.stats().recordsWritten()).isEqualTo(5);
      store.flush(); // nothing pending: no write call
      assertThat(disk.writes() - writesBefore).isEqualTo(1);

      var synced = store.putAsync(b("synced"), b("s"));
      store.syncAsync().get(10, TimeUnit.SECONDS); // writes what was accepted before it, then forces
      assertThat(synced).as("written by the sync").isCompletedWithValue(true);
      var last = store.putAsync(b("last"), b("x"));
      store.close(); // writes what was accepted before it
      assertThat(last).as("written by close").isCompletedWithValue(true);
      assertThat(store.putAsync(b("late"), b("x"))).as("refused after close").isCompletedExceptionally();
      assertThatThrownBy(() -> store.put(b("late"), b("x"))).isInstanceOf(StorageFailureException.class)
          .hasMessageContaining("closed");
      disk.powerCut(null); // the sync and close forced everything
      try (WalStore reopened = open(disk, opts(policy))) {
        assertThat(contents(reopened)).as(policy.name()).containsOnly(Map.entry(b("old"), b("2")),
            Map.entry(b("synced"), b("s")), Map.entry(b("last"), b("x")));
        assertThat(reopened.recovery().records()).isEqualTo(7);
      }
    }
  }

  @Test
  void underIntervalAndNeverAFailedWriteFailsEveryRecordOfItsFlushAndTheNextFlushIsLogged() throws Exception {
    for (FsyncPolicy policy : List.of(FsyncPolicy.INTERVAL, FsyncPolicy.NEVER)) {
      SimulatedDirectory disk = new SimulatedDirectory();
      try (WalStore store = withoutSafetyNet(disk, policy)) {
        store.put(b("a"), b("1"));
        disk.failNext(SimulatedDirectory.Op.WRITE, 1);
        var putB = store.putAsync(b("b"), b("2"));
        var deleteA = store.deleteAsync(b("a"));
        var putC = store.putAsync(b("c"), b("3"));
        store.flush();
        for (var failed : List.of(putB, deleteA, putC)) {
          assertThat(failed).as(policy.name()).isCompletedExceptionally();
          assertThatThrownBy(failed::join).hasCauseInstanceOf(StorageFailureException.class)
              .hasMessageContaining("not acknowledged");
        }
        assertThat(store.get(b("b"))).as("a failed write is not applied").isNull();
        assertThat(store.get(b("a"))).isEqualTo(b("1"));
        assertThat(store.get(b("c"))).isNull();
        var d = store.putAsync(b("d"), b("4"));
        store.flush();
        assertThat(d).isCompletedWithValue(true);
        assertThat(store.stats().failure()).isNull();
        assertThat(store.stats().recordsWritten()).isEqualTo(2);
      }
      try (WalStore store = open(disk, opts(policy))) {
        assertThat(contents(store)).as(policy.name()).containsOnlyKeys(b("a"), b("d"));
        assertThat(store.recovery().droppedBytes()).isZero();
      }
    }
  }

  @Test
  void aWriteNobodyFlushesIsWrittenByTheSafetyNet() throws Exception {
    for (FsyncPolicy policy : List.of(FsyncPolicy.INTERVAL, FsyncPolicy.NEVER)) {
      SimulatedDirectory disk = new SimulatedDirectory();
      try (WalStore store = open(disk, opts(policy))) {
        Thread.sleep(50); // idle first: the writer is in its idle wait when the write comes
        var put = store.putAsync(b("k"), b("v"));
        assertThat(put.get(10, TimeUnit.SECONDS)).as(policy.name()).isTrue();
        assertThat(store.get(b("k"))).isEqualTo(b("v"));
        assertThat(disk.bytes(WalStore.LOG_NAME)).isEqualTo(WalRecord.encode(new WalRecord.Put(b("k"), b("v"))));
      }
    }
  }

  @Test
  void theSubmitterThatReachesThePendingLimitFlushes() throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    try (WalStore store = withoutSafetyNet(disk, FsyncPolicy.NEVER)) {
      List<java.util.concurrent.CompletableFuture<Boolean>> writes = new ArrayList<>();
      for (int i = 0; i < Combiner.PENDING_LIMIT - 1; i++) {
        writes.add(store.putAsync(b("k" + i), b("v")));
      }
      assertThat(disk.writes()).as("nothing written yet").isZero();
      assertThat(store.size()).as("nothing applied yet").isZero();
      assertThat(writes).noneMatch(java.util.concurrent.CompletableFuture::isDone);
      writes.add(store.putAsync(b("last"), b("v")));
      assertThat(writes).allMatch(w -> w.isDone() && !w.isCompletedExceptionally());
      assertThat(store.size()).isEqualTo(Combiner.PENDING_LIMIT);
      assertThat(disk.writes()).as("one write call").isEqualTo(1);
    }
  }

  /** Threads writing the same keys at once: the live store must equal what a replay of the log gives. */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {1, 8})
  void underIntervalConcurrentWritersOfTheSameKeysLeaveTheStoreEqualToItsReplay(int group) throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    Map<ByteArrayWrapper, ByteArrayWrapper> live;
    // A slow apply (as a big map's resize is) widens any gap between a record's append and its apply.
    try (WalStore store = WalStore.open(new SlowApply(), opts(FsyncPolicy.INTERVAL), disk.mount())) {
      // all of them until one deadline, so that every key's last writes race each other too
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
      runWriters(store, 8, 0, 4, group, () -> System.nanoTime() < deadline);
      live = contents(store);
      assertThat(store.stats().recordsWritten()).isGreaterThan(100);
    }
    assertThat(live).isNotEmpty();
    try (WalStore store = open(disk, opts(FsyncPolicy.INTERVAL))) {
      assertThat(differences(live, contents(store))).as("live vs replayed").isEmpty();
    }
  }

  /** A map whose puts and deletes take a little while. */
  private static final class SlowApply extends dbf0.kv.storage.ForwardingStore {
    @Override
    public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
      java.util.concurrent.locks.LockSupport.parkNanos(20_000);
      map.put(key, value);
    }

    @Override
    public boolean delete(ByteArrayWrapper key) {
      java.util.concurrent.locks.LockSupport.parkNanos(20_000);
      return map.delete(key);
    }
  }

  /** The keys whose values differ between two maps, each as "key: a vs b" (a few, for the message). */
  private static List<String> differences(Map<ByteArrayWrapper, ByteArrayWrapper> a,
      Map<ByteArrayWrapper, ByteArrayWrapper> b) {
    java.util.Set<ByteArrayWrapper> keys = new java.util.HashSet<>(a.keySet());
    keys.addAll(b.keySet());
    List<String> found = new ArrayList<>();
    for (ByteArrayWrapper key : keys) {
      if (!java.util.Objects.equals(a.get(key), b.get(key))) {
        found.add(text(key) + ": " + text(a.get(key)) + " vs " + text(b.get(key)));
      }
    }
    return found.size() > 10 ? found.subList(0, 10) : found;
  }

  private static String text(ByteArrayWrapper bytes) {
    return bytes == null ? "absent" : new String(bytes.getArray(), StandardCharsets.UTF_8);
  }

  /**
   * {@code threads} threads each making {@code each} changes (mostly puts, some deletes) to
   * {@code keys} shared keys, and then more while {@code keepGoing} holds; returns when all are
   * done. With a {@code group} of 1 each change is a blocking put or delete (which flushes its
   * own write); with more, a thread submits that many, flushes once and then waits for them, as
   * a session does with a read's writes, so that one thread's flush writes others' records too.
   */
  private static void runWriters(WalStore store, int threads, int each, int keys, int group,
      java.util.function.BooleanSupplier keepGoing) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> writers = new ArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      writers.add(Thread.ofPlatform().start(() -> {
        try {
          start.await();
          List<java.util.concurrent.CompletableFuture<Boolean>> submitted = new ArrayList<>();
          for (int i = 0; i < each || keepGoing.getAsBoolean(); i++) {
            ByteArrayWrapper key = b("key" + (i * 7 + id) % keys);
            if (group == 1) {
              if (i % 10 == 9) {
                store.delete(key);
              } else {
                store.put(key, b(id + "-" + i));
              }
              continue;
            }
            submitted.add(i % 10 == 9 ? store.deleteAsync(key) : store.putAsync(key, b(id + "-" + i)));
            if (submitted.size() == group) {
              store.flush();
              for (var write : submitted) {
                write.get(10, TimeUnit.SECONDS);
              }
              submitted.clear();
            }
          }
          store.flush();
          for (var write : submitted) {
            write.get(10, TimeUnit.SECONDS);
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }));
    }
    start.countDown();
    for (Thread w : writers) {
      w.join();
    }
    assertThat(failure.get()).isNull();
  }

  @Test
  void underIntervalALoneWriteIsForcedWithoutAnyWriteAfterIt() throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    WalOptions options = opts(FsyncPolicy.INTERVAL).withFsyncInterval(Duration.ofMillis(50));
    try (WalStore store = open(disk, options)) {
      Thread.sleep(200); // idle for a few intervals first: the writer has nothing to wake up for
      long before = disk.forces();
      store.put(b("k"), b("v"));
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> disk.forces() > before);
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> store.stats().recordsForced() == 1);
      disk.powerCut(null); // keeps only what was forced
    }
    try (WalStore store = open(disk, options)) {
      assertThat(store.get(b("k"))).isEqualTo(b("v"));
    }
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {1, 8})
  void underIntervalARewriteDuringConcurrentWritesLosesNothing(int group) throws Exception {
    SimulatedDirectory disk = new SimulatedDirectory();
    Map<ByteArrayWrapper, ByteArrayWrapper> live;
    try (WalStore store = open(disk, opts(FsyncPolicy.INTERVAL))) {
      for (int i = 0; i < 20_000; i++) { // keys the snapshot takes a while over
        store.put(b("fill" + i), b("v"));
      }
      long before = store.stats().recordsWritten();
      java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
      var rewrite = new java.util.concurrent.CompletableFuture<Void>();
      Thread starter = Thread.ofPlatform().start(() -> {
        // start the rewrite once the writers are going, and stop them the moment it has switched
        // files: most keys' last writes then fall between the mark and the switch
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
            .until(() -> store.stats().recordsWritten() > before + 1_000);
        store.rewriteAsync().whenComplete((v, e) -> {
          writing.set(false);
          if (e != null) {
            rewrite.completeExceptionally(e);
          } else {
            rewrite.complete(null);
          }
        });
      });
      runWriters(store, 4, 0, 64, group, writing::get);
      starter.join();
      rewrite.get(20, TimeUnit.SECONDS);
      live = contents(store);
      WalStats stats = store.stats();
      assertThat(stats.rewrites()).isEqualTo(1);
      assertThat(stats.lastRewriteStatus()).isEqualTo("ok");
    }
    try (WalStore store = open(disk, opts(FsyncPolicy.INTERVAL))) {
      assertThat(differences(live, contents(store))).as("live vs replayed").isEmpty();
    }
  }

  @Test
  void anInterruptedCallerDoesNotCloseTheRealLogForEveryone(@TempDir Path dir) throws IOException {
    // A FileChannel closes itself when a thread with its interrupt flag set calls it; under never
    // the caller's own thread makes that call, so the store must set the flag aside around it.
    WalOptions options = WalOptions.defaults(dir).withFsync(FsyncPolicy.NEVER).withRewrite(0, 0);
    // no safety net: the interrupted caller's flush is the one that writes
    WalLimits limits = WalLimits.DEFAULTS.withLateFlush(Duration.ofMinutes(1));
    try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options,
        new FileChannelDirectory(dir), limits)) {
      Thread.currentThread().interrupt();
      try {
        var put = store.putAsync(b("a"), b("1"));
        store.flush();
        assertThat(put).isCompletedWithValue(true);
        assertThat(Thread.currentThread().isInterrupted()).as("the flag is given back").isTrue();
      } finally {
        Thread.interrupted();
      }
      store.put(b("b"), b("2"));
      assertThat(store.stats().failure()).isNull();
    }
    try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), options)) {
      assertThat(contents(store)).containsOnlyKeys(b("a"), b("b"));
    }
  }

  /** A directory whose log's force waits until the test lets it go: a stalled disk. */
  static final class StalledForce implements WalDirectory {
    final WalDirectory disk;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    StalledForce(WalDirectory disk) {
      this.disk = disk;
    }

    @Override
    public WalFile open(String name) throws IOException {
      WalFile file = disk.open(name);
      return new WalFile() {
        @Override
        public long size() throws IOException {
          return file.size();
        }

        @Override
        public int read(java.nio.ByteBuffer dst, long position) throws IOException {
          return file.read(dst, position);
        }

        @Override
        public void write(java.nio.ByteBuffer src, long position) throws IOException {
          file.write(src, position);
        }

        @Override
        public void force() throws IOException {
          entered.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            throw new java.io.InterruptedIOException("stalled force interrupted");
          }
          file.force();
        }

        @Override
        public void truncate(long size) throws IOException {
          file.truncate(size);
        }

        @Override
        public void close() throws IOException {
          file.close();
        }
      };
    }

    @Override
    public boolean exists(String name) throws IOException {
      return disk.exists(name);
    }

    @Override
    public void delete(String name) throws IOException {
      disk.delete(name);
    }

    @Override
    public void rename(String from, String to) throws IOException {
      disk.rename(from, to);
    }

    @Override
    public void sync() throws IOException {
      disk.sync();
    }

    @Override
    public String describe(String name) {
      return disk.describe(name);
    }

    @Override
    public void close() throws IOException {
      disk.close();
    }
  }

  @Test
  void aFullQueueBlocksTheSubmitterUntilTheWriterDrainsItAndLosesNothing() throws Exception {
    StalledForce stalled = new StalledForce(new SimulatedDirectory().mount());
    try (WalStore store = WalStore.open(new MapStore(new ConcurrentHashMap<>()), opts(FsyncPolicy.ALWAYS),
        stalled)) {
      // The writer takes the first write and stalls in its fsync, with an empty queue behind it.
      List<java.util.concurrent.CompletableFuture<Boolean>> writes = new ArrayList<>();
      writes.add(store.putAsync(b("first"), b("v")));
      assertThat(stalled.entered.await(10, TimeUnit.SECONDS)).isTrue();
      for (int i = 0; i < WalStore.QUEUE_CAPACITY; i++) {
        writes.add(store.putAsync(b("k" + i), b("v" + i))); // fills the queue: none of these blocks
      }
      java.util.concurrent.atomic.AtomicBoolean returned = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<Boolean>> last =
          new java.util.concurrent.atomic.AtomicReference<>();
      Thread submitter = Thread.ofPlatform().start(() -> {
        last.set(store.putAsync(b("one too many"), b("v")));
        returned.set(true);
      });
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> submitter.getState() == Thread.State.WAITING);
      assertThat(returned).as("the submitter past the bound waits for room").isFalse();
      assertThat(writes).noneMatch(java.util.concurrent.CompletableFuture::isDone);

      stalled.release.countDown();
      submitter.join(10_000);
      assertThat(returned).isTrue();
      assertThat(last.get().get(10, TimeUnit.SECONDS)).isTrue();
      for (var write : writes) {
        assertThat(write.get(10, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(store.size()).isEqualTo(WalStore.QUEUE_CAPACITY + 2);
      assertThat(store.stats().recordsWritten()).isEqualTo(WalStore.QUEUE_CAPACITY + 2L);
    }
  }
}
