package dbf0.kv.server.cluster;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.SlotMap;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * How a node of a replicated cluster learns who leads the other shards, in place of Redis's gossip:
 * a daemon thread asks every peer {@code DBF0-ROLE} every {@value #EVERY_MILLIS} ms, over an
 * ordinary RESP connection, and keeps the last answer of each. A node needs this to send a client
 * the right MOVED for another shard's slot, and to list masters and replicas in CLUSTER NODES; its
 * own shard's leader it hears from its own engine at once.
 *
 * <p>An answer older than {@value #STALE_MILLIS} ms counts for nothing: a leader that stopped
 * answering may have been replaced. Two members that both say they lead (an old leader cut off from
 * its peers has not heard of the new term) are told apart by their terms: the newer term wins, as
 * it does in Raft.
 */
final class PeerRoles implements AutoCloseable {

    static final int EVERY_MILLIS = 100;
    static final int STALE_MILLIS = 1_000;
    static final int TIMEOUT_MILLIS = 300;

    /** The command every node answers with its view of its own shard (see {@link DbfRole}). */
    static final List<byte[]> ASK = List.of("DBF0-ROLE".getBytes(StandardCharsets.US_ASCII));

    /** One peer's last answer: its role, term and leader as it saw them, and when it said so. */
    record Heard(ShardView.Role role, long term, int leader, long commit, long applied, long at) {
        boolean fresh(long now) {
            return now - at < STALE_MILLIS;
        }
    }

    private final ClusterState state;
    private final AtomicReferenceArray<Heard> heard;
    private volatile boolean closed;
    private Thread thread;

    PeerRoles(ClusterState state) {
        this.state = state;
        this.heard = new AtomicReferenceArray<>(state.map().nodes().size());
    }

    void start() {
        if (state.map().nodes().size() > 1) {
            thread = Thread.ofPlatform().daemon().name("cluster-peer-roles").start(this::run);
        }
    }

    private void run() {
        // One connection per peer, kept open while it answers: a round is one small request each.
        PeerLink[] links = new PeerLink[heard.length()];
        while (!closed) {
            List<ClusterNode> nodes = state.map().nodes();
            for (int i = 0; i < nodes.size() && !closed; i++) {
                if (i != state.myself()) {
                    links[i] = ask(i, nodes.get(i), links[i]);
                }
            }
            try {
                Thread.sleep(EVERY_MILLIS);
            } catch (InterruptedException e) {
                break;
            }
        }
        for (PeerLink link : links) {
            closeQuietly(link);
        }
    }

    private PeerLink ask(int index, ClusterNode node, PeerLink link) {
        try {
            if (link == null) {
                link = new PeerLink(node, TIMEOUT_MILLIS);
            }
            PeerLink.Answer answer = link.call(ASK);
            if (answer.type() == '$' && answer.text() != null) {
                heard.set(index, DbfRole.parse(answer.text(), System.currentTimeMillis()));
            }
            return link;
        } catch (IOException | RuntimeException e) {
            closeQuietly(link); // down, or cut off: its last answer goes stale by itself
            return null;
        }
    }

    private static void closeQuietly(PeerLink link) {
        if (link != null) {
            try {
                link.close();
            } catch (IOException e) {
                // closing a broken connection: nothing to do
            }
        }
    }

    /** What node {@code index} last said, or null. */
    Heard heard(int index) {
        return heard.get(index);
    }

    /**
     * The leader of {@code shard} by its members' fresh answers: a member that says it leads, the
     * one with the newest term if two do; else the leader the members with the newest term name.
     */
    int leaderOf(int shard) {
        long now = System.currentTimeMillis();
        int best = SlotMap.NONE;
        long bestTerm = -1;
        for (int member : state.shards().members(shard)) {
            Heard h = heard.get(member);
            if (h != null
                    && h.fresh(now)
                    && h.role() == ShardView.Role.LEADER
                    && h.term() > bestTerm) {
                best = member;
                bestTerm = h.term();
            }
        }
        if (best != SlotMap.NONE) {
            return best;
        }
        for (int member : state.shards().members(shard)) {
            Heard h = heard.get(member);
            if (h != null && h.fresh(now) && h.leader() != SlotMap.NONE && h.term() > bestTerm) {
                best = h.leader();
                bestTerm = h.term();
            }
        }
        return best;
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
        }
    }
}
