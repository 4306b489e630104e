package dbf0.kv.server.cluster;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a replicated node's engine starts. If it ran in this data dir before ({@link
 * Replication#joinedBefore}), at once, on its log: a log that has gone missing is refused then. If
 * not, only once every other member of the shard has said it does not know this node by another id
 * ({@link MemberCheck}), while the node already serves; a node they know is refused. A refusal
 * found after the start completes {@link #failure()}: the node must stop.
 */
final class EngineStart implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EngineStart.class);

    private final Replication replication;
    private final CompletableFuture<Throwable> failure = new CompletableFuture<>();
    private MemberCheck check;
    private boolean closed;

    EngineStart(Replication replication) {
        this.replication = replication;
    }

    /**
     * Starts the engine now, or the check that starts it later.
     *
     * @throws IOException if the engine ran here before and cannot start again (its log gone)
     */
    synchronized void begin(ClusterState state) throws IOException {
        if (replication.joinedBefore()) {
            replication.start(false); // it has been a member: its log must be there
        } else {
            check = new MemberCheck(state, this);
            check.start();
        }
    }

    /** No peer knows this node by another id: its engine starts with a new log. */
    synchronized void joinAsNewMember() {
        if (closed) {
            return;
        }
        try {
            replication.start(true);
        } catch (IOException | RuntimeException e) {
            fail(e instanceof IOException ? e : new IOException(e.toString(), e));
        }
    }

    /** This node must stop: {@link #failure()} completes with {@code why}. */
    void fail(Throwable why) {
        LOG.error("{}", why.getMessage());
        failure.complete(why);
    }

    CompletableFuture<Throwable> failure() {
        return failure;
    }

    /** A check that passes from now on starts nothing. */
    @Override
    public void close() {
        MemberCheck running;
        synchronized (this) {
            closed = true;
            running = check;
        }
        if (running != null) {
            running.close();
        }
    }
}
