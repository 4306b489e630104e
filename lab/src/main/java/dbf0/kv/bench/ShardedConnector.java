package dbf0.kv.bench;

import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.client.SlotPlacement;
import dbf0.kv.protocol.ProtocolLimits;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
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
 * every part's reply is in; its latency runs from its send to then, once per operation. It makes no
 * object per operation either: operations are encoded straight into their server's part ({@link
 * FrameSplitter}) and replies counted where they lie ({@link ReplyTypes}). So with one server it
 * costs what {@link V2Connector} costs plus the placement (trivial for one server) and the split's
 * bookkeeping: that difference is the sharding's own cost.
 *
 * <p>With {@code --cluster} keys are placed by the cluster's slot map (CRC16 of the key, then a
 * table), computed even for a one-node cluster, so that such a run measures the routing's cost. A
 * part answered MOVED (its slot moved during the run; nothing of it was applied) makes the
 * connector learn the map again from the node that answered, then resend the part's operations,
 * re-split by the new map, as a new frame with the old one's start time. Each such reply is counted
 * as a redirect; a part redirected more than {@value #MAX_REDIRECTS} times in a row counts as
 * errors instead.
 *
 * <p>Memory: per server, a connection ({@link ShardLink}); per in-flight frame and server, a part
 * grown to the largest part it held (at most the frame limit).
 */
final class ShardedConnector extends BaseConnector {

    /** How many MOVED replies in a row one operation follows before it counts as an error. */
    static final int MAX_REDIRECTS = 5;

    private static final Duration MAP_TIMEOUT = Duration.ofSeconds(10);

    private final List<InetSocketAddress> servers;
    private final FrameSource frames;
    private final int window;
    private final int batchSize;
    private final boolean cluster;
    private final ProtocolLimits limits = ProtocolLimits.DEFAULTS;
    private final FrameSplitter.Placer placer = this::place;

    /** The cluster's slot map ({@code --cluster}), or null to place keys by jump hash. */
    private SlotPlacement slots;

    /** Which link serves each of the slot map's nodes (cluster mode). */
    private int[] linkOf = new int[0];

    /** How many maps this connector has learned: a frame sent with an older one need not ask. */
    private int mapVersion;

    private ShardLink[] links = new ShardLink[0];

    // In-flight frames, oldest first, in a ring of `window` slots: each one's parts (one per
    // link, empty where the frame has no operation), when it was sent, with which map, and how
    // many times it was redirected. One spare set of parts to build a resent frame in.
    private FramePart[][] parts;
    private FramePart[] spare = new FramePart[0];
    private final long[] sentAt;
    private final int[] sentWithMap;
    private final int[] redirectsOf;
    private int oldest;
    private int inFlight;

    ShardedConnector(
            String name,
            List<InetSocketAddress> servers,
            SlotPlacement slots,
            FrameSource frames,
            V2Load load) {
        super(servers.get(0), name);
        this.slots = slots;
        this.cluster = slots != null;
        this.servers = List.copyOf(servers);
        this.frames = frames;
        this.window = load.window();
        this.batchSize = load.batchSize();
        this.sentAt = new long[window];
        this.sentWithMap = new int[window];
        this.redirectsOf = new int[window];
        this.parts = new FramePart[window][0];
    }

    @Override
    public void run() {
        try {
            for (InetSocketAddress server : servers) {
                link(server);
            }
            if (cluster) {
                linkOf = linksFor(slots);
            }
            while (!isStopped()) {
                while (inFlight < window && !isStopped()) {
                    send();
                }
                for (ShardLink link : links) {
                    link.flush();
                }
                // One frame at least, then every frame whose replies are already here, before
                // refilling.
                do {
                    receive();
                } while (inFlight > 0 && oldestBuffered());
            }
            while (inFlight > 0) {
                receive(); // let the last replies arrive, so no server is reset mid-write
            }
        } catch (IOException | RuntimeException e) {
            if (!isStopped()) {
                countError(e);
            }
        } finally {
            for (ShardLink link : links) {
                try {
                    link.close();
                } catch (IOException ignored) {
                    // closing after the run; nothing to report
                }
            }
        }
    }

    /** The next frame, split by server, each part written to its server's connection. */
    private void send() throws IOException {
        int slot = (oldest + inFlight) % window;
        FramePart[] frame = parts[slot];
        for (FramePart part : frame) {
            part.clear();
        }
        FrameSplitter.next(frames, batchSize, frame, placer);
        write(frame);
        sentAt[slot] = System.nanoTime();
        sentWithMap[slot] = mapVersion;
        redirectsOf[slot] = 0;
        inFlight++;
    }

    private void write(FramePart[] frame) throws IOException {
        for (int s = 0; s < frame.length; s++) {
            if (!frame[s].isEmpty()) {
                frame[s].finish(limits);
                links[s].send(frame[s]);
            }
        }
    }

    /**
     * A key's server: by the slot map in cluster mode, else by jump hash over the servers given
     * (one server needs no hash).
     */
    private int place(byte[] key) {
        if (cluster) {
            return linkOf[slots.nodeFor(key)];
        }
        int n = links.length;
        return n == 1 ? 0 : ShardedKeyValueClient.jumpHash(ShardedKeyValueClient.hashKey(key), n);
    }

    /** Whether every part of the oldest frame has reply bytes waiting: reading will not block. */
    private boolean oldestBuffered() {
        FramePart[] frame = parts[oldest];
        for (int s = 0; s < frame.length; s++) {
            if (!frame[s].isEmpty() && links[s].buffered() == 0) {
                return false;
            }
        }
        return true;
    }

    /** Reads the oldest frame's parts, each the next reply on its server's connection; counts. */
    private void receive() throws IOException {
        int entry = oldest;
        FramePart[] frame = parts[entry];
        boolean anyMoved = false;
        for (int s = 0; s < frame.length; s++) {
            if (!frame[s].isEmpty()) {
                links[s].read(cluster);
                anyMoved |= links[s].moved();
            }
        }
        long now = System.nanoTime();
        long start = sentAt[entry];
        oldest = (oldest + 1) % window;
        inFlight--;
        for (int s = 0; s < frame.length; s++) {
            FramePart part = frame[s];
            if (!part.isEmpty() && !links[s].moved()) {
                countErrors(
                        FrameSource.account(
                                links[s].replies(),
                                links[s].wellFormed(),
                                part.kinds(),
                                part.count(),
                                start,
                                now,
                                getStats(),
                                getLatencies()));
            }
        }
        if (anyMoved) {
            redirect(frame, start, sentWithMap[entry], redirectsOf[entry]);
        }
    }

    /**
     * Resends the parts of a frame (now out of the window) that were answered MOVED, as one new
     * frame: the map learned again first, unless it was already learned since the frame was sent.
     */
    private void redirect(FramePart[] frame, long start, int sentWith, int redirects)
            throws IOException {
        int n = frame.length;
        boolean[] moved = new boolean[n];
        InetSocketAddress asked = null;
        for (int s = 0; s < n; s++) {
            moved[s] = !frame[s].isEmpty() && links[s].moved();
            if (moved[s]) {
                getStats().countRedirect();
                asked = asked == null ? links[s].address() : asked;
                if (redirects >= MAX_REDIRECTS) {
                    countErrors(frame[s].count());
                }
            }
        }
        if (redirects >= MAX_REDIRECTS) {
            return;
        }
        if (sentWith == mapVersion) { // the node that said MOVED knows the slot's new owner
            slots = SlotPlacement.fetch(asked, limits, MAP_TIMEOUT);
            linkOf = linksFor(slots); // may open links, which grows every set of parts
            mapVersion++;
        }
        FramePart[] fresh = spare;
        for (FramePart part : fresh) {
            part.clear();
        }
        for (int s = 0; s < n; s++) {
            if (moved[s]) {
                FrameSplitter.resplit(frame[s], fresh, placer);
            }
        }
        write(fresh);
        for (ShardLink link : links) {
            link.flush();
        }
        int slot = (oldest + inFlight) % window; // the slot the answered frame left free
        spare = parts[slot];
        parts[slot] = fresh;
        sentAt[slot] = start; // the operations' latency runs from their first send
        sentWithMap[slot] = mapVersion;
        redirectsOf[slot] = redirects + 1;
        inFlight++;
    }

    /** The link of each node of {@code placement}, connecting to nodes not yet linked. */
    private int[] linksFor(SlotPlacement placement) throws IOException {
        List<InetSocketAddress> nodes = placement.nodes();
        int[] of = new int[nodes.size()];
        for (int i = 0; i < of.length; i++) {
            of[i] = indexOf(nodes.get(i));
            if (of[i] < 0) {
                of[i] = link(nodes.get(i));
            }
        }
        return of;
    }

    private int indexOf(InetSocketAddress address) {
        for (int s = 0; s < links.length; s++) {
            if (links[s].address().equals(address)) {
                return s;
            }
        }
        return -1;
    }

    /** Connects to one more server, and gives every set of parts a part for it. */
    private int link(InetSocketAddress address) throws IOException {
        int s = links.length;
        ShardLink link = new ShardLink(address, limits);
        links = Arrays.copyOf(links, s + 1);
        links[s] = link;
        for (int slot = 0; slot < window; slot++) {
            parts[slot] = grown(parts[slot]);
        }
        spare = grown(spare);
        return s;
    }

    private static FramePart[] grown(FramePart[] set) {
        FramePart[] bigger = Arrays.copyOf(set, set.length + 1);
        bigger[set.length] = new FramePart();
        return bigger;
    }
}
