package dbf0.kv.storage.wal;

import java.time.Duration;

/** For tests outside this package: the store's test-only knobs. */
public final class DurableStoreAccess {

  private DurableStoreAccess() {}

  /**
   * Sets how long a record may wait before the writer's safety net flushes it: long, to see
   * that the callers flush by themselves (a caller that forgets then hangs instead of being slow).
   */
  public static void lateFlushAfter(WalStore store, Duration wait) {
    store.lateFlushAfter(wait);
  }
}
