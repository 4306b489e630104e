package dbf0.kv.replication;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.server.cluster.Replication;
import dbf0.kv.server.cluster.ShardReport;
import dbf0.kv.server.cluster.ShardView;
import dbf0.kv.storage.CheckpointedStore;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.StoreRefusedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
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

    /**
     * Where an answer from Ratis goes on: Ratis completes a request's future on its own threads,
     * holding its own locks, and a callback that calls back into Ratis from there (the read barrier
     * sends its next ReadIndex the moment one is answered) deadlocked with Ratis's appenders. A
     * virtual thread per answer costs little and holds no lock of Ratis's.
     */
    private final ExecutorService completions = Executors.newVirtualThreadPerTaskExecutor();

    private Store local;
    private ReplicatedStore replicated;
    private volatile RaftGroup group;
    private volatile RaftServer server;
    private volatile RaftServer.Division division;
    private volatile StoreStateMachine stateMachine;

    /** The last leader {@link #view} saw, for a replica to name while an election is on. */
    private volatile int lastLeader = SlotMap.NONE;

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
    public Store attach(Store store) {
        this.local = store;
        this.replicated =
                new ReplicatedStore(store, this, "shard-" + shards.shardOf(myself) + "-submitter");
        return replicated;
    }

    /** The mark that this member's engine ran in its data dir ({@link #joinedBefore}). */
    static final String MEMBER_FILE = "raft-member";

    @Override
    public boolean joinedBefore() {
        return Files.exists(options.dataDir().resolve(MEMBER_FILE))
                || Files.isDirectory(groupDir());
    }

    private Path groupDir() {
        return options.dataDir()
                .resolve("raft")
                .resolve(ShardGroup.groupId(shards.shardOf(myself)).getUuid().toString());
    }

    /**
     * Starts the Raft server: on the log in {@code DIR/raft} if there is one; else a new, empty log
     * if this member is new, and a refusal if it is not (see {@link Replication#start}).
     */
    @Override
    public void start(boolean newMember) throws IOException {
        if (local == null) {
            throw new IllegalStateException("attach a store first");
        }
        int shard = shards.shardOf(myself);
        RaftGroup g = ShardGroup.of(shard, nodes, shards, options.raftPortOffset());
        Path dir = options.dataDir().resolve("raft");
        Path groupDir = groupDir();
        boolean fresh = !Files.isDirectory(groupDir);
        if (fresh && !newMember) {
            throw new IOException(
                    options.dataDir()
                            + " says this node was a member of shard "
                            + shard
                            + " ("
                            + MEMBER_FILE
                            + "), but its Raft log is gone ("
                            + groupDir
                            + " is missing). A member that forgets its log could vote in a stale"
                            + " leader and lose acknowledged writes, so it will not start: restore"
                            + " the data dir from a backup, or start the whole cluster afresh");
        }
        if (fresh) {
            // The mark first, forced to disk: from here on this data dir has been a member.
            MemberFile.write(options.dataDir().resolve(MEMBER_FILE), shard, myself);
        }
        Files.createDirectories(dir);
        int port = ShardGroup.raftPort(nodes.get(myself), options.raftPortOffset());
        Snapshots snapshots =
                local instanceof CheckpointedStore tables
                        ? new TableSnapshots(tables, shard)
                        : new MapSnapshots(local);
        stateMachine = new StoreStateMachine(local, snapshots, shard, myself);
        group = g;
        server =
                RaftServer.newBuilder()
                        .setServerId(ShardGroup.peerId(myself))
                        .setGroup(g)
                        .setStateMachine(stateMachine)
                        .setProperties(RaftSettings.properties(options, dir, bindHost, port))
                        .setOption(
                                fresh
                                        ? RaftStorage.StartupOption.FORMAT
                                        : RaftStorage.StartupOption.RECOVER)
                        .build();
        server.start();
        division = server.getDivision(g.getGroupId());
        LOG.info(
                "shard {}'s Raft group: this node is {} of {} at {}:{} ({})",
                shard,
                ShardGroup.peerId(myself),
                g.getPeers().size(),
                bindHost,
                port,
                fresh ? "a new log" : "its log recovered");
    }

    /** This member's state machine, once started: its counters, for tests. */
    StoreStateMachine stateMachine() {
        return stateMachine;
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
        if (leader != SlotMap.NONE) {
            lastLeader = leader;
        }
        return new ShardView(
                role,
                info.getCurrentTerm(),
                leader,
                d.getRaftLog().getLastCommittedIndex(),
                info.getLastAppliedIndex());
    }

    @Override
    public ShardReport report() {
        RaftServer.Division d = division;
        ShardView v = view();
        if (d == null || v.role() == ShardView.Role.DOWN) {
            return ShardReport.down(lastLeader);
        }
        return ShardReports.of(v, d, myself, lastLeader);
    }

    @Override
    public int busPort(int node) {
        return ShardGroup.raftPort(nodes.get(node), options.raftPortOffset());
    }

    /**
     * What a committed entry of writes answers: a byte per write (a delete's {@link
     * StoreStateMachine#FOUND}), and the entry's index in the log.
     */
    record Written(byte[] found, long index) {}

    /**
     * Submits one entry of writes; completes once it is committed and applied here, or fails with a
     * {@link StoreRefusedException}. Called only by the shard's {@link EntrySubmitter}, one entry
     * at a time: it returns once Ratis has appended the entry to this member's log (which may take
     * an fsync's time), so the next entry cannot overtake it. A new leader that is not ready yet
     * answers at once; the entry is then offered again from here, every few milliseconds, and not
     * from another thread, where a later entry could reach the log before it.
     */
    CompletableFuture<Written> write(byte[] entry) {
        RaftClientRequest request =
                request(
                        Message.valueOf(UnsafeByteOperations.unsafeWrap(entry)),
                        RaftClientRequest.writeRequestType());
        Duration timeout = options.writeTimeout();
        long deadline = System.nanoTime() + timeout.toNanos();
        CompletableFuture<RaftClientReply> done = new CompletableFuture<>();
        while (true) {
            CompletableFuture<RaftClientReply> sent = submit(request, done);
            if (sent == null) {
                break; // refused: done says why
            }
            if (notReadyYet(sent) && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    done.completeExceptionally(
                            new StoreRefusedException("TRYAGAIN", "this node is shutting down"));
                    break;
                }
                continue;
            }
            answer(sent, deadline, timeout, done, null);
            break;
        }
        return done.thenApply(
                reply ->
                        new Written(
                                reply.getMessage().getContent().toByteArray(),
                                reply.getLogIndex()));
    }

    private static boolean notReadyYet(CompletableFuture<RaftClientReply> sent) {
        return sent.isDone()
                && !sent.isCompletedExceptionally()
                && sent.join().getLeaderNotReadyException() != null;
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
        CompletableFuture<RaftClientReply> sent = submit(request, done);
        if (sent != null) {
            answer(sent, deadline, timeout, done, request);
        }
    }

    /** Hands the request to the server; null (and {@code done} failed) if it has none. */
    private CompletableFuture<RaftClientReply> submit(
            RaftClientRequest request, CompletableFuture<RaftClientReply> done) {
        try {
            if (server == null) {
                throw new IOException("the shard's log has not started");
            }
            return server.submitClientRequestAsync(request);
        } catch (IOException e) {
            done.completeExceptionally(
                    new StoreRefusedException("TRYAGAIN", "the shard's log refused: " + e));
            return null;
        }
    }

    /**
     * Completes {@code done} with the server's answer, off Ratis's threads. A read refused by a
     * leader not ready yet is sent again ({@code again}) from the timer thread; a write is not,
     * since a later entry could overtake it (see {@link #write}).
     */
    private void answer(
            CompletableFuture<RaftClientReply> sent,
            long deadline,
            Duration timeout,
            CompletableFuture<RaftClientReply> done,
            RaftClientRequest again) {
        long left = deadline - System.nanoTime();
        sent.orTimeout(Math.max(1, left), TimeUnit.NANOSECONDS)
                .whenCompleteAsync(
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
                            } else if (again != null
                                    && reply.getLeaderNotReadyException() != null
                                    && System.nanoTime() < deadline) {
                                timers.schedule(
                                        () -> attempt(again, deadline, timeout, done),
                                        5,
                                        TimeUnit.MILLISECONDS);
                            } else {
                                done.completeExceptionally(
                                        new StoreRefusedException(
                                                "TRYAGAIN", refusal(reply.getException())));
                            }
                        },
                        completions);
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

    /**
     * Polls the leader's figures every few milliseconds until enough followers hold {@code index}
     * or the time is up: Ratis tells no one when a follower's matchIndex moves, and a WAIT is rare
     * enough for a poll to cost nothing that matters.
     */
    @Override
    public CompletableFuture<Integer> awaitReplicas(long index, int replicas, Duration timeout) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        poll(done, index, replicas, System.nanoTime() + timeout.toNanos());
        return done;
    }

    private void poll(CompletableFuture<Integer> done, long index, int replicas, long deadline) {
        int holding = ShardReports.holding(report(), index);
        if (holding >= replicas || System.nanoTime() - deadline >= 0) {
            done.complete(holding);
            return;
        }
        try {
            timers.schedule(() -> poll(done, index, replicas, deadline), 2, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            done.complete(holding); // the engine is closing: what is known now
        }
    }

    @Override
    public void close() {
        if (replicated != null) {
            replicated.close(); // first: no entry is submitted to a closing server
        }
        timers.shutdownNow();
        completions.shutdown();
        if (server != null) {
            try {
                server.close();
            } catch (IOException e) {
                LOG.warn("closing the Raft server: {}", e.toString());
            }
        }
    }
}
