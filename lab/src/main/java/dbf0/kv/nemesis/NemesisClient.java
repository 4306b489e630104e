package dbf0.kv.nemesis;

import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.cluster.ClusterNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One client: a thread's connections to the nodes, and the operations it performs through them, as
 * a Redis Cluster client does. Each key's shard has a node it believes leads; MOVED names another
 * and the command goes there; a refusal (CLUSTERDOWN, READONLY, a connection that would not open)
 * waits {@value #BACKOFF_MS} ms and tries the shard's next member; a reply that does not come
 * within the reply timeout, a lost connection or TRYAGAIN ends the operation as pending, and the
 * next one starts at the shard's next member.
 *
 * <p>Every operation is recorded once: ok with its answer; pending when its outcome is unknown;
 * failed only when every node it was sent to refused it before running it. An operation sent again
 * after refusals keeps the time of its first sending: only its last sending can have taken effect,
 * and that lies inside the recorded interval. Each SET writes a value of its own ({@code
 * c<client>-<n>}), so a read tells which write it saw.
 */
final class NemesisClient {

    static final long BACKOFF_MS = 20;

    /**
     * How a performed operation ended, and for a GET that ended {@link Outcome#DONE}, its reply.
     */
    record Result(Outcome outcome, Reply reply) {}

    private static final byte[] SET = {'S', 'E', 'T'};
    private static final byte[] GET = {'G', 'E', 'T'};

    private final int id;
    private final NemesisOptions options;
    private final KeyPlan keys;
    private final HistoryRecorder.Log log;
    private final List<InetSocketAddress> addresses;
    private final RespLink[] links;
    private final int[] leader;
    private final Random random;
    final Tally tally = new Tally();

    /** The write-once keys whose SET was acknowledged (their value: the SET's, see below). */
    final List<byte[]> acknowledgedOnce = new ArrayList<>();

    private long writes;
    private long onceKeys;

    NemesisClient(int id, NemesisOptions options, KeyPlan keys, HistoryRecorder.Log log) {
        this.id = id;
        this.options = options;
        this.keys = keys;
        this.log = log;
        this.addresses =
                options.nodes().stream()
                        .map(n -> new InetSocketAddress(n.host(), n.port()))
                        .toList();
        this.links = new RespLink[addresses.size()];
        this.leader = new int[keys.shards()];
        this.random = new Random(options.seed() * 1_000_003L + id);
        for (int s = 0; s < leader.length; s++) {
            List<Integer> members = keys.members(s);
            leader[s] = members.get(random.nextInt(members.size()));
        }
    }

    /**
     * Reads and writes random keys until {@code deadline} (System.nanoTime); a share {@link
     * NemesisOptions#onceFraction()} of the writes goes to a key of its own instead ({@code
     * u<client>-<n>}), never written again, so that a write lost even after later writes to the
     * shared keys shows in the final reads.
     */
    void runUntil(long deadline) {
        try {
            while (System.nanoTime() < deadline) {
                boolean write = random.nextDouble() < options.writeFraction();
                if (write && random.nextDouble() < options.onceFraction()) {
                    byte[] key = ("u" + id + "-" + onceKeys++).getBytes(StandardCharsets.US_ASCII);
                    Result r = perform(true, key, keys.shardOf(key));
                    if (r.outcome() == Outcome.DONE) {
                        acknowledgedOnce.add(key);
                    }
                } else {
                    perform(write, random.nextInt(keys.size()));
                }
                if (!options.think().isZero()) {
                    LockSupport.parkNanos(options.think().toNanos());
                }
            }
        } finally {
            closeAll();
        }
    }

    /** One operation on shared key {@code k}, recorded; see the class comment. */
    Result perform(boolean write, int k) {
        return perform(write, keys.key(k), keys.shard(k));
    }

    /** One operation on {@code key}, which lies in {@code shard}, recorded. */
    Result perform(boolean write, byte[] key, int shard) {
        byte[] value =
                write ? ("c" + id + "-" + writes++).getBytes(StandardCharsets.US_ASCII) : null;
        HistoryRecorder.Op op = write ? HistoryRecorder.Op.SET : HistoryRecorder.Op.GET;
        boolean recorded = log.admit();
        long start = System.nanoTime();
        long giveUp = start + options.retryFor().toNanos();
        long invoke = Long.MIN_VALUE;
        int node = leader[shard];
        int redirects = 0;
        while (true) {
            RespLink link;
            try {
                link = link(node);
            } catch (IOException e) {
                tally.saw("connect failed");
                node = next(shard, node);
                if (refusedTooLong(recorded, op, key, value, invoke, start, giveUp)) {
                    leader[shard] = node;
                    return new Result(Outcome.REFUSED, null);
                }
                sleep(BACKOFF_MS);
                continue;
            }
            if (invoke == Long.MIN_VALUE) {
                invoke = System.nanoTime();
            }
            Reply reply;
            try {
                reply = write ? link.call(SET, key, value) : link.call(GET, key);
            } catch (IOException e) {
                long now = System.nanoTime();
                drop(node);
                tally.saw(e instanceof SocketTimeoutException ? "timeout" : "connection lost");
                leader[shard] = next(shard, node);
                return unknown(recorded, write, op, key, value, invoke, now);
            }
            long now = System.nanoTime();
            Outcome outcome = Outcome.of(reply, write);
            if (reply.type() == Reply.Type.ERROR) {
                tally.saw(reply.code());
            }
            switch (outcome) {
                case DONE -> {
                    leader[shard] = node;
                    record(recorded, write, key, value, reply, invoke, now);
                    return new Result(Outcome.DONE, reply);
                }
                case REDIRECTED -> {
                    node = nodeNamed(reply, shard, node);
                    if (++redirects > 2) {
                        sleep(BACKOFF_MS); // MOVED back and forth: an election under way
                    }
                }
                case REFUSED -> {
                    node = next(shard, node);
                    sleep(BACKOFF_MS);
                }
                case UNKNOWN -> {
                    leader[shard] = next(shard, node);
                    return unknown(recorded, write, op, key, value, invoke, now);
                }
            }
            if (refusedTooLong(recorded, op, key, value, invoke, start, giveUp)) {
                leader[shard] = node;
                return new Result(Outcome.REFUSED, null);
            }
        }
    }

    private void record(
            boolean recorded,
            boolean write,
            byte[] key,
            byte[] value,
            Reply reply,
            long invoke,
            long now) {
        if (write) {
            tally.okWrites++;
            if (recorded) {
                log.completed(id, HistoryRecorder.Op.SET, key, value, null, invoke, now);
            }
        } else {
            tally.okReads++;
            boolean found = reply.type() == Reply.Type.BULK;
            if (recorded) {
                log.completed(
                        id,
                        HistoryRecorder.Op.GET,
                        key,
                        found ? reply.bytes() : null,
                        found,
                        invoke,
                        now);
            }
        }
    }

    private Result unknown(
            boolean recorded,
            boolean write,
            HistoryRecorder.Op op,
            byte[] key,
            byte[] value,
            long invoke,
            long now) {
        if (write) {
            tally.pendingWrites++;
        } else {
            tally.pendingReads++;
        }
        if (recorded) {
            log.pending(id, op, key, value, invoke, now);
        }
        return new Result(Outcome.UNKNOWN, null);
    }

    /** Past {@code giveUp} with refusals only: records the operation as failed. */
    private boolean refusedTooLong(
            boolean recorded,
            HistoryRecorder.Op op,
            byte[] key,
            byte[] value,
            long invoke,
            long start,
            long giveUp) {
        long now = System.nanoTime();
        if (now < giveUp) {
            return false;
        }
        tally.failed++;
        if (recorded) {
            log.failed(id, op, key, value, invoke == Long.MIN_VALUE ? start : invoke, now);
        }
        return true;
    }

    /** The node a MOVED or ASK names, or the shard's next member if it names no listed node. */
    private int nodeNamed(Reply reply, int shard, int node) {
        String[] words = reply.text().split(" ");
        if (words.length == 3) {
            List<ClusterNode> nodes = options.nodes();
            for (int i = 0; i < nodes.size(); i++) {
                if (nodes.get(i).address().equals(words[2])) {
                    return i;
                }
            }
        }
        tally.saw("redirect to an unlisted node");
        return next(shard, node);
    }

    private int next(int shard, int node) {
        List<Integer> members = keys.members(shard);
        int at = members.indexOf(node);
        return members.get((at + 1) % members.size());
    }

    private RespLink link(int node) throws IOException {
        if (links[node] == null) {
            links[node] =
                    RespLink.open(
                            addresses.get(node), options.replyTimeout(), options.replyTimeout());
        }
        return links[node];
    }

    /** After a timeout or a failure its reply could still arrive: never reuse the connection. */
    private void drop(int node) {
        if (links[node] != null) {
            links[node].close();
            links[node] = null;
        }
    }

    void closeAll() {
        for (int i = 0; i < links.length; i++) {
            drop(i);
        }
    }

    private static void sleep(long ms) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms));
    }
}
