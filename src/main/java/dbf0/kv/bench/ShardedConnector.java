package dbf0.kv.bench;

import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.client.SlotPlacement;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.protocol.V2Codec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A connector over several servers (`--connect a,b,c`, or one server with `--sharded-client`): one
 * persistent v2 connection to each, every key sent to the server {@link
 * ShardedKeyValueClient#shardFor(ByteArrayWrapper, int)} places it on. It keeps {@code window}
 * frames in flight as {@link V2Connector} does (persistent: 1 op; pipelined: a window of single
 * ops; batched: frames of {@code batchSize} ops). A frame whose operations live on several servers
 * is split into one part per server, each keeping the frame's relative order, and the parts go out
 * together.
 *
 * <p>Like {@link V2Connector}, and unlike the library client ({@link LibraryConnector}), it writes
 * and reads on its own thread, with no future and no reader thread: a part's reply is the next
 * reply on its server's connection, since each connection answers in order. A frame completes when
 * every part's reply is in; its latency runs from its send to then, once per operation. So with one
 * server it costs what {@link V2Connector} costs plus the placement (trivial for one server) and
 * the split's bookkeeping: that difference is the sharding's own cost.
 *
 * <p>With {@code --cluster} keys are placed by the slot map learned at the start. A MOVED reply
 * (the map changed during the run) counts as an error here; the library client ({@code
 * --library-client}) follows it instead.
 */
final class ShardedConnector extends BaseConnector {

    private final List<InetSocketAddress> servers;
    private final FrameSource frames;
    private final int window;
    private final int batchSize;
    private final int shards;

    /** The cluster's slot map ({@code --cluster}), or null to place keys by jump hash. */
    private final SlotPlacement slots;

    private final ProtocolLimits limits = ProtocolLimits.DEFAULTS;

    // In-flight frames, oldest first, in a ring of `window` slots: when each was sent, and the
    // kinds of its part on each server (null: no part there).
    private final long[] sentAt;
    private final byte[][][] partKinds;
    private int oldest;
    private int inFlight;
    // per frame, reused: which server each operation goes to, and the parts' sizes
    private int[] shardOf = new int[16];
    private final int[] counts;
    // per server, for the frame being read
    private final DecodeResult.Complete<Response>[] results;

    ShardedConnector(
            String name,
            List<InetSocketAddress> servers,
            SlotPlacement slots,
            FrameSource frames,
            V2Load load) {
        super(servers.get(0), name);
        this.slots = slots;
        this.servers = List.copyOf(servers);
        this.frames = frames;
        this.window = load.window();
        this.batchSize = load.batchSize();
        this.shards = this.servers.size();
        this.sentAt = new long[window];
        this.partKinds = new byte[window][shards][];
        this.counts = new int[shards];
        @SuppressWarnings("unchecked")
        DecodeResult.Complete<Response>[] perServer =
                (DecodeResult.Complete<Response>[]) new DecodeResult.Complete<?>[shards];
        this.results = perServer;
    }

    @Override
    public void run() {
        Socket[] sockets = new Socket[shards];
        try {
            OutputStream[] out = new OutputStream[shards];
            InputStream[] in = new InputStream[shards];
            for (int s = 0; s < shards; s++) {
                sockets[s] = new Socket();
                sockets[s].setTcpNoDelay(true);
                sockets[s].setSoTimeout(10_000);
                sockets[s].connect(servers.get(s), 10_000);
                out[s] = new BufferedOutputStream(sockets[s].getOutputStream(), 64 * 1024);
                in[s] = new BufferedInputStream(sockets[s].getInputStream(), 64 * 1024);
                V2Codec.writePreamble(out[s]);
            }
            while (!isStopped()) {
                while (inFlight < window && !isStopped()) {
                    send(out, frames.next(batchSize, false));
                }
                for (OutputStream o : out) {
                    o.flush();
                }
                // One frame at least, then every frame whose replies are already here, before
                // refilling.
                do {
                    receive(in);
                } while (inFlight > 0 && oldestBuffered(in));
            }
            while (inFlight > 0) {
                receive(in); // let the last replies arrive, so no server is reset mid-write
            }
        } catch (IOException | RuntimeException e) {
            if (!isStopped()) {
                countError(e);
            }
        } finally {
            for (Socket socket : sockets) {
                if (socket != null) {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // closing after the run; nothing to report
                    }
                }
            }
        }
    }

    private void send(OutputStream[] out, FrameSource.Frame frame) throws IOException {
        int slot = (oldest + inFlight) % window;
        byte[][] kindsByServer = partKinds[slot];
        Arrays.fill(kindsByServer, null);
        Request request = frame.request();
        if (shards == 1 && slots == null) { // one server: nothing to place or split
            V2Codec.writeRequest(out[0], request, limits);
            kindsByServer[0] = frame.kinds();
        } else if (request instanceof Request.Batch batch) {
            List<Request> ops = batch.ops();
            int only = place(ops);
            if (only >= 0) { // every operation on one server: the frame goes as it is
                V2Codec.writeRequest(out[only], request, limits);
                kindsByServer[only] = frame.kinds();
            } else {
                split(out, ops, frame.kinds(), kindsByServer);
            }
        } else {
            int s = shardOf(keyOf(request));
            V2Codec.writeRequest(out[s], request, limits);
            kindsByServer[s] = frame.kinds();
        }
        sentAt[slot] = System.nanoTime();
        inFlight++;
    }

    /** Fills {@code shardOf} and {@code counts}; returns the one server all ops go to, or -1. */
    private int place(List<Request> ops) {
        int n = ops.size();
        if (shardOf.length < n) {
            shardOf = new int[n];
        }
        Arrays.fill(counts, 0);
        int first = -1;
        boolean one = true;
        for (int i = 0; i < n; i++) {
            int s = shardOf(keyOf(ops.get(i)));
            shardOf[i] = s;
            counts[s]++;
            if (first < 0) {
                first = s;
            } else if (s != first) {
                one = false;
            }
        }
        return one ? Math.max(first, 0) : -1;
    }

    /** One batch per server that has operations, each in the frame's relative order. */
    private void split(OutputStream[] out, List<Request> ops, byte[] kinds, byte[][] kindsByServer)
            throws IOException {
        List<List<Request>> parts = new ArrayList<>(shards);
        for (int s = 0; s < shards; s++) {
            parts.add(new ArrayList<>(counts[s]));
            kindsByServer[s] = counts[s] == 0 ? null : new byte[counts[s]];
        }
        for (int i = 0; i < ops.size(); i++) {
            int s = shardOf[i];
            kindsByServer[s][parts.get(s).size()] = kinds[i];
            parts.get(s).add(ops.get(i));
        }
        for (int s = 0; s < shards; s++) {
            if (!parts.get(s).isEmpty()) {
                V2Codec.writeRequest(out[s], new Request.Batch(parts.get(s)), limits);
            }
        }
    }

    /** Whether every part of the oldest frame has reply bytes waiting: reading will not block. */
    private boolean oldestBuffered(InputStream[] in) throws IOException {
        byte[][] kindsByServer = partKinds[oldest];
        for (int s = 0; s < shards; s++) {
            if (kindsByServer[s] != null && in[s].available() == 0) {
                return false;
            }
        }
        return true;
    }

    /** Reads the oldest frame's parts, each the next reply on its server's connection; counts. */
    private void receive(InputStream[] in) throws IOException {
        byte[][] kindsByServer = partKinds[oldest];
        for (int s = 0; s < shards; s++) {
            results[s] = kindsByServer[s] == null ? null : V2Codec.readResponse(in[s], limits);
        }
        long now = System.nanoTime();
        long start = sentAt[oldest];
        oldest = (oldest + 1) % window;
        inFlight--;
        for (int s = 0; s < shards; s++) {
            if (results[s] != null) {
                countErrors(
                        FrameSource.account(
                                results[s],
                                kindsByServer[s],
                                start,
                                now,
                                getStats(),
                                getLatencies()));
            }
        }
    }

    /**
     * A key's server: by the slot map in cluster mode (computed even for a one-node cluster, so
     * that a run against one node measures the placement's cost), else by jump hash.
     */
    private int shardOf(ByteArrayWrapper key) {
        return slots == null
                ? ShardedKeyValueClient.shardFor(key, shards)
                : slots.nodeFor(key.getArray());
    }

    private static ByteArrayWrapper keyOf(Request op) {
        return switch (op) {
            case Request.Get g -> g.key();
            case Request.Set s -> s.key();
            case Request.Delete d -> d.key();
            default ->
                    throw new IllegalStateException("the workload makes GETs and SETs only: " + op);
        };
    }
}
