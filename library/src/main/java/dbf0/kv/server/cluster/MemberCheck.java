package dbf0.kv.server.cluster;

import dbf0.kv.cluster.ClusterNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node of a replicated cluster does when its data dir is empty, before its engine may form a
 * log: it asks every other member of its shard, over RESP, which id they know for it (CLUSTER
 * NODES). A node's id is born with its data dir and saved by every peer that has talked to it
 * ({@link PeerIds}), so a peer that knows it by another id proves it was a member before and has
 * lost its log. Such a node must not start: a Raft member with an empty log and no memory of its
 * votes could vote a stale candidate in (its empty log looks at least as up to date as any), and
 * the new leader would overwrite writes this node had helped commit. It stops with a one-line
 * reason ({@link EngineStart#fail}).
 *
 * <p>Only when every other member has answered, none knowing it by another id, does it form a new
 * log: a peer that does not answer may be the one that knew it, so it waits for that peer, saying
 * so every {@value #SAY_EVERY_MILLIS} ms. At a cluster's first start every node is in this state at
 * once, and answers the others' questions meanwhile (it serves before its engine runs). What this
 * cannot catch: a majority of the shard losing their data dirs together, beyond what Raft itself
 * can survive.
 *
 * <p>For this to hold, a peer must never forget an id it saved: on a replicated cluster {@link
 * PeerIds} keeps a peer's first id even when the peer answers with another.
 */
final class MemberCheck implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MemberCheck.class);

    static final int EVERY_MILLIS = 200;
    static final int SAY_EVERY_MILLIS = 10_000;
    static final int TIMEOUT_MILLIS = 1_000;

    private static final List<byte[]> NODES =
            List.of(
                    "CLUSTER".getBytes(StandardCharsets.US_ASCII),
                    "NODES".getBytes(StandardCharsets.US_ASCII));

    private final ClusterState state;
    private final EngineStart engine;
    private volatile boolean closed;
    private Thread thread;

    MemberCheck(ClusterState state, EngineStart engine) {
        this.state = state;
        this.engine = engine;
    }

    void start() {
        thread = Thread.ofPlatform().daemon().name("cluster-member-check").start(this::run);
    }

    private void run() {
        int shard = state.shards().shardOf(state.myself());
        long said = System.nanoTime();
        LOG.info(
                "shard {}: this node's data dir is empty; it asks its peers whether they know it"
                        + " before it forms a new Raft log",
                shard);
        while (!closed) {
            List<String> silent = new ArrayList<>();
            for (int peer : state.shards().members(shard)) {
                if (peer == state.myself()) {
                    continue;
                }
                ClusterNode node = state.map().nodes().get(peer);
                String known;
                try {
                    known = idKnownBy(node);
                } catch (IOException | RuntimeException e) {
                    silent.add(node.address());
                    continue;
                }
                if (known != null && !known.equals(state.me().id())) {
                    engine.fail(new IOException(refusal(shard, node, known)));
                    return;
                }
            }
            if (silent.isEmpty()) {
                LOG.info("shard {}: no peer knew this node: it joins with a new log", shard);
                engine.joinAsNewMember();
                return;
            }
            if (System.nanoTime() - said > SAY_EVERY_MILLIS * 1_000_000L) {
                said = System.nanoTime();
                LOG.info(
                        "shard {}: waiting for {} to answer whether they know this node",
                        shard,
                        String.join(", ", silent));
            }
            try {
                Thread.sleep(EVERY_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The id {@code peer} knows for this node, or null if it knows none yet. */
    private String idKnownBy(ClusterNode peer) throws IOException {
        try (PeerLink link = new PeerLink(peer, TIMEOUT_MILLIS)) {
            PeerLink.Answer answer = link.call(NODES);
            if (answer.type() != '$' || answer.text() == null) {
                throw new IOException(peer.address() + " answered CLUSTER NODES with an error");
            }
            return idOf(answer.text(), state.me().address());
        }
    }

    /**
     * The id CLUSTER NODES text gives the node at {@code address}, or null if its line is flagged
     * {@code handshake} (its id not known yet).
     *
     * @throws IOException if no line is for that address
     */
    static String idOf(String nodes, String address) throws IOException {
        for (String line : nodes.split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length > 2 && f[1].startsWith(address + "@")) {
                return List.of(f[2].split(",")).contains("handshake") ? null : f[0];
            }
        }
        throw new IOException("CLUSTER NODES lists no node at " + address);
    }

    private String refusal(int shard, ClusterNode peer, String known) {
        return "this node ("
                + state.me().address()
                + ") started with an empty data dir ("
                + state.dataDir()
                + "), but its peer "
                + peer.address()
                + " knows it as "
                + known
                + ": it was a member of shard "
                + shard
                + " and has lost its copy of the Raft log. A member that forgets its log could"
                + " vote in a stale leader and lose acknowledged writes, so it will not rejoin:"
                + " restore its data dir from a backup, or start the whole cluster afresh (dbf0"
                + " cannot yet add a node back as a new Raft member)";
    }

    @Override
    public void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
        }
    }
}
