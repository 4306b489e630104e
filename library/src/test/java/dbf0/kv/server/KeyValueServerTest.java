package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapBackends;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;

@Timeout(60)
class KeyValueServerTest {

    static KeyValueServer start(String map, int threads) throws Exception {
        return start(map, threads, ServerModel.POOL);
    }

    static KeyValueServer start(String map, int threads, ServerModel model) throws Exception {
        KeyValueServer server =
                new KeyValueServer(
                        ServerOptions.defaults().withModel(model).withThreads(threads),
                        MapBackends.create(map));
        server.start();
        return server;
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments>
            backendsAndModels() {
        return java.util.stream.Stream.of(
                        "hashmap",
                        "hashtable",
                        "synchronized",
                        "concurrent",
                        "skiplist",
                        "java.util.TreeMap")
                .flatMap(
                        map ->
                                java.util.Arrays.stream(ServerModel.values())
                                        .map(
                                                model ->
                                                        org.junit.jupiter.params.provider.Arguments
                                                                .of(map, model)));
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("backendsAndModels")
    void roundTripsOnEveryBackendAndModel(String map, ServerModel model) throws Exception {
        for (int threads : new int[] {1, 4}) {
            try (KeyValueServer server = start(map, threads, model)) {
                InetSocketAddress address = server.getLocalAddress();
                assertThat(V1.get(address, ByteArrayWrapper.of(1, 2))).isNull();
                V1.set(address, ByteArrayWrapper.of(1, 2), ByteArrayWrapper.of(0xaa));
                assertThat(V1.get(address, ByteArrayWrapper.of(1, 2)))
                        .isEqualTo(ByteArrayWrapper.of(0xaa));
                V1.set(
                        address,
                        ByteArrayWrapper.of(1, 2),
                        ByteArrayWrapper.of()); // overwrite with empty
                assertThat(V1.get(address, ByteArrayWrapper.of(1, 2)))
                        .isEqualTo(ByteArrayWrapper.of());
                V1.set(
                        address,
                        ByteArrayWrapper.of(),
                        new ByteArrayWrapper(new byte[127])); // empty key, max value
                assertThat(V1.get(address, ByteArrayWrapper.of()))
                        .isEqualTo(new ByteArrayWrapper(new byte[127]));
                assertThat(server.size()).isEqualTo(2);
                assertThat(server.getConnectionsFailed()).isZero();
            }
        }
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments>
            safeMapsAndModels() {
        return java.util.stream.Stream.of("concurrent", "hashtable")
                .flatMap(
                        map ->
                                java.util.Arrays.stream(ServerModel.values())
                                        .map(
                                                model ->
                                                        org.junit.jupiter.params.provider.Arguments
                                                                .of(map, model)));
    }

    @Tag("slow") // about 2 s per case, 12 s in all
    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("safeMapsAndModels")
    void manyConcurrentClientsLoseNothing(String map, ServerModel model) throws Exception {
        // Every connection is a fresh TCP connection in v1, so the test is sized in connections
        // (16 x (150 SETs + 4 x 150 GETs) = 12,000), not to flood TIME_WAIT on a slow CI machine.
        int clients = 16;
        int keysEach = 150;
        int readersPerKey = 4;
        try (KeyValueServer server = start(map, 4, model)) {
            InetSocketAddress address = server.getLocalAddress();
            CyclicBarrier allWritten = new CyclicBarrier(clients);
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<Long>> missing = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                missing.add(
                        pool.submit(
                                () -> {
                                    for (int i = 0; i < keysEach; i++) {
                                        V1.set(
                                                address,
                                                ByteArrayWrapper.of(client, i >> 8, i),
                                                ByteArrayWrapper.of(i, client));
                                    }
                                    allWritten.await();
                                    long misses = 0;
                                    // Read our own keys and the next three clients' keys: every key
                                    // is read by four
                                    // clients, three of which did not write it.
                                    for (int k = 0; k < readersPerKey; k++) {
                                        int other = (client + k) % clients;
                                        for (int i = 0; i < keysEach; i++) {
                                            ByteArrayWrapper v =
                                                    V1.get(
                                                            address,
                                                            ByteArrayWrapper.of(other, i >> 8, i));
                                            if (!ByteArrayWrapper.of(i, other).equals(v)) {
                                                misses++;
                                            }
                                        }
                                    }
                                    return misses;
                                }));
            }
            long total = 0;
            for (Future<Long> f : missing) {
                total += f.get();
            }
            pool.shutdown();
            assertThat(total).as("missing or wrong keys").isZero();
            assertThat(server.size()).isEqualTo(clients * keysEach);
        }
    }

    @Test
    void sizeCountsDistinctKeys() throws Exception {
        try (KeyValueServer server = start("concurrent", 2)) {
            for (int i = 0; i < 10; i++) {
                V1.set(
                        server.getLocalAddress(),
                        ByteArrayWrapper.of(i % 3),
                        ByteArrayWrapper.of(i));
            }
            assertThat(server.size()).isEqualTo(3);
        }
    }
}
