package dbf0.kv.storage.wal;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.StorageFailureException;
import dbf0.kv.storage.Store;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Store} whose every change is appended to a write-ahead log before it is applied and
 * acknowledged, and which replays that log on start-up. It wraps any store (a map): reads go
 * straight to it, writes go through the log.
 *
 * <h2>Who appends: the writer thread under always, a flushing caller under interval and never</h2>
 * Under {@link FsyncPolicy#ALWAYS} every put, delete and clear becomes a task on a bounded queue
 * ({@value #QUEUE_CAPACITY} tasks; a full queue blocks the submitter, which is the back-pressure).
 * One thread, the log writer, takes everything queued at once, writes it with one write call and
 * forces it with one fsync; only then does it apply the batch to the wrapped store, in log order,
 * and complete each writer's future. That thread is what lets concurrent writers share one fsync
 * (group commit: the more of them, the more records per fsync,
 * {@link WalStats#recordsPerFsync}), and an fsync costs far more than the hand-off to the
 * thread and back.
 *
 * <p>Under {@code interval} and {@code never} there is no fsync on a write's path to share, and
 * the two hand-offs would be most of a write's cost (docs/storage.md measures them); but a write
 * call per record would be the rest, with a pipelining client's hundreds of writes per read. So
 * the caller's thread encodes the record and leaves it, under one lock, on a list of pending
 * records, and its future stays incomplete: nothing is written or applied yet. A caller about to
 * wait calls {@link #flush} (sessions do it once per read, before they wait; the blocking
 * {@link #put} does it too): holding the lock, it takes every pending record, anyone's, writes
 * them with one write call, applies them in order, and after letting go of the lock completes
 * their futures. Whoever flushes first writes for everybody (flat combining), with no thread
 * switch. The lock is what keeps the store equal to a replay of the log: appends and applies
 * happen in one order. As a safety net, the writer thread flushes records that have waited more
 * than 1 ms, so a caller that forgets to flush gets a slow write, not a hang. Pending records
 * are bounded: each session flushes before it waits and has at most 1,024 writes in flight
 * (PendingReplies), and any caller that finds {@value #PENDING_LIMIT} pending flushes them itself.
 *
 * <p>Either way a record is written before it is applied, so a reader never sees a write that a
 * crash of the process could still take back, and the log's file, its size and the rewrite's
 * marks change only under that lock. The writer thread stays, under every policy, for what is
 * not a write: the background force under {@code interval} (taken without the lock, so writes
 * go on during the fsync), rewrites, {@link #syncAsync} (which flushes, then forces) and close
 * (which writes what is pending before its last force).
 *
 * <h2>Policies</h2>
 * {@code always}: a future completes after the fsync covering its record. {@code interval}: after
 * the write call of the flush that took it; the writer wakes at least every {@code fsyncInterval}
 * and forces if records are unforced, so a power cut loses at most the writes of the last
 * interval (plus one fsync's time).
 * {@code never}: after the write call; only the kernel's write-back makes it durable. Under all
 * three a crash of the process alone (SIGKILL) loses no completed write: it is in the kernel.
 *
 * <h2>Failures</h2>
 * If a write or a force fails, the futures of the records of that write call (a batch under
 * always, a flush under the others) fail with {@link StorageFailureException} (nothing of it is
 * applied) and the log is cut back to its last good size, so the next append lands after good
 * records. If that repair fails too, or a background force under {@code interval} fails (acknowledged writes may then be lost: after a failed fsync Linux may
 * drop the dirty pages and report the next fsync clean), the store refuses every later write
 * until restart; reads go on.
 *
 * <h2>Rewrite (compaction)</h2>
 * The log only grows; a rewrite replaces it with one put per live key. A point between two
 * appends is marked (under the lock), from which every append's bytes are copied into a side
 * buffer as well as the log; a rewrite thread writes a snapshot of the store
 * ({@link Store#forEach}) to {@value #REWRITE_NAME}, then the side buffer, and the writer
 * thread, between two appends again (under the lock), appends
 * what the side buffer gained meanwhile, forces the new file, renames it over the log and forces
 * the directory. The snapshot may or may not see a change made after the mark (a concurrent
 * map's iterator is weakly consistent), but every such change is in the side buffer and is
 * replayed after it; puts, deletes and clears overwrite, so the result is the store's state. A
 * record still pending at the mark is written and applied after it, so it is in the side buffer
 * too; one pending at the switch is written to the new file.
 * Until the rename the old log is complete and is the truth, so a crash or a failure during a
 * rewrite loses nothing. The side buffer holds at most {@value #REWRITE_BUFFER_LIMIT} bytes: a
 * rewrite that falls further behind the writes is abandoned and reported.
 */
public final class WalStore implements Store, Closeable {

  public static final String LOG_NAME = "dbf0.wal";
  public static final String REWRITE_NAME = "dbf0.wal.rewrite";
  static final int QUEUE_CAPACITY = 16_384;
  static final long REWRITE_BUFFER_LIMIT = 256L << 20;
  /** Bytes the rewrite thread gathers before one write call. */
  private static final int REWRITE_CHUNK = 1 << 20;
  /**
   * Records waiting for a flush at most (interval and never): the submitter that reaches it
   * flushes them itself. Sessions flush long before (see {@link #flush}); this is the bound for a
   * caller that submits many writes before it waits, as the queue's capacity is under always.
   */
  static final int PENDING_LIMIT = QUEUE_CAPACITY;
  /** Bytes a flush gathers into one write call at most; a bigger record is written alone. */
  private static final int FLUSH_BYTES = 16 << 20;
  /**
   * The safety net: a record that has waited this long (1 ms) for a flush is written by the
   * writer thread. Every caller that waits flushes first, so this only turns a forgotten flush into a
   * millisecond of latency instead of a hang.
   */
  static final long LATE_FLUSH_NANOS = 1_000_000;
  /**
   * How often (10 ms) the writer looks for late records while none were waiting when it last
   * looked: a forgotten flush costs at most about 11 ms, and an idle store wakes 100 times a second.
   */
  static final long IDLE_LOOK_NANOS = 10_000_000;

  private static final Logger LOG = LoggerFactory.getLogger(WalStore.class);

  private final Store inner;
  private final WalOptions options;
  private final WalDirectory dir;
  private final Recovery recovery;
  private final BlockingQueue<Task> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
  /** Submitters hold it shared, close holds it alone: no task is queued after the writer's last. */
  private final ReentrantReadWriteLock closing = new ReentrantReadWriteLock();
  /**
   * Held for every append and the apply that follows it, and for everything else that touches
   * the log's file, size or rewrite: log order is apply order. Not held for a background force.
   */
  private final ReentrantLock appendLock = new ReentrantLock();
  private final Thread writer;
  /** Set holding both {@link #closing} and {@link #appendLock}; read holding either. */
  private boolean closed;
  /** {@link #REWRITE_BUFFER_LIMIT}; smaller in tests. */
  private volatile long rewriteBufferLimit = REWRITE_BUFFER_LIMIT;
  /** {@link #LATE_FLUSH_NANOS}; longer in tests that look at records before their flush. */
  private volatile long lateFlushNanos = LATE_FLUSH_NANOS;

  // Guarded by appendLock (the writer thread alone changes log, and reads it without the lock).
  private WalFile log;
  private long logSize;
  private long baseSize;
  private long unforcedRecords;
  private RewriteJob rewrite;
  /** Accepted under interval or never, not yet written, in the order they were accepted. */
  private List<Pending> pending = new ArrayList<>();
  /** When the oldest of {@link #pending} was accepted. */
  private long pendingSinceNanos;
  /** Batches under always and flushes under interval and never are gathered here, for one write call. */
  private ByteBuffer batchBuffer = ByteBuffer.allocate(64 * 1024);
  /**
   * {@code pending.size()}, written under appendLock, read without it by {@link #flush}: a
   * caller's own accepted records show here until a flush (its own or another's) has taken them.
   */
  private volatile int pendingCount;

  // The writer thread's own state.
  private long lastForceNanos = System.nanoTime();

  // Figures for other threads (INFO), written under appendLock.
  private volatile long statLogBytes;
  private volatile long statBaseBytes;
  private volatile long recordsWritten;
  private volatile long fsyncs;
  private volatile long recordsForced;
  private volatile long lastFsyncMillis;
  private volatile long rewrites;
  private volatile boolean rewriting;
  private volatile long lastRewriteMillis;
  private volatile String lastRewriteStatus = "none";
  private volatile StorageFailureException broken;

  /**
   * What start-up found in the log.
   *
   * @param records records replayed
   * @param keys keys in the store afterwards
   * @param bytes the log's good bytes, which appends go on after
   * @param droppedBytes bytes cut off after the last good record (a torn tail, or with
   *     {@code recoverTruncate} everything after a corrupt record)
   * @param problem what was wrong with the first dropped byte, or null
   * @param staleRewrite whether an unfinished rewrite's file was found and deleted
   * @param seconds time spent replaying
   */
  public record Recovery(long records, int keys, long bytes, long droppedBytes, String problem, boolean staleRewrite,
      double seconds) {

    /** The start-up line. */
    public String summary() {
      StringBuilder line = new StringBuilder(String.format(
          "log replayed: %,d records, %,d keys, %,d bytes in %.3f s (%,.0f records/s)", records, keys, bytes, seconds,
          seconds > 0 ? records / seconds : 0.0));
      if (droppedBytes > 0) {
        line.append(String.format("; cut %,d bytes after the last good record (%s)", droppedBytes, problem));
      }
      if (staleRewrite) {
        line.append("; deleted an unfinished rewrite");
      }
      return line.toString();
    }
  }

  private WalStore(Store inner, WalOptions options, WalDirectory dir, WalFile log, Recovery recovery) {
    this.inner = inner;
    this.options = options;
    this.dir = dir;
    this.log = log;
    this.recovery = recovery;
    this.logSize = recovery.bytes();
    this.baseSize = recovery.bytes();
    this.statLogBytes = logSize;
    this.statBaseBytes = baseSize;
    this.writer = new Thread(this::runWriter, "wal-writer");
    writer.setDaemon(true);
    writer.start();
  }

  /** Opens (or creates) the log in {@code options.dataDir()}, replays it into {@code inner}, and starts logging. */
  public static WalStore open(Store inner, WalOptions options) throws IOException {
    FileChannelDirectory directory = new FileChannelDirectory(options.dataDir());
    try {
      return open(inner, options, directory);
    } catch (IOException | RuntimeException e) {
      directory.close();
      throw e;
    }
  }

  /**
   * Replays the log in {@code dir} into {@code inner} (which should be empty) and starts logging.
   * The store owns {@code dir} from here on and closes it.
   *
   * @throws CorruptWalException when a bad record has good ones after it and
   *     {@link WalOptions#recoverTruncate()} is off
   */
  public static WalStore open(Store inner, WalOptions options, WalDirectory dir) throws IOException {
    Objects.requireNonNull(inner, "inner");
    boolean stale = dir.exists(REWRITE_NAME);
    if (stale) {
      dir.delete(REWRITE_NAME); // a rewrite that never reached its rename: the log is whole without it
    }
    boolean existed = dir.exists(LOG_NAME);
    WalFile log = dir.open(LOG_NAME);
    try {
      if (!existed || stale) {
        dir.sync(); // a new log's name must survive a power cut before anything in it is acknowledged
      }
      long start = System.nanoTime();
      WalReader.Outcome outcome = WalReader.read(log, record -> apply(inner, record));
      if (outcome.corruptAt() >= 0 && !options.recoverTruncate()) {
        throw new CorruptWalException(String.format(
            "%s: corrupt record at byte offset %d (%s), with good records after it; this is damage, not a crash. "
                + "Keep a copy of the file, then start with --recover-truncate to keep the %d records before it "
                + "and drop the %d bytes from it on", dir.describe(LOG_NAME), outcome.corruptAt(), outcome.problem(),
            outcome.records(), outcome.droppedBytes()), outcome.corruptAt());
      }
      if (outcome.droppedBytes() > 0) {
        log.truncate(outcome.goodBytes());
        log.force();
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      Recovery recovery = new Recovery(outcome.records(), inner.size(), outcome.goodBytes(), outcome.droppedBytes(),
          outcome.problem(), stale, seconds);
      return new WalStore(inner, options, dir, log, recovery);
    } catch (IOException | RuntimeException e) {
      log.close();
      throw e;
    }
  }

  /** For tests: a smaller side-buffer limit, to see a rewrite abandoned at it. */
  void rewriteBufferLimit(long bytes) {
    rewriteBufferLimit = bytes;
  }

  /**
   * For tests: how long a record may wait before the writer's safety net flushes it, so that a
   * test can look at records before their flush, or find a caller that forgets to flush.
   */
  void lateFlushAfter(java.time.Duration wait) {
    lateFlushNanos = wait.toNanos();
  }

  /** For tests: records accepted and not yet taken by a flush. */
  int pendingRecords() {
    return pendingCount;
  }

  /** What start-up found. */
  public Recovery recovery() {
    return recovery;
  }

  public WalOptions options() {
    return options;
  }

  private static boolean apply(Store store, WalRecord record) {
    return switch (record) {
      case WalRecord.Put p -> {
        store.put(p.key(), p.value());
        yield true;
      }
      case WalRecord.Delete d -> store.delete(d.key());
      case WalRecord.Clear c -> {
        store.clear();
        yield true;
      }
    };
  }

  // ---------------------------------------------------------------- the Store API

  @Override
  public ByteArrayWrapper get(ByteArrayWrapper key) {
    return inner.get(key);
  }

  @Override
  public boolean contains(ByteArrayWrapper key) {
    return inner.contains(key);
  }

  @Override
  public int size() {
    return inner.size();
  }

  /** The inner store's bound: a logged write reaches the data only through the inner store's put. */
  @Override
  public long largestValueBytes() {
    return inner.largestValueBytes();
  }

  @Override
  public void forEach(BiConsumer<ByteArrayWrapper, ByteArrayWrapper> action) {
    inner.forEach(action);
  }

  /** Blocks until the put is durable as the policy promises. @throws StorageFailureException if it cannot be */
  @Override
  public void put(ByteArrayWrapper key, ByteArrayWrapper value) {
    CompletableFuture<Boolean> done = putAsync(key, value);
    flush();
    await(done);
  }

  /** Blocks like {@link #put}; true if the key was there. */
  @Override
  public boolean delete(ByteArrayWrapper key) {
    CompletableFuture<Boolean> done = deleteAsync(key);
    flush();
    return await(done);
  }

  @Override
  public void clear() {
    CompletableFuture<Boolean> done = clearAsync();
    flush();
    await(done);
  }

  /**
   * Completes (true) once the put is applied and as durable as the policy promises, or fails with
   * {@link StorageFailureException}. Under interval and never it is written at the next
   * {@link #flush}: call that before waiting.
   */
  @Override
  public CompletableFuture<Boolean> putAsync(ByteArrayWrapper key, ByteArrayWrapper value) {
    return submit(new WalRecord.Put(key, value));
  }

  /** Completes with whether the key was there, like {@link #putAsync}. */
  @Override
  public CompletableFuture<Boolean> deleteAsync(ByteArrayWrapper key) {
    return submit(new WalRecord.Delete(key));
  }

  @Override
  public CompletableFuture<Boolean> clearAsync() {
    return submit(new WalRecord.Clear());
  }

  /**
   * Starts a rewrite unless one runs; completes when the rewrite (the new one or the running one)
   * has switched files, or fails with why it did not.
   */
  public CompletableFuture<Void> rewriteAsync() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    enqueue(new StartRewrite(done), done);
    return done;
  }

  /** Forces the log now, whatever the policy; for tests and for a clean shutdown. */
  public CompletableFuture<Void> syncAsync() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    enqueue(new Sync(done), done);
    return done;
  }

  public WalStats stats() {
    StorageFailureException failure = broken;
    return new WalStats(options.fsync(), statLogBytes, statBaseBytes, recordsWritten, fsyncs, recordsForced,
        lastFsyncMillis, rewrites, rewriting, lastRewriteMillis, lastRewriteStatus,
        failure == null ? null : failure.getMessage());
  }

  private CompletableFuture<Boolean> submit(WalRecord record) {
    if (WalRecord.bodySize(record) > WalRecord.MAX_BODY_BYTES) {
      return CompletableFuture.failedFuture(new StorageFailureException(
          "a record of " + WalRecord.bodySize(record) + " bytes is over the log's " + WalRecord.MAX_BODY_BYTES));
    }
    StorageFailureException failure = broken;
    if (failure != null) {
      return CompletableFuture.failedFuture(failure);
    }
    if (options.fsync() != FsyncPolicy.ALWAYS) {
      return accept(record);
    }
    CompletableFuture<Boolean> done = new CompletableFuture<>();
    enqueue(new Write(record, done), done);
    return done;
  }

  /** A record accepted under interval or never, and what its flush found. */
  private static final class Pending {
    final WalRecord record;
    final byte[] bytes;
    final CompletableFuture<Boolean> done;
    // Set by the flush under appendLock, read by the same thread after it lets go of the lock.
    boolean result;
    boolean applied;
    StorageFailureException failure;

    Pending(WalRecord record, byte[] bytes, CompletableFuture<Boolean> done) {
      this.record = record;
      this.bytes = bytes;
      this.done = done;
    }
  }

  /**
   * Under {@code interval} and {@code never}: encodes the record and leaves it for the next
   * {@link #flush}. Nothing is written or applied yet, so no reader can see it.
   */
  private CompletableFuture<Boolean> accept(WalRecord record) {
    byte[] bytes = WalRecord.encode(record); // outside the lock: the checksum holds up no one
    CompletableFuture<Boolean> done = new CompletableFuture<>();
    boolean atLimit;
    appendLock.lock();
    try {
      if (closed) {
        return CompletableFuture.failedFuture(new StorageFailureException("the store is closed"));
      }
      StorageFailureException failure = broken;
      if (failure != null) {
        return CompletableFuture.failedFuture(failure);
      }
      if (pending.isEmpty()) {
        pendingSinceNanos = System.nanoTime();
      }
      pending.add(new Pending(record, bytes, done));
      pendingCount = pending.size();
      atLimit = pending.size() >= PENDING_LIMIT;
    } finally {
      appendLock.unlock();
    }
    if (atLimit) {
      flush();
    }
    return done;
  }

  /**
   * Under {@code interval} and {@code never}, writes every accepted record not yet written (any
   * caller's) with one write call, applies them in order and then completes their futures;
   * under {@code always} the writer thread does all that and this does nothing. Whoever flushes
   * first writes everybody's records: the writes of many sessions cost one system call.
   */
  @Override
  public void flush() {
    if (pendingCount == 0) {
      return; // none of this caller's records wait: a flush that took them completes them
    }
    // A FileChannel call by a thread whose interrupt flag is set closes the channel for every
    // thread: the caller is a session's thread, so set its flag aside until the write is done.
    // (An interrupt during the call still closes it; FileChannelDirectory then opens it again.)
    boolean interrupted = Thread.interrupted();
    try {
      List<Pending> written;
      appendLock.lock();
      try {
        written = writePending();
      } finally {
        appendLock.unlock();
      }
      complete(written); // not under the lock: a completion runs callbacks (an event loop's wake-up)
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Takes every pending record and writes, applies and judges it (under {@link #appendLock});
   * returns them for {@link #complete} once the lock is let go.
   */
  private List<Pending> writePending() {
    if (pending.isEmpty()) {
      return List.of();
    }
    List<Pending> taken = pending;
    pending = new ArrayList<>();
    pendingCount = 0;
    try {
      for (int from = 0; from < taken.size(); ) {
        long bytes = taken.get(from).bytes.length;
        int to = from + 1;
        while (to < taken.size() && bytes + taken.get(to).bytes.length <= FLUSH_BYTES) {
          bytes += taken.get(to).bytes.length;
          to++;
        }
        writeGroup(taken.subList(from, to), (int) bytes);
        from = to;
      }
      maybeRewrite();
    } catch (RuntimeException | Error e) {
      // A bug (or no memory), not a disk: refuse writes from now on, and fail what is left
      // rather than leave its waiters hanging.
      LOG.error("a flush of the log failed; writes are refused from now on", e);
      broken = new StorageFailureException("a flush of the log failed (" + e
          + "); the writes it had not applied may or may not be kept", e);
      for (Pending p : taken) {
        if (!p.applied && p.failure == null) {
          p.failure = broken;
        }
      }
    }
    return taken;
  }

  /** One write call for {@code group} ({@code size} bytes), then its applies; under {@link #appendLock}. */
  private void writeGroup(List<Pending> group, int size) {
    if (broken != null) {
      for (Pending p : group) {
        p.failure = broken;
      }
      return;
    }
    ByteBuffer bytes;
    if (group.size() == 1) {
      bytes = ByteBuffer.wrap(group.get(0).bytes);
    } else {
      if (batchBuffer.capacity() < size) {
        batchBuffer = ByteBuffer.allocate(Math.max(size, Math.min(batchBuffer.capacity() * 2, FLUSH_BYTES)));
      }
      batchBuffer.clear();
      for (Pending p : group) {
        batchBuffer.put(p.bytes);
      }
      bytes = batchBuffer.flip();
    }
    try {
      log.write(bytes.duplicate(), logSize);
    } catch (IOException e) {
      StorageFailureException failure = failed("write", e);
      for (Pending p : group) {
        p.failure = failure;
      }
      repair(e);
      return;
    }
    // In the kernel now, so a crash of the process cannot take it back: safe to apply and acknowledge.
    logSize += size;
    statLogBytes = logSize;
    recordsWritten += group.size();
    unforcedRecords += group.size();
    if (rewrite != null) {
      if (group.size() == 1) {
        rewrite.buffer(group.get(0).bytes); // the record's own array, never written to again
      } else {
        rewrite.buffer(bytes); // copied: the buffer is reused
      }
    }
    for (Pending p : group) {
      p.result = apply(inner, p.record);
      p.applied = true;
    }
  }

  /** Completes the futures of a flush's records, in the order they were accepted. */
  private static void complete(List<Pending> written) {
    for (Pending p : written) {
      if (p.failure != null) {
        p.done.completeExceptionally(p.failure);
      } else {
        p.done.complete(p.result);
      }
    }
  }

  /** The writer's safety net: flushes the pending records if the oldest has waited {@link #LATE_FLUSH_NANOS}. */
  private void flushLate() {
    List<Pending> written;
    appendLock.lock();
    try {
      if (pending.isEmpty() || System.nanoTime() - pendingSinceNanos < lateFlushNanos) {
        return;
      }
      written = writePending();
    } finally {
      appendLock.unlock();
    }
    complete(written);
  }

  private void enqueue(Task task, CompletableFuture<?> done) {
    closing.readLock().lock();
    try {
      if (closed) {
        done.completeExceptionally(new StorageFailureException("the store is closed"));
        return;
      }
      queue.put(task);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      done.completeExceptionally(new StorageFailureException("interrupted before the write was queued", e));
    } finally {
      closing.readLock().unlock();
    }
  }

  private static boolean await(CompletableFuture<Boolean> done) {
    try {
      return done.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      // A new exception, so that the stack shows the waiting caller as well as the writer's cause.
      throw new StorageFailureException(cause.getMessage(), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageFailureException("interrupted while waiting for the log; the write may or may not be kept", e);
    }
  }

  /** Stops taking writes, finishes the queued ones, forces the log and closes the files. */
  @Override
  public void close() {
    closing.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      appendLock.lock();
      try {
        closed = true; // nothing accepted after this, so nothing pending after the writer's last flush
      } finally {
        appendLock.unlock();
      }
      queue.add(new Stop()); // cannot fail for space: nothing more is queued, and the writer drains
    } catch (IllegalStateException full) {
      // The queue is full: the writer is alive and draining, so wait for room.
      try {
        queue.put(new Stop());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } finally {
      closing.writeLock().unlock();
    }
    try {
      writer.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (writer.isAlive()) {
      Exception where = new Exception("the log writer is here");
      where.setStackTrace(writer.getStackTrace());
      LOG.error("the log writer did not stop within 30 s of close", where);
    }
  }

  // ---------------------------------------------------------------- the writer thread

  private sealed interface Task permits Write, StartRewrite, FinishRewrite, Sync, Stop {}

  private record Write(WalRecord record, CompletableFuture<Boolean> done) implements Task {}

  private record StartRewrite(CompletableFuture<Void> done) implements Task {}

  private record FinishRewrite(RewriteJob job) implements Task {}

  private record Sync(CompletableFuture<Void> done) implements Task {}

  private record Stop() implements Task {}

  private void runWriter() {
    List<Task> batch = new ArrayList<>();
    List<Write> writes = new ArrayList<>();
    boolean stop = false;
    try {
      while (!stop) {
        // Under interval and never the writes do not come through the queue, so the writer wakes
        // on a timer as well: for the safety net's late flush, and under interval for the force.
        Task first = options.fsync() == FsyncPolicy.ALWAYS
            ? queue.take() : queue.poll(untilNextLook(), TimeUnit.NANOSECONDS);
        if (first != null) {
          batch.add(first);
          queue.drainTo(batch);
          gather(batch);
          for (Task task : batch) {
            if (task instanceof Write w) {
              writes.add(w);
              continue;
            }
            commitLocked(writes); // control tasks run between batches: everything before them is applied
            writes.clear();
            stop |= control(task); // a FinishRewrite may follow the Stop in one batch
          }
          commitLocked(writes);
          writes.clear();
          batch.clear();
        }
        if (options.fsync() != FsyncPolicy.ALWAYS) {
          flushLate();
        }
        if (options.fsync() == FsyncPolicy.INTERVAL) {
          intervalForce();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      // A bug, not a disk: fail loudly, and fail every waiter rather than leave it hanging.
      LOG.error("the log writer died; writes are refused from now on", e);
      appendLock.lock();
      try {
        broken = new StorageFailureException("the log writer died: " + e, e);
      } finally {
        appendLock.unlock();
      }
      for (Task task : batch) {
        failTask(task, broken);
      }
    } finally {
      shutDown();
    }
  }

  /** Writes in the last batch committed under always: how many writers are likely about to come back. */
  private int lastCommitWrites;

  /**
   * Group commit, gathered. Under {@code always} the writers of the last fsync got their replies
   * together and send their next writes together, but not at the same instant: the first few
   * arrive while the rest are still on their way, and forcing at once would split one crowd over
   * two or three fsyncs. So, when the batch is smaller than the last commit's, wait up to
   * {@link WalOptions#commitWaitMicros} for the others (PostgreSQL's {@code commit_delay} is the
   * same idea). A lone writer (a last commit of one write) never waits, and neither does a batch
   * that is already as big as the last; the wait is bounded, so a crowd that shrank costs at most
   * one wait before the target follows it down.
   */
  private void gather(List<Task> batch) throws InterruptedException {
    if (options.fsync() != FsyncPolicy.ALWAYS || options.commitWaitMicros() == 0 || batch.size() >= lastCommitWrites) {
      return;
    }
    long deadline = System.nanoTime() + options.commitWaitMicros() * 1_000L;
    while (batch.size() < lastCommitWrites) {
      long left = deadline - System.nanoTime();
      Task next = left <= 0 ? null : queue.poll(left, TimeUnit.NANOSECONDS);
      if (next == null) {
        return;
      }
      batch.add(next);
      queue.drainTo(batch);
    }
  }

  /**
   * Under interval and never, nanoseconds until the writer should look again: when the oldest
   * pending record is late ({@link #LATE_FLUSH_NANOS}), or after {@link #IDLE_LOOK_NANOS} when
   * none is pending; under interval no later than the next force is due.
   */
  private long untilNextLook() {
    appendLock.lock();
    try {
      long now = System.nanoTime();
      long wait = pending.isEmpty() ? IDLE_LOOK_NANOS : pendingSinceNanos + lateFlushNanos - now;
      if (options.fsync() == FsyncPolicy.INTERVAL && unforcedRecords > 0 && broken == null) {
        wait = Math.min(wait, options.fsyncInterval().toNanos() - (now - lastForceNanos));
      }
      // with nothing unforced, a write from now on is looked at (and forced if an interval has
      // passed since the last force) within one idle look
      return Math.max(0, wait);
    } finally {
      appendLock.unlock();
    }
  }

  /** Runs a control task; true for {@link Stop}. */
  private boolean control(Task task) {
    switch (task) {
      case StartRewrite start -> {
        appendLock.lock();
        try {
          startRewrite(start.done());
        } finally {
          appendLock.unlock();
        }
      }
      case FinishRewrite finish -> {
        appendLock.lock();
        try {
          finishRewrite(finish.job());
        } finally {
          appendLock.unlock();
        }
      }
      case Sync sync -> {
        try {
          flush(); // what was accepted before the sync is written, so the force covers it
          force();
          sync.done().complete(null);
        } catch (IOException e) {
          sync.done().completeExceptionally(failed("force", e));
        }
      }
      case Stop stop -> {
        return true;
      }
      case Write w -> throw new IllegalStateException("writes are batched, not run as control tasks");
    }
    return false;
  }

  private void commitLocked(List<Write> writes) {
    if (writes.isEmpty()) {
      return;
    }
    appendLock.lock();
    try {
      commit(writes);
    } finally {
      appendLock.unlock();
    }
  }

  /**
   * Under always (the only policy whose writes are queued): appends one batch of writes, forces
   * it, applies it and acknowledges it; under {@link #appendLock}.
   */
  private void commit(List<Write> writes) {
    if (writes.isEmpty()) {
      return;
    }
    if (broken != null) {
      for (Write w : writes) {
        w.done().completeExceptionally(broken);
      }
      return;
    }
    ByteBuffer bytes = encode(writes);
    try {
      log.write(bytes.duplicate(), logSize);
      log.force();
      lastCommitWrites = writes.size();
      fsyncs++;
      recordsForced += writes.size();
      lastFsyncMillis = System.currentTimeMillis();
    } catch (IOException e) {
      StorageFailureException failure = failed("write or force", e);
      for (Write w : writes) {
        w.done().completeExceptionally(failure);
      }
      repair(e);
      return;
    }
    logSize += bytes.remaining();
    statLogBytes = logSize;
    recordsWritten += writes.size();
    if (rewrite != null) {
      rewrite.buffer(bytes);
    }
    boolean[] results = new boolean[writes.size()];
    for (int i = 0; i < results.length; i++) {
      results[i] = apply(inner, writes.get(i).record());
    }
    for (int i = 0; i < results.length; i++) {
      writes.get(i).done().complete(results[i]);
    }
    maybeRewrite();
  }

  private ByteBuffer encode(List<Write> writes) {
    long size = 0;
    for (Write w : writes) {
      size += WalRecord.encodedSize(w.record());
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("a batch of " + size + " bytes"); // cannot happen: records and queue are bounded
    }
    if (batchBuffer.capacity() < size) {
      batchBuffer = ByteBuffer.allocate((int) Math.max(size, batchBuffer.capacity() * 2L));
    }
    batchBuffer.clear();
    for (Write w : writes) {
      WalRecord.encode(w.record(), batchBuffer);
    }
    batchBuffer.flip();
    if (batchBuffer.capacity() > (16 << 20)) {
      // one huge batch should not pin its buffer for good
      ByteBuffer copy = ByteBuffer.allocate(batchBuffer.remaining()).put(batchBuffer).flip();
      batchBuffer = ByteBuffer.allocate(64 * 1024);
      return copy;
    }
    return batchBuffer;
  }

  private StorageFailureException failed(String what, IOException e) {
    return new StorageFailureException("the log's " + what + " failed (" + e.getMessage()
        + "); not acknowledged, and not applied", e);
  }

  /**
   * After a failed append, cuts the log back to its last good size and forces that, so the next
   * batch does not land after half a record; if even that fails, refuses writes from now on.
   */
  private void repair(IOException cause) {
    try {
      log.truncate(logSize);
      log.force();
      LOG.warn("a log append failed ({}); cut back to {} bytes and going on", cause.toString(), logSize);
    } catch (IOException e) {
      breakStore("the log could not be cut back after a failed append (" + e + ")", e);
    }
  }

  private void breakStore(String why, IOException e) {
    broken = new StorageFailureException(why + "; writes are refused until restart, reads go on", e);
    LOG.error("{}: {}", dir.describe(LOG_NAME), broken.getMessage());
  }

  /**
   * The writer thread's force, without {@link #appendLock} held across the fsync, so that writers
   * go on appending meanwhile: it counts the records written before it as forced, and those
   * appended during it as still unforced (they may or may not be on disk).
   */
  private void force() throws IOException {
    long covered;
    appendLock.lock();
    try {
      covered = unforcedRecords;
    } finally {
      appendLock.unlock();
    }
    log.force(); // only this thread ever switches log, so reading it here is safe
    appendLock.lock();
    try {
      fsyncs++;
      recordsForced += covered;
      unforcedRecords -= covered;
      lastForceNanos = System.nanoTime();
      lastFsyncMillis = System.currentTimeMillis();
    } finally {
      appendLock.unlock();
    }
  }

  /** Forces under {@code interval} if records are unforced and an interval has passed since the last force. */
  private void intervalForce() {
    appendLock.lock();
    try {
      if (broken != null || unforcedRecords == 0
          || System.nanoTime() - lastForceNanos < options.fsyncInterval().toNanos()) {
        return;
      }
    } finally {
      appendLock.unlock();
    }
    try {
      force();
    } catch (IOException e) {
      // Acknowledged writes may be lost now: stop acknowledging more.
      appendLock.lock();
      try {
        breakStore("the background force failed (" + e + "); the last interval's writes may be lost", e);
      } finally {
        appendLock.unlock();
      }
    }
  }

  private void failTask(Task task, StorageFailureException failure) {
    switch (task) {
      case Write w -> w.done().completeExceptionally(failure);
      case StartRewrite s -> s.done().completeExceptionally(failure);
      case Sync s -> s.done().completeExceptionally(failure);
      case FinishRewrite f -> f.job().cancelled = true;
      case Stop s -> {
      }
    }
  }

  private void shutDown() {
    List<Pending> written;
    appendLock.lock();
    try {
      // Accepted before close (nothing is after it): written, so that the final force covers them.
      written = writePending();
      shutDownLocked();
    } finally {
      appendLock.unlock();
    }
    complete(written);
  }

  private void shutDownLocked() {
    // Nothing can be queued any more once closed; fail what a dead writer left behind.
    StorageFailureException gone = broken != null ? broken : new StorageFailureException("the store is closed");
    List<Task> left = new ArrayList<>();
    queue.drainTo(left);
    for (Task task : left) {
      failTask(task, gone);
    }
    if (rewrite != null) {
      rewrite.cancelled = true;
      rewrite.done.completeExceptionally(new StorageFailureException("the store closed during the rewrite"));
    }
    try {
      if (broken == null && options.fsync() != FsyncPolicy.ALWAYS) {
        force();
      }
    } catch (IOException e) {
      LOG.error("the final force of {} failed: {}", dir.describe(LOG_NAME), e.toString());
    }
    try {
      log.close();
    } catch (IOException e) {
      LOG.warn("closing the log: {}", e.toString());
    }
    try {
      dir.close();
    } catch (IOException e) {
      LOG.warn("closing the data directory: {}", e.toString());
    }
  }

  // ---------------------------------------------------------------- rewrite

  private void maybeRewrite() {
    if (rewrite != null || options.rewriteGrowth() == 0 || logSize < options.rewriteMinBytes()
        || logSize < options.rewriteGrowth() * baseSize) {
      return;
    }
    // baseSize is 0 until the first rewrite (an empty log), so name the minimum, not a ratio.
    LOG.info("the log grew to {} bytes (past the {}-byte minimum and {}x the {} bytes after the last rewrite): rewriting",
        logSize, options.rewriteMinBytes(), options.rewriteGrowth(), baseSize);
    CompletableFuture<Void> done = new CompletableFuture<>();
    startRewrite(done);
  }

  /** One rewrite: the side buffer, the new file, and who waits for it. */
  private final class RewriteJob {
    final CompletableFuture<Void> done;
    private final List<byte[]> pending = new ArrayList<>();
    private long pendingBytes;
    volatile boolean cancelled;
    volatile Throwable failure;
    WalFile file;
    long fileSize;

    RewriteJob(CompletableFuture<Void> done) {
      this.done = done;
    }

    /** The writer's copy of a batch; drops the rewrite when the copies pass the buffer limit. */
    void buffer(ByteBuffer bytes) {
      byte[] copy = new byte[bytes.remaining()];
      bytes.duplicate().get(copy);
      buffer(copy);
    }

    /** Keeps {@code bytes} (not copied: the caller gives them up); drops the rewrite past the limit. */
    synchronized void buffer(byte[] bytes) {
      if (cancelled) {
        return;
      }
      if (pendingBytes + bytes.length > rewriteBufferLimit) {
        cancelled = true;
        failure = new IOException("writes during the rewrite passed its " + rewriteBufferLimit
            + "-byte side buffer; abandoned (the log is unchanged)");
        pending.clear();
        return;
      }
      pending.add(bytes);
      pendingBytes += bytes.length;
    }

    synchronized List<byte[]> take() {
      List<byte[]> taken = new ArrayList<>(pending);
      pending.clear();
      pendingBytes = 0;
      return taken;
    }
  }

  private void startRewrite(CompletableFuture<Void> done) {
    if (rewrite != null) {
      rewrite.done.whenComplete((v, e) -> {
        if (e != null) {
          done.completeExceptionally(e);
        } else {
          done.complete(null);
        }
      });
      return;
    }
    if (broken != null) {
      done.completeExceptionally(broken);
      return;
    }
    RewriteJob job = new RewriteJob(done);
    rewrite = job;
    rewriting = true;
    Thread thread = new Thread(() -> snapshot(job), "wal-rewrite");
    thread.setDaemon(true);
    thread.start();
  }

  /** The rewrite thread: the snapshot and what the side buffer holds so far, into the new file. */
  private void snapshot(RewriteJob job) {
    try {
      dir.delete(REWRITE_NAME);
      job.file = dir.open(REWRITE_NAME);
      ByteBuffer chunk = ByteBuffer.allocate(REWRITE_CHUNK);
      inner.forEach((key, value) -> {
        if (job.cancelled) {
          throw new StopSnapshot();
        }
        WalRecord.Put put = new WalRecord.Put(key, value);
        int size = (int) WalRecord.encodedSize(put);
        try {
          if (chunk.remaining() < size) {
            writeChunk(job, chunk);
          }
          if (size > chunk.capacity()) {
            appendToRewrite(job, ByteBuffer.wrap(WalRecord.encode(put)));
          } else {
            WalRecord.encode(put, chunk);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      writeChunk(job, chunk);
      // Catch up on the side buffer a few times, so that the writer's own share at the switch is small.
      for (int round = 0; round < 4 && !job.cancelled; round++) {
        long taken = 0;
        for (byte[] part : job.take()) {
          appendToRewrite(job, ByteBuffer.wrap(part));
          taken += part.length;
        }
        if (taken < REWRITE_CHUNK) {
          break;
        }
      }
      job.file.force();
    } catch (StopSnapshot e) {
      job.failure = job.failure != null ? job.failure : new IOException("cancelled");
    } catch (UncheckedIOException e) {
      job.failure = e.getCause();
    } catch (IOException | RuntimeException e) {
      job.failure = e;
    }
    // offer, not put: after close nobody drains the queue, and the next start deletes the file
    if (!queue.offer(new FinishRewrite(job))) {
      try {
        queue.put(new FinishRewrite(job));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A stop signal out of {@link Store#forEach}. */
  private static final class StopSnapshot extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StopSnapshot() {
      super(null, null, false, false);
    }
  }

  private void writeChunk(RewriteJob job, ByteBuffer chunk) throws IOException {
    chunk.flip();
    appendToRewrite(job, chunk);
    chunk.clear();
  }

  private void appendToRewrite(RewriteJob job, ByteBuffer bytes) throws IOException {
    int n = bytes.remaining();
    job.file.write(bytes, job.fileSize);
    job.fileSize += n;
  }

  /** The writer, between batches: the last of the side buffer, force, rename, directory force, switch. */
  private void finishRewrite(RewriteJob job) {
    if (job != rewrite) {
      return; // a job the store already gave up (closing)
    }
    Throwable failure = job.cancelled && job.failure == null ? new IOException("cancelled") : job.failure;
    if (failure == null) {
      try {
        for (byte[] part : job.take()) {
          appendToRewrite(job, ByteBuffer.wrap(part));
        }
        job.file.force();
        dir.rename(REWRITE_NAME, LOG_NAME);
      } catch (IOException e) {
        failure = e;
      }
    }
    if (failure != null) {
      abandonRewrite(job, failure);
      return;
    }
    // From here the new file holds the log's name. Its records are durable, but the name is not
    // until the directory is forced: nothing may be acknowledged from the new file before that.
    WalFile old = log;
    log = job.file;
    logSize = job.fileSize;
    baseSize = logSize;
    rewrite = null;
    rewriting = false;
    try {
      dir.sync();
    } catch (IOException e) {
      breakStore("the directory force after a rewrite failed (" + e + ")", e);
    }
    try {
      old.close();
    } catch (IOException e) {
      LOG.warn("closing the old log: {}", e.toString());
    }
    statLogBytes = logSize;
    statBaseBytes = baseSize;
    rewrites++;
    lastRewriteMillis = System.currentTimeMillis();
    lastRewriteStatus = "ok";
    LOG.info("log rewritten: {} bytes", logSize);
    job.done.complete(null);
  }

  private void abandonRewrite(RewriteJob job, Throwable failure) {
    rewrite = null;
    rewriting = false;
    baseSize = logSize; // wait for the log to grow again before the next automatic try
    statBaseBytes = baseSize;
    try {
      if (job.file != null) {
        job.file.close();
      }
      dir.delete(REWRITE_NAME);
    } catch (IOException e) {
      LOG.warn("cleaning up an abandoned rewrite: {}", e.toString());
    }
    lastRewriteMillis = System.currentTimeMillis();
    lastRewriteStatus = "failed: " + failure;
    LOG.warn("log rewrite abandoned, the log is unchanged: {}", failure.toString());
    job.done.completeExceptionally(new StorageFailureException("rewrite failed: " + failure, failure));
  }

  @Override
  public String toString() {
    return "WalStore(" + dir.describe(LOG_NAME) + ", fsync " + options.fsync().cliName() + ", over " + inner + ")";
  }
}
