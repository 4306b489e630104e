package dbf0.kv.storage.btree;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * Runs vacuums in the background, one at a time, each on a thread of its own ({@code btree-vacuum}:
 * a vacuum is rare and long, so no thread waits for one between them), and remembers how the last
 * one ended: what INFO persistence reports and {@code dbf0 compact} waits for, as it does for a log
 * rewrite.
 */
final class VacuumRunner {

    /** The figures INFO shows. */
    record Status(long vacuums, boolean running, long lastEpochMillis, String last) {}

    private final Callable<VacuumResult> vacuum;

    // Guarded by this.
    private CompletableFuture<VacuumResult> running;
    private long vacuums;
    private long lastEpochMillis;
    private String last = "none";

    VacuumRunner(Callable<VacuumResult> vacuum) {
        this.vacuum = vacuum;
    }

    /** Starts a vacuum unless one runs; completes when it (the new one or the running one) ends. */
    synchronized CompletableFuture<VacuumResult> start() {
        if (running != null) {
            return running;
        }
        CompletableFuture<VacuumResult> done = new CompletableFuture<>();
        running = done;
        Thread t = new Thread(() -> run(done), "btree-vacuum");
        t.setDaemon(true);
        t.start();
        return done;
    }

    private void run(CompletableFuture<VacuumResult> done) {
        VacuumResult result = null;
        Exception failure = null;
        try {
            result = vacuum.call();
        } catch (Exception e) {
            failure = e;
        }
        synchronized (this) {
            running = null;
            lastEpochMillis = System.currentTimeMillis();
            if (failure == null) {
                vacuums++;
                last = "ok: " + result.summary();
            } else {
                last = "failed: " + failure.getMessage();
            }
        }
        if (failure == null) {
            done.complete(result);
        } else {
            done.completeExceptionally(failure);
        }
    }

    synchronized Status status() {
        return new Status(vacuums, running != null, lastEpochMillis, last);
    }
}
