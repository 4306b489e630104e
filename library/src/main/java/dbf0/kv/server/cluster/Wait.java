package dbf0.kv.server.cluster;

import dbf0.base.io.OutputBuffer;
import dbf0.base.server.PendingReplies;
import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.SlotMap;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.resp.RespCommand;
import dbf0.kv.server.resp.RespConnection;
import dbf0.kv.server.resp.RespContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * WAIT numreplicas timeout, as in Redis: answers how many replicas hold this connection's last
 * write, once {@code numreplicas} of them do or {@code timeout} milliseconds pass. A replica here
 * is a follower of the shard's Raft group, and it holds a write once the leader knows its log has
 * the write's entry (its matchIndex has reached the write's index). The write is committed (a
 * majority holds it) before it is answered at all: WAIT only asks about the copies beyond.
 *
 * <p>Redis blocks for ever on a timeout of 0. dbf0 bounds every WAIT at {@link #LONGEST}: a
 * connection is never held without end by a replica that is gone, and a client learns from the
 * count that fewer replicas than it asked for hold its write. Only the leader answers; on another
 * member WAIT is an error, as on a Redis replica.
 */
final class Wait implements RespCommand {

    /** The longest any WAIT waits, a timeout of 0 included. */
    static final Duration LONGEST = Duration.ofSeconds(60);

    private final ClusterState state;

    Wait(ClusterState state) {
        this.state = state;
    }

    @Override
    public List<String> names() {
        return List.of("WAIT");
    }

    @Override
    public int arity() {
        return 3;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        long replicas;
        long millis;
        try {
            replicas = Long.parseLong(new String(args.get(1), StandardCharsets.US_ASCII));
            millis = Long.parseLong(new String(args.get(2), StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            out.put(RespCodec.error("ERR value is not an integer or out of range"));
            return false;
        }
        if (millis < 0) {
            out.put(RespCodec.error("ERR timeout is negative"));
            return false;
        }
        ShardView view = state.replication().view();
        if (!view.leading()) {
            out.put(RespCodec.error(notLeader(view)));
            return false;
        }
        Duration timeout =
                millis == 0 || millis > LONGEST.toMillis() ? LONGEST : Duration.ofMillis(millis);
        CompletableFuture<Integer> done =
                state.replication()
                        .awaitReplicas(
                                Math.max(0, connection.lastWriteIndex()),
                                (int) Math.min(Integer.MAX_VALUE, replicas),
                                timeout);
        PendingReplies.Answer<Integer> answer =
                (o, holding, failure) ->
                        o.put(
                                failure != null
                                        ? RespCodec.error("ERR WAIT failed: " + failure)
                                        : RespCodec.integer(holding));
        PendingReplies pending = connection.pending();
        if (done.isDone() && pending.isEmpty()) {
            Throwable failure = PendingReplies.failureOf(done);
            answer.write(out, failure == null ? done.join() : null, failure);
        } else {
            pending.addRead(done, 1, answer);
        }
        return false;
    }

    private String notLeader(ShardView view) {
        String leader = "no leader is known now";
        if (view.leader() != SlotMap.NONE) {
            ClusterNode node = state.map().nodes().get(view.leader());
            leader = "its leader is " + node.address();
        }
        return "ERR WAIT cannot be used with replica instances: this node does not lead its shard ("
                + leader
                + ")";
    }
}
