package dbf0.kv.replication;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.server.cluster.Replication;
import dbf0.kv.server.cluster.ShardView;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.StoreRefusedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member's part in its shard's Raft group: the library's {@link Replication} hook, filled with
 * an Apache Ratis server. {@link #start} starts the server with the member's store as the state
 * machine and returns the {@link ReplicatedStore} sessions write through; {@link #view} reads the
 * server's role, term, leader and log positions for routing and for CLUSTER NODES.
 *
 * <p>Requests reach the engine from inside the process: a write is a Raft client request this
 * member submits to its own server ({@code submitClientRequestAsync}), with no client library and
 * no network hop. Only a leader accepts it; the routing sends clients to the leader first.
 */
public final class RaftReplication implements Replication {

    private static final String NO_UNSAFE = "org.apache.ratis.thirdparty.io.netty.noUnsafe";

    private static final Logger LOG = LoggerFactory.getLogger(RaftReplication.class);

    /**
     * Ratis's shaded gRPC logs through java.util.logging, at INFO, what it found at start-up: kept
     * here (a logger only weakly held would forget its level) at WARNING.
     */
    private static final java.util.logging.Logger GRPC_LOG =
            java.util.logging.Logger.getLogger("org.apache.ratis.thirdparty.io.grpc");

    static {
        // Ratis's shaded Netty reads off-heap memory through sun.misc.Unsafe unless told not to,
        // and JDK 24+ warns on every start: its heap buffers serve a shard's traffic as well.
        if (System.getProperty(NO_UNSAFE) == null) {
            System.setProperty(NO_UNSAFE, "true");
        }
        GRPC_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private final List<ClusterNode> nodes;
    private final Shards shards;
    private final int myself;
    private final String bindHost;
    private final RaftOptions options;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final ScheduledExecutorService timers =
            Executors.newSingleThreadScheduledExecutor(
                    r -> Thread.ofPlatform().daemon().name("raft-timers").unstarted(r));
    private RaftGroup group;
    private RaftServer server;
    private RaftServer.Division division;

    /**
     * @param nodes every node of the cluster, in {@code --cluster-nodes} order
     * @param shards how they group into shards
     * @param myself this node's index
     * @param bindHost the address this node listens on; its Raft server listens there too
     * @param options timeouts, durability, reads, where the log lives
     */
    public RaftReplication(
            List<ClusterNode> nodes,
            Shards shards,
            int myself,
            String bindHost,
            RaftOptions options) {
        this.nodes = List.copyOf(nodes);
        this.shards = shards;
        this.myself = myself;
        this.bindHost = bindHost;
        this.options = options;
    }

    @Override
    public Store start(Store local) throws IOException {
        int shard = shards.shardOf(myself);
        group = ShardGroup.of(shard, nodes, shards, options.raftPortOffset());
        Path dir = options.dataDir().resolve("raft");
        boolean fresh = !Files.isDirectory(dir.resolve(group.getGroupId().getUuid().toString()));
        Files.createDirectories(dir);
        int port = ShardGroup.raftPort(nodes.get(myself), options.raftPortOffset());
        server =
                RaftServer.newBuilder()
                        .setServerId(ShardGroup.peerId(myself))
                        .setGroup(group)
                        .setStateMachine(new StoreStateMachine(local, shard, myself))
                        .setProperties(RaftSettings.properties(options, dir, bindHost, port))
                        .setOption(
                                fresh
                                        ? RaftStorage.StartupOption.FORMAT
                                        : RaftStorage.StartupOption.RECOVER)
                        .build();
        server.start();
        division = server.getDivision(group.getGroupId());
        LOG.info(
                "shard {}'s Raft group: this node is {} of {} at {}:{} ({})",
                shard,
                ShardGroup.peerId(myself),
                group.getPeers().size(),
                bindHost,
                port,
                fresh ? "a new log" : "its log recovered");
        return new ReplicatedStore(local, this);
    }

    @Override
    public ShardView view() {
        RaftServer.Division d = division;
        if (d == null) {
            return ShardView.DOWN;
        }
        DivisionInfo info = d.getInfo();
        if (!info.isAlive()) {
            return ShardView.DOWN;
        }
        ShardView.Role role =
                switch (info.getCurrentRole()) {
                    case LEADER -> ShardView.Role.LEADER;
                    case CANDIDATE -> ShardView.Role.CANDIDATE;
                    default -> ShardView.Role.FOLLOWER;
                };
        int leader = role == ShardView.Role.LEADER ? myself : ShardGroup.nodeOf(info.getLeaderId());
        Map<Integer, Long> match = new HashMap<>();
        if (role == ShardView.Role.LEADER) {
            for (CommitInfoProto c : d.getCommitInfos()) {
                int node = ShardGroup.nodeOf(RaftPeerId.valueOf(c.getServer().getId()));
                if (node != myself && node != SlotMap.NONE) {
                    match.put(node, c.getCommitIndex());
                }
            }
        }
        return new ShardView(
                role,
                info.getCurrentTerm(),
                leader,
                d.getRaftLog().getLastCommittedIndex(),
                info.getLastAppliedIndex(),
                match);
    }

    /**
     * Submits one entry of writes; completes with a byte per write (a delete's {@link
     * StoreStateMachine#FOUND}) once it is committed and applied here, or fails with a {@link
     * StoreRefusedException}.
     */
    CompletableFuture<byte[]> write(byte[] entry) {
        RaftClientRequest request =
                request(
                        Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)),
                        RaftClientRequest.writeRequestType());
        return send(request, options.writeTimeout())
                .thenApply(reply -> reply.getMessage().getContent().toByteArray());
    }

    /**
     * Runs {@code task} on this member's timer thread, off Ratis's threads; after {@link #close} it
     * runs in place (nothing is submitted to Ratis any more by then).
     */
    void later(Runnable task) {
        try {
            timers.execute(task);
        } catch (RejectedExecutionException closed) {
            task.run();
        }
    }

    /** One ReadIndex (see {@link ReadBarrier}). */
    CompletableFuture<Void> readIndex() {
        RaftClientRequest request = request(Message.EMPTY, RaftClientRequest.readRequestType());
        return send(request, options.writeTimeout()).thenApply(reply -> null);
    }

    private RaftClientRequest request(Message message, RaftClientRequest.Type type) {
        return RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(ShardGroup.peerId(myself))
                .setGroupId(group.getGroupId())
                .setCallId(callIds.incrementAndGet())
                .setMessage(message)
                .setType(type)
                .build();
    }

    /**
     * Hands a request to this member's own server and turns what comes back into a result or a
     * refusal: not the leader (any more), or no answer in time. A new leader is not ready until it
     * has committed an entry of its own term (one round trip after its election): a request it
     * turns away for that is sent again every few milliseconds until it is ready or the time is up.
     * Whether a write refused with TRYAGAIN took effect is unknown to the client, which is why it
     * is TRYAGAIN and not a plain error.
     */
    private CompletableFuture<RaftClientReply> send(RaftClientRequest request, Duration timeout) {
        CompletableFuture<RaftClientReply> done = new CompletableFuture<>();
        attempt(request, System.nanoTime() + timeout.toNanos(), timeout, done);
        return done;
    }

    private void attempt(
            RaftClientRequest request,
            long deadline,
            Duration timeout,
            CompletableFuture<RaftClientReply> done) {
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = server.submitClientRequestAsync(request);
        } catch (IOException e) {
            done.completeExceptionally(
                    new StoreRefusedException("TRYAGAIN", "the shard's log refused: " + e));
            return;
        }
        long left = deadline - System.nanoTime();
        sent.orTimeout(Math.max(1, left), TimeUnit.NANOSECONDS)
                .whenComplete(
                        (reply, failure) -> {
                            if (failure != null) {
                                Throwable cause =
                                        failure.getCause() != null ? failure.getCause() : failure;
                                done.completeExceptionally(
                                        new StoreRefusedException(
                                                "TRYAGAIN",
                                                cause instanceof TimeoutException
                                                        ? "no majority answered within "
                                                                + timeout.toMillis()
                                                                + " ms: the write may or may not"
                                                                + " take effect"
                                                        : "the shard's log failed: " + cause));
                            } else if (reply.isSuccess()) {
                                done.complete(reply);
                            } else if (reply.getLeaderNotReadyException() != null
                                    && System.nanoTime() < deadline) {
                                timers.schedule(
                                        () -> attempt(request, deadline, timeout, done),
                                        5,
                                        TimeUnit.MILLISECONDS);
                            } else {
                                done.completeExceptionally(
                                        new StoreRefusedException(
                                                "TRYAGAIN", refusal(reply.getException())));
                            }
                        });
    }

    private static String refusal(Exception e) {
        String name = e == null ? "no reason" : e.getClass().getSimpleName();
        return switch (name) {
            case "NotLeaderException" -> "this node no longer leads its shard";
            case "LeaderNotReadyException" -> "the shard's new leader is not ready yet";
            case "LeaderSteppingDownException" -> "the shard's leader is stepping down";
            default -> "the shard's log refused: " + e;
        };
    }

    @Override
    public CompletableFuture<Integer> awaitReplicas(long index, int replicas, Duration timeout) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        long deadline = timeout.isZero() ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        poll(done, index, replicas, deadline);
        return done;
    }

    private void poll(CompletableFuture<Integer> done, long index, int replicas, long deadline) {
        int holding = (int) view().matchIndex().values().stream().filter(i -> i >= index).count();
        if (holding >= replicas || System.nanoTime() >= deadline) {
            done.complete(holding);
            return;
        }
        timers.schedule(() -> poll(done, index, replicas, deadline), 2, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timers.shutdownNow();
        if (server != null) {
            try {
                server.close();
            } catch (IOException e) {
                LOG.warn("closing the Raft server: {}", e.toString());
            }
        }
    }
}
