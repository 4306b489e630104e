package dbf0.kv.bench;



/**
 * What every v2 load-generating thread keeps: its thread, its stop flag and its counters. The
 * counters are plain fields written only by the worker's own thread; {@link #join()} makes them
 * visible to the benchmark, which reads them afterwards.
 */
abstract class ThreadedLoadWorker implements LoadWorker, Runnable {

  protected final String name;
  protected final KeyValueClientStats stats = new KeyValueClientStats();
  protected final LatencyRecorder latencies = new LatencyRecorder();
  protected volatile boolean stopped;
  protected long errors;
  private Thread thread;

  ThreadedLoadWorker(String name) {
    this.name = name;
  }

  @Override
  public void start(Thread.Builder builder) {
    thread = builder.name(name).start(this);
  }

  @Override
  public void stop() {
    stopped = true;
  }

  @Override
  public void join() throws InterruptedException {
    if (thread != null) {
      thread.join();
    }
  }

  @Override
  public KeyValueClientStats stats() {
    return stats;
  }

  @Override
  public LatencyRecorder latencies() {
    return latencies;
  }

  @Override
  public long errors() {
    return errors;
  }
}
