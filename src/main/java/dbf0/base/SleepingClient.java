package dbf0.base;

import java.time.Duration;
import java.util.List;

/** A client that runs its connectors for a fixed duration: start, sleep, stop, join. */
public class SleepingClient<C extends BaseConnector> extends BaseClient<C> {

  private final Duration duration;

  public SleepingClient(List<C> connectors, Duration duration) {
    super(connectors);
    this.duration = duration;
  }

  /** Starts the connectors, sleeps for the duration, then stops and joins them. */
  public void run() throws InterruptedException {
    start();
    try {
      Thread.sleep(duration);
    } finally {
      stopAndJoin();
    }
  }

  public Duration getDuration() {
    return duration;
  }
}
