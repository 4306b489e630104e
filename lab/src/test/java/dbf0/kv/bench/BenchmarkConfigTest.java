package dbf0.kv.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.bench.KeyValueConnector.CloseOrder;
import dbf0.kv.server.ServerModel;
import dbf0.kv.workload.KeyDistribution;
import dbf0.kv.workload.KeyedWorkload;
import dbf0.kv.workload.YcsbWorkload;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchmarkConfigTest {

    private static final KeyedWorkload KEYED =
            new KeyedWorkload(
                    "A", 1000, KeyDistribution.of("zipfian"), YcsbWorkload.A.mix(), 9, 33);

    /** Every component set away from its default, so that one toBuilder() forgets shows up. */
    private static BenchmarkConfig everythingSet() {
        return BenchmarkConfig.builder()
                .serverThreads(3)
                .clientThreads(5)
                .mapType("skiplist")
                .keyLength(9)
                .valueLength(33)
                .setFraction(0.25)
                .duration(Duration.ofSeconds(7))
                .bindHost("0.0.0.0")
                .port(9001)
                .connectTo(new InetSocketAddress("127.0.0.1", 9002))
                .seed(11L)
                .serverModel(ServerModel.NIO)
                .clientMode(ClientMode.BATCHED)
                .closeOrder(CloseOrder.SERVER_FIRST)
                .pipeline(4)
                .batch(20)
                .warmup(Duration.ofMillis(300))
                .orderPreserving(true)
                .backlog(77)
                .clientThreadKind(ClientThreadKind.VIRTUAL)
                .selectorThreads(2)
                .keyed(KEYED)
                .shards(
                        List.of(
                                new InetSocketAddress("127.0.0.1", 9002),
                                new InetSocketAddress("127.0.0.1", 9003)))
                .libraryClient(true)
                .build();
    }

    @Test
    void toBuilderCarriesEveryComponent() {
        BenchmarkConfig config = everythingSet();
        assertThat(config.toBuilder().build()).isEqualTo(config);
        assertThat(config.v2Load()).isEqualTo(new V2Load(0.25, 4, 20));
        assertThat(config.withCloseOrder(CloseOrder.CLIENT_FIRST))
                .isEqualTo(
                        new BenchmarkConfig(
                                3,
                                5,
                                "skiplist",
                                9,
                                33,
                                0.25,
                                Duration.ofSeconds(7),
                                "0.0.0.0",
                                9001,
                                new InetSocketAddress("127.0.0.1", 9002),
                                11L,
                                ServerModel.NIO,
                                ClientMode.BATCHED,
                                CloseOrder.CLIENT_FIRST,
                                4,
                                20,
                                Duration.ofMillis(300),
                                true,
                                77,
                                ClientThreadKind.VIRTUAL,
                                2,
                                KEYED,
                                List.of(
                                        new InetSocketAddress("127.0.0.1", 9002),
                                        new InetSocketAddress("127.0.0.1", 9003)),
                                true,
                                null));
    }

    @Test
    void localIsTheSeedsRun() {
        BenchmarkConfig config =
                BenchmarkConfig.local(4, 8, "concurrent", 16, 64, 0.1, Duration.ofSeconds(10));
        assertThat(config.bindHost()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isZero();
        assertThat(config.connectTo()).isNull();
        assertThat(config.serverModel()).isEqualTo(ServerModel.POOL);
        assertThat(config.clientMode()).isEqualTo(ClientMode.PER_OP);
        assertThat(config.closeOrder()).isEqualTo(CloseOrder.CLIENT_FIRST);
        assertThat(config.backlog()).isEqualTo(50);
        assertThat(config.clientThreadKind()).isEqualTo(ClientThreadKind.PLATFORM);
        assertThat(config.selectorThreads()).isZero();
        assertThat(config.window()).isEqualTo(1);
        assertThat(config.frameOps()).isEqualTo(1);
        assertThat(config.keyed()).isNull();
    }
}
