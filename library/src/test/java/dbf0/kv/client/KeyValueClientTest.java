package dbf0.kv.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.protocol.Request;
import dbf0.kv.protocol.Response;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapBackends;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The public v2 client against a real server, on every server model. */
@Timeout(60)
class KeyValueClientTest {

    static KeyValueServer start(ServerModel model, ServerOptions base) throws Exception {
        KeyValueServer server =
                new KeyValueServer(
                        base.withModel(model).withThreads(2), MapBackends.create("concurrent"));
        server.start();
        return server;
    }

    static ByteArrayWrapper bytes(String s) {
        return new ByteArrayWrapper(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void blockingCallsRoundTrip(ServerModel model) throws Exception {
        try (KeyValueServer server = start(model, ServerOptions.defaults());
                KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
            client.ping();
            assertThat(client.get(bytes("k"))).isNull();
            client.set(bytes("k"), bytes("v"));
            assertThat(client.get(bytes("k"))).isEqualTo(bytes("v"));
            ByteArrayWrapper big =
                    new ByteArrayWrapper(new byte[200_000]); // far beyond v1's 127 bytes
            client.set(bytes("big"), big);
            assertThat(client.get(bytes("big"))).isEqualTo(big);
            assertThat(client.delete(bytes("k"))).isTrue();
            assertThat(client.delete(bytes("k"))).isFalse();
            List<Response> replies =
                    client.batch(
                            List.of(
                                    new Request.Set(bytes("a"), bytes("1")),
                                    new Request.Get(bytes("a")),
                                    new Request.Get(bytes("nope")),
                                    new Request.Delete(bytes("a"))));
            assertThat(replies)
                    .containsExactly(
                            new Response.Ok(),
                            new Response.Value(bytes("1")),
                            new Response.NotFound(),
                            new Response.Ok());
            assertThat(server.size()).isEqualTo(1); // "big"
        }
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void pipelinedRequestsAllCompleteInOrder(ServerModel model) throws Exception {
        try (KeyValueServer server = start(model, ServerOptions.defaults());
                KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
            List<CompletableFuture<Void>> sets = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                sets.add(client.setAsync(bytes("key" + i), bytes("value" + i)));
            }
            List<CompletableFuture<ByteArrayWrapper>> gets = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) {
                gets.add(client.getAsync(bytes("key" + i)));
            }
            CompletableFuture.allOf(sets.toArray(CompletableFuture[]::new)).get();
            for (int i = 0; i < 5_000; i++) {
                assertThat(gets.get(i).get()).isEqualTo(bytes("value" + i));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void errorReplyFailsOneRequestAndTheConnectionGoesOn(ServerModel model) throws Exception {
        ProtocolLimits small = new ProtocolLimits(8, 64, 1024, 10);
        try (KeyValueServer server = start(model, ServerOptions.defaults().withLimits(small));
                KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
            assertThatThrownBy(() -> client.set(bytes("a key longer than eight bytes"), bytes("v")))
                    .isInstanceOf(ServerErrorException.class)
                    .hasMessageContaining("limit");
            client.set(bytes("short"), bytes("v"));
            assertThat(client.get(bytes("short"))).isEqualTo(bytes("v"));
        }
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void oversizedFrameClosesTheConnectionAndFailsWaitingRequests(ServerModel model)
            throws Exception {
        ProtocolLimits tiny = new ProtocolLimits(8, 64, 128, 10);
        try (KeyValueServer server = start(model, ServerOptions.defaults().withLimits(tiny));
                KeyValueClient client = KeyValueClient.connect(server.getLocalAddress())) {
            // The frame is over the server's frame limit: an error reply, then the server closes.
            assertThatThrownBy(() -> client.set(bytes("k"), new ByteArrayWrapper(new byte[1000])))
                    .isInstanceOf(java.io.IOException.class);
            assertThatThrownBy(() -> client.get(bytes("k")))
                    .isInstanceOf(ConnectionClosedException.class);
            try (KeyValueClient other = KeyValueClient.connect(server.getLocalAddress())) {
                other.set(bytes("k"), bytes("fine")); // everybody else is still served
                assertThat(other.get(bytes("k"))).isEqualTo(bytes("fine"));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void clientRefusesOverLimitRequestsBeforeSending(ServerModel model) throws Exception {
        try (KeyValueServer server = start(model, ServerOptions.defaults());
                KeyValueClient client =
                        KeyValueClient.connect(
                                server.getLocalAddress(),
                                new ProtocolLimits(4, 4, 64, 4),
                                Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> client.set(bytes("too long"), bytes("v")))
                    .isInstanceOf(IllegalArgumentException.class);
            client.set(bytes("ok"), bytes("v")); // nothing was sent, the stream is in step
            assertThat(client.get(bytes("ok"))).isEqualTo(bytes("v"));
        }
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void concurrentClientsLoseNoAcknowledgedWrite(ServerModel model) throws Exception {
        int clients = 8;
        int keysEach = 2_000;
        try (KeyValueServer server = start(model, ServerOptions.defaults())) {
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int id = c;
                done.add(
                        pool.submit(
                                () -> {
                                    try (KeyValueClient client =
                                            KeyValueClient.connect(server.getLocalAddress())) {
                                        List<CompletableFuture<Void>> acks = new ArrayList<>();
                                        for (int i = 0; i < keysEach; i++) {
                                            acks.add(
                                                    client.setAsync(
                                                            bytes(id + ":" + i), bytes("v" + i)));
                                        }
                                        CompletableFuture.allOf(
                                                        acks.toArray(CompletableFuture[]::new))
                                                .get();
                                    }
                                    return null;
                                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
            try (KeyValueClient reader = KeyValueClient.connect(server.getLocalAddress())) {
                for (int c = 0; c < clients; c++) {
                    for (int i = 0; i < keysEach; i++) {
                        assertThat(reader.get(bytes(c + ":" + i))).isEqualTo(bytes("v" + i));
                    }
                }
            }
            assertThat(server.size()).isEqualTo(clients * keysEach);
        }
    }

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void closingTheClientFailsNothingAlreadyAnsweredAndRefusesMore(ServerModel model)
            throws Exception {
        try (KeyValueServer server = start(model, ServerOptions.defaults())) {
            KeyValueClient client = KeyValueClient.connect(server.getLocalAddress());
            client.set(bytes("k"), bytes("v"));
            client.close();
            assertThatThrownBy(() -> client.get(bytes("k")))
                    .isInstanceOf(ConnectionClosedException.class);
        }
    }
}
