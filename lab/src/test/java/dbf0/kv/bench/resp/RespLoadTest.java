package dbf0.kv.bench.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dbf0.common.cli.Cli;
import dbf0.kv.protocol.DecodeResult;
import dbf0.kv.protocol.RespCodec;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code dbf0 resp-load}: the bytes it sends, the replies it reads, and a run against dbf0. */
@Timeout(60)
class RespLoadTest {

    private static List<String> words(DecodeResult<List<byte[]>> parsed) {
        assertThat(parsed).isInstanceOf(DecodeResult.Frame.class);
        List<String> words = new ArrayList<>();
        for (byte[] w : ((DecodeResult.Frame<List<byte[]>>) parsed).value()) {
            words.add(new String(w, StandardCharsets.US_ASCII));
        }
        return words;
    }

    @Test
    void aBatchIsPipelineSetsEachFollowedByWaitAsAServerParsesThem() throws Exception {
        LoadRequests requests =
                new LoadRequests(
                        LoadRequests.Operation.SET, 3, 1_000, 5, 1, new SplittableRandom(7));
        ByteBuffer batch = requests.next();
        assertThat(requests.repliesPerOperation()).isEqualTo(2);
        for (int i = 0; i < 3; i++) {
            List<String> set = words(RespCodec.parse(batch, 10, 1 << 20, 1 << 10));
            assertThat(set.get(0)).isEqualTo("SET");
            assertThat(set.get(1)).matches("key:000000000\\d{3}");
            assertThat(set.get(2)).isEqualTo("xxxxx");
            assertThat(words(RespCodec.parse(batch, 10, 1 << 20, 1 << 10)))
                    .containsExactly("WAIT", "1", "0");
        }
        assertThat(batch.hasRemaining()).isFalse();
    }

    @Test
    void getsCarryOnlyAKey() throws Exception {
        LoadRequests requests =
                new LoadRequests(LoadRequests.Operation.GET, 2, 10, 64, 0, new SplittableRandom(1));
        ByteBuffer batch = requests.next();
        assertThat(words(RespCodec.parse(batch, 10, 1 << 20, 1 << 10)).get(0)).isEqualTo("GET");
        assertThat(words(RespCodec.parse(batch, 10, 1 << 20, 1 << 10))).hasSize(2);
        assertThat(batch.hasRemaining()).isFalse();
    }

    @Test
    void repliesAreReadByTypeAndBulkBytesSkipped() throws IOException {
        String stream = "+OK\r\n:1\r\n$5\r\nhello\r\n$-1\r\n-MOVED 12 127.0.0.1:7001\r\n";
        RespReplies replies =
                new RespReplies(
                        new ByteArrayInputStream(stream.getBytes(StandardCharsets.US_ASCII)));
        assertThat(replies.next()).isEqualTo(new RespReplies.Reply('+', 0, "OK"));
        assertThat(replies.next()).isEqualTo(new RespReplies.Reply(':', 1, ""));
        assertThat(replies.next()).isEqualTo(new RespReplies.Reply('$', 5, ""));
        assertThat(replies.next()).isEqualTo(new RespReplies.Reply('$', -1, ""));
        RespReplies.Reply moved = replies.next();
        assertThat(moved.isError()).isTrue();
        assertThat(moved.text()).isEqualTo("MOVED 12 127.0.0.1:7001");
        assertThatThrownBy(replies::next).hasMessageContaining("closed the connection");
    }

    @Test
    void arraysAndEndlessLinesAreRefused() {
        RespReplies array = new RespReplies(new ByteArrayInputStream("*1\r\n".getBytes()));
        assertThatThrownBy(array::next).hasMessageContaining("unexpected reply starting with '*'");
        byte[] endless = new byte[RespReplies.MAX_LINE + 10];
        java.util.Arrays.fill(endless, (byte) 'a');
        endless[0] = '+';
        RespReplies longLine = new RespReplies(new ByteArrayInputStream(endless));
        assertThatThrownBy(longLine::next).hasMessageContaining("longer than 4096 bytes");
    }

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Cli.commandLine(new RespLoad());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return new Run(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void pipelinedSetsAgainstDbf0AreCountedWithTheirLatency() throws Exception {
        try (KeyValueServer server =
                new KeyValueServer(ServerOptions.defaults(), new ConcurrentHashMap<>())) {
            server.start();
            String port = Integer.toString(server.getLocalAddress().getPort());
            Run run = run("--port", port, "-c", "4", "-P", "8", "--duration", "2s", "-r", "50");
            assertThat(run.exit()).as(run.err()).isZero();
            JsonObject json = JsonParser.parseString(run.out().strip()).getAsJsonObject();
            assertThat(json.get("ops").getAsLong()).isPositive();
            assertThat(json.get("errors").getAsLong()).isZero();
            assertThat(json.get("pipeline").getAsInt()).isEqualTo(8);
            assertThat(json.get("p99_ms").getAsDouble())
                    .isGreaterThanOrEqualTo(json.get("p50_ms").getAsDouble());
            assertThat(server.size()).isBetween(1, 50);
            assertThat(run.err()).startsWith("dbf0 resp-load: ").contains("ops/s");
        }
    }

    @Test
    void badArgumentsAndAnUnreachableServerSaySoInOneLine() {
        Run bad = run("--wait-replicas", "1", "--command", "get");
        assertThat(bad.exit()).isEqualTo(Cli.EXIT_USAGE);
        assertThat(bad.err()).contains("--wait-replicas follows writes: it needs --command set");
        Run refused = run("--port", "1", "-c", "2", "--duration", "1s");
        assertThat(refused.exit()).isEqualTo(Cli.EXIT_FAILURE);
        assertThat(refused.err().lines())
                .containsExactly(
                        "dbf0 resp-load: error: 127.0.0.1:1: 2 of 2 connections failed; the"
                                + " first: Connection refused");
    }
}
