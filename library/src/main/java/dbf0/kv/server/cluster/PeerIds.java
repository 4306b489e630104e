package dbf0.kv.server.cluster;

import dbf0.kv.cluster.ClusterNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a node learns its peers' ids, in place of Redis's gossip bus: a daemon thread asks each peer
 * {@code CLUSTER MYID} over an ordinary RESP connection, every {@value #UNKNOWN_MILLIS} ms while
 * some id is unknown and every {@value #KNOWN_MILLIS} ms after (a peer restarted without a data dir
 * comes back with a new id, taken in place of the old one, except on a replicated cluster: see
 * {@link MemberCheck}). Until every id is known, CLUSTER INFO says {@code cluster_state:fail}.
 *
 * <p>That is all the bus would do here: the slot map changes only by SETSLOT, which redis-cli sends
 * to every node itself, and with no replicas there is no failure detection or failover to gossip
 * about.
 */
final class PeerIds implements AutoCloseable {

    static final int UNKNOWN_MILLIS = 100;
    static final int KNOWN_MILLIS = 1000;
    static final int TIMEOUT_MILLIS = 500;

    private static final List<byte[]> MYID =
            List.of(
                    "CLUSTER".getBytes(StandardCharsets.US_ASCII),
                    "MYID".getBytes(StandardCharsets.US_ASCII));

    private static final Logger LOG = LoggerFactory.getLogger(PeerIds.class);

    private final ClusterState state;
    private final java.util.Set<Integer> warned =
            java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private Thread thread;

    PeerIds(ClusterState state) {
        this.state = state;
    }

    void start() {
        if (state.map().nodes().size() > 1) {
            thread = Thread.ofPlatform().daemon().name("cluster-peer-ids").start(this::run);
        }
    }

    private void run() {
        while (!closed) {
            boolean allKnown = true;
            List<ClusterNode> nodes = state.map().nodes();
            for (int i = 0; i < nodes.size() && !closed; i++) {
                if (i != state.myself()) {
                    ask(i, nodes.get(i));
                    allKnown &= state.map().nodes().get(i).hasKnownId();
                }
            }
            try {
                Thread.sleep(allKnown ? KNOWN_MILLIS : UNKNOWN_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void ask(int index, ClusterNode node) {
        try (PeerLink link = new PeerLink(node, TIMEOUT_MILLIS)) {
            PeerLink.Answer answer = link.call(MYID);
            if (answer.type() == '$'
                    && ClusterNode.validId(answer.text())
                    && !answer.text().equals(node.id())) {
                if (state.replicated() && node.hasKnownId()) {
                    // A member that comes back with a new id lost its data dir: the old id is
                    // what MemberCheck shows it, so it is kept (and the member refuses to start).
                    if (warned.add(index)) {
                        LOG.warn(
                                "node {} answers with a new id ({}; it was {}): it lost its data"
                                        + " dir, and its log with it",
                                node.address(),
                                answer.text(),
                                node.id());
                    }
                    return;
                }
                state.update(m -> m.withNode(index, m.nodes().get(index).withId(answer.text())));
            }
        } catch (IOException | RuntimeException e) {
            // not up yet, or gone: asked again on the next round
        }
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
        }
    }
}
