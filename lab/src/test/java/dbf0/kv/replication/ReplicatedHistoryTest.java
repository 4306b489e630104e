package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.cli.Dbf0;
import dbf0.common.cli.Cli;
import dbf0.kv.check.HistoryRecorder;
import dbf0.kv.server.cluster.RawResp;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Histories recorded against a shard of three and judged by {@code dbf0 check}: reads on the
 * leader, by ReadIndex or under a lease, are linearizable; a READONLY read on a follower may be
 * stale, and the checker says so.
 */
@Tag("slow") // Raft servers and elections
@Timeout(240)
class ReplicatedHistoryTest {

    @TempDir Path dir;

    /**
     * A write on the leader, then a READONLY read of the same key on a follower, until a read
     * misses the write it follows: a follower applies an entry only once it hears that the entry is
     * committed, with the leader's next message, so the first reads after a write find the old
     * value. Bounded at 300 rounds; the test fails if none is stale.
     */
    @Test
    void aStaleFollowerReadMakesTheHistoryNotLinearizable() throws Exception {
        Path h = dir.resolve("stale.jsonl");
        try (LocalShards cluster = new LocalShards(3, 2, dir.resolve("nodes"));
                HistoryRecorder recorder = HistoryRecorder.open(h, 10_000)) {
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
            HistoryRecorder.Log log = recorder.log();
            byte[] key = bytes("k");
            boolean stale = false;
            try (RawResp w = new RawResp(cluster.ports.get(leader));
                    RawResp r = new RawResp(cluster.ports.get((leader + 1) % 3))) {
                assertThat(r.call("READONLY")).isEqualTo("+OK\r\n");
                for (int i = 1; i <= 300 && !stale; i++) {
                    String value = "v" + i;
                    log.admit();
                    long t0 = System.nanoTime();
                    assertThat(w.call("SET", "k", value)).isEqualTo("+OK\r\n");
                    long t1 = System.nanoTime();
                    log.completed(0, HistoryRecorder.Op.SET, key, bytes(value), null, t0, t1);
                    log.admit();
                    long t2 = System.nanoTime();
                    String read = bulk(r.call("GET", "k"));
                    long t3 = System.nanoTime();
                    log.completed(
                            1,
                            HistoryRecorder.Op.GET,
                            key,
                            read == null ? null : bytes(read),
                            read != null,
                            t2,
                            t3);
                    stale = !value.equals(read);
                }
            }
            recorder.finish();
            assertThat(stale).as("a follower read that missed the write before it").isTrue();
        }
        StringWriter out = new StringWriter();
        assertThat(check(h, out)).isEqualTo(1);
        assertThat(out.toString()).contains("stale.jsonl: NOT LINEARIZABLE");
    }

    /**
     * Two writers and two readers on the leader, 150 operations each over three keys: the history
     * checks linearizable under either read mode.
     */
    @ParameterizedTest
    @EnumSource(RaftOptions.ReadMode.class)
    void leaderReadsAreLinearizable(RaftOptions.ReadMode mode) throws Exception {
        Path h = dir.resolve(mode + ".jsonl");
        try (LocalShards cluster =
                        new LocalShards(
                                3,
                                2,
                                dir.resolve("nodes"),
                                o -> LocalShards.PATIENT.apply(o).withReads(mode));
                HistoryRecorder recorder = HistoryRecorder.open(h, 10_000)) {
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(20));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> clients = new ArrayList<>();
                for (int c = 0; c < 4; c++) {
                    int client = c;
                    HistoryRecorder.Log log = recorder.log();
                    clients.add(
                            pool.submit(
                                    () -> {
                                        run(cluster.ports.get(leader), client, log);
                                        return null;
                                    }));
                }
                for (Future<?> f : clients) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(recorder.finish().operations()).isEqualTo(600);
        }
        StringWriter out = new StringWriter();
        assertThat(check(h, out)).as(out.toString()).isZero();
        assertThat(out.toString()).contains(": linearizable (600 ops, 3 partitions");
    }

    /** Clients 0 and 1 write unique values, 2 and 3 read; an error is recorded as pending. */
    private static void run(int port, int client, HistoryRecorder.Log log) throws IOException {
        try (RawResp c = new RawResp(port)) {
            for (int i = 0; i < 150; i++) {
                byte[] key = bytes("k" + i % 3);
                boolean writes = client < 2;
                String value = "c" + client + "-" + i;
                log.admit();
                long t0 = System.nanoTime();
                String reply =
                        writes ? c.call("SET", "k" + i % 3, value) : c.call("GET", "k" + i % 3);
                long t1 = System.nanoTime();
                HistoryRecorder.Op op = writes ? HistoryRecorder.Op.SET : HistoryRecorder.Op.GET;
                if (reply.startsWith("-")) {
                    log.pending(client, op, key, writes ? bytes(value) : null, t0, t1);
                } else if (writes) {
                    log.completed(client, op, key, bytes(value), null, t0, t1);
                } else {
                    String read = bulk(reply);
                    log.completed(
                            client,
                            op,
                            key,
                            read == null ? null : bytes(read),
                            read != null,
                            t0,
                            t1);
                }
            }
        }
    }

    private static int check(Path history, StringWriter out) {
        var cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        return cl.execute("check", history.toString());
    }

    /** A bulk reply's text, or null for a null bulk. */
    private static String bulk(String raw) {
        if (raw.startsWith("$-1")) {
            return null;
        }
        assertThat(raw).startsWith("$");
        return raw.substring(raw.indexOf("\r\n") + 2, raw.length() - 2);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
