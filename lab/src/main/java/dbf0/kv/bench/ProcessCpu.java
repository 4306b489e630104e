package dbf0.kv.bench;

import java.lang.management.ManagementFactory;

/**
 * CPU time of this whole JVM since {@link #start()}: every thread, the server's and the clients'
 * alike. The benchmark reads it over the measured interval to report CPU per operation and the
 * cores kept busy.
 */
final class ProcessCpu {

    private final long startNanos;

    private ProcessCpu(long startNanos) {
        this.startNanos = startNanos;
    }

    static ProcessCpu start() {
        return new ProcessCpu(nanos());
    }

    /** CPU seconds used since {@link #start()}, or NaN where the platform cannot say. */
    double seconds() {
        return startNanos < 0 ? Double.NaN : (nanos() - startNanos) / 1e9;
    }

    /** CPU nanoseconds this JVM used so far, or -1 where the platform cannot say. */
    private static long nanos() {
        return ManagementFactory.getOperatingSystemMXBean()
                        instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : -1;
    }
}
