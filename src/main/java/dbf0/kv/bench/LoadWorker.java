package dbf0.kv.bench;



/** One load-generating thread of a benchmark, whatever protocol it speaks. */
interface LoadWorker {

  /** Starts the worker on a thread made by {@code builder}. */
  void start(Thread.Builder builder);

  /** Asks the thread to finish its current operation (or window) and stop. */
  void stop();

  void join() throws InterruptedException;

  /** Counts of the measured interval; read after {@link #join()}. */
  KeyValueClientStats stats();

  LatencyRecorder latencies();

  /** Operations or connections that failed. */
  long errors();
}
