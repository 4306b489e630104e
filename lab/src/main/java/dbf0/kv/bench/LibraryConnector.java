package dbf0.kv.bench;

import dbf0.base.client.BaseConnector;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.ServerErrorException;
import dbf0.kv.client.ShardedKeyValueClient;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A connector over the library's {@link ShardedKeyValueClient} ({@code --library-client}): one
 * connection to each server, every key sent to the server it lives on. It keeps {@code window}
 * frames in flight the way {@link V2Connector} does (persistent: 1 op; pipelined: a window of
 * single ops; batched: frames of {@code batchSize} ops, each split by server and put back together
 * by the client).
 *
 * <p>It goes through the library client rather than raw sockets, so against {@link
 * ShardedConnector} it measures what the library's design costs: a future per frame, and every
 * reply handed from a reader thread per connection to this one. A frame's latency runs from its
 * send to the moment this thread sees it complete; frames are awaited oldest first, as replies on
 * one connection arrive.
 */
final class LibraryConnector extends BaseConnector {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private record InFlight(
            long sentAt, FrameSource.Frame frame, CompletableFuture<List<Response>> replies) {}

    private final List<InetSocketAddress> servers;
    private final FrameSource frames;
    private final V2Load load;

    /** Whether to join {@code servers.get(0)}'s cluster, learning its slot map, following MOVED. */
    private final boolean cluster;

    /** {@code frames}: the seed's random GET/SET or a keyed workload's operations. */
    LibraryConnector(
            String name,
            List<InetSocketAddress> servers,
            FrameSource frames,
            V2Load load,
            boolean cluster) {
        super(servers.get(0), name);
        this.servers = List.copyOf(servers);
        this.cluster = cluster;
        this.frames = frames;
        this.load = load;
    }

    @Override
    public void run() {
        ArrayDeque<InFlight> inFlight = new ArrayDeque<>(load.window());
        try (ShardedKeyValueClient client =
                cluster
                        ? ShardedKeyValueClient.connectCluster(
                                servers.get(0), ProtocolLimits.DEFAULTS, TIMEOUT)
                        : ShardedKeyValueClient.connect(
                                servers, ProtocolLimits.DEFAULTS, TIMEOUT)) {
            while (!isStopped()) {
                while (inFlight.size() < load.window() && !isStopped()) {
                    inFlight.add(send(client));
                }
                if (!inFlight.isEmpty()) {
                    receive(inFlight.poll());
                }
            }
            while (!inFlight.isEmpty()) {
                receive(inFlight.poll()); // let the last replies arrive before the connections
                // close
            }
        } catch (Exception e) {
            if (!isStopped()) {
                countError(e);
            }
        }
    }

    private InFlight send(ShardedKeyValueClient client) {
        long now = System.nanoTime();
        FrameSource.Frame frame = frames.next(load.batchSize(), false);
        CompletableFuture<List<Response>> reply =
                switch (frame.request()) {
                    case Request.Batch batch -> client.batchAsync(batch.ops());
                    case Request.Set set ->
                            client.setAsync(set.key(), set.value())
                                    .thenApply(v -> List.of(new Response.Ok()));
                    case Request.Get get ->
                            client.getAsync(get.key()).thenApply(LibraryConnector::getReply);
                    case Request other ->
                            throw new IllegalStateException(
                                    "the workloads make GETs and SETs only, not " + other);
                };
        return new InFlight(now, frame, reply);
    }

    private static List<Response> getReply(ByteArrayWrapper value) {
        return List.of(value == null ? new Response.NotFound() : new Response.Value(value));
    }

    /**
     * Waits for one frame; a frame the server refused counts one error, an ERROR reply inside a
     * batch one each. A closed connection or a missing reply ends the connector, as it ends a
     * {@link V2Connector}: going on would only count the same failure once per frame.
     */
    private void receive(InFlight frame) throws Exception {
        List<Response> replies;
        try {
            replies = frame.replies().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof ServerErrorException)) {
                throw e;
            }
            countError(e);
            return;
        }
        long now = System.nanoTime();
        // counted as V2Connector counts a reply frame: by what each operation asked
        Response reply =
                frame.frame().request() instanceof Request.Batch
                        ? new Response.Batch(replies)
                        : replies.get(0);
        countErrors(
                FrameSource.account(
                        new DecodeResult.Frame<>(reply),
                        frame.frame().kinds(),
                        frame.sentAt(),
                        now,
                        getStats(),
                        getLatencies()));
    }
}
