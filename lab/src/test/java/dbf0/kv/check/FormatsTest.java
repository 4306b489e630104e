package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class FormatsTest {

    private static BufferedReader text(String... lines) {
        return new BufferedReader(new StringReader(String.join("\n", lines) + "\n"));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void dbf0LinesBecomeKvOperations() throws Exception {
        var h =
                Dbf0HistoryFormat.parse(
                        text(
                                Dbf0HistoryFormat.line(
                                        1, "set", b("k"), b("v"), null, 10, 20L, "ok"),
                                "",
                                Dbf0HistoryFormat.line(
                                        2, "get", b("k"), b("v"), true, 15, 25L, "ok"),
                                Dbf0HistoryFormat.line(3, "get", b("k"), null, false, 1, 2L, "ok"),
                                Dbf0HistoryFormat.line(
                                        4, "delete", b("k"), null, null, 30, null, "pending"),
                                Dbf0HistoryFormat.line(
                                        5, "set", b("k"), b("w"), null, 30, 40L, "fail"),
                                "{\"client\":6,\"op\":\"delete\",\"key\":\"6B\",\"found\":true,"
                                        + "\"invoke_ns\":50,\"complete_ns\":60,\"status\":\"ok\","
                                        + "\"extra\":[1,2]}"),
                        "h.jsonl");
        List<Operation<KvModel.Input, KvModel.Output>> ops = h.operations();
        assertThat(ops).hasSize(5); // the failed set did not happen
        assertThat(ops.get(0))
                .isEqualTo(
                        Operation.ok(
                                1, KvModel.Input.put("6b", "76"), KvModel.Output.NONE, 10, 20));
        assertThat(ops.get(1).output()).isEqualTo(KvModel.Output.found("76"));
        assertThat(ops.get(2).output()).isEqualTo(KvModel.Output.missing());
        assertThat(ops.get(3).isPending()).isTrue();
        assertThat(ops.get(4).input().key()).isEqualTo("6b"); // hex is case-insensitive
        assertThat(ops.get(4).output().found()).isTrue();
        // Equal keys share one String (memory for million-operation files).
        assertThat(ops.get(0).input().key()).isSameAs(ops.get(1).input().key());
    }

    @Test
    void dbf0ErrorsNameTheFileAndLine() {
        String ok = Dbf0HistoryFormat.line(1, "set", b("k"), b("v"), null, 10, 20L, "ok");
        assertThatThrownBy(() -> Dbf0HistoryFormat.parse(text(ok, "{\"client\":1,"), "h.jsonl"))
                .isInstanceOf(HistoryParseException.class)
                .hasMessageStartingWith("h.jsonl:2: not a JSON object");
        assertThatThrownBy(
                        () ->
                                Dbf0HistoryFormat.parse(
                                        text(ok, ok, ok.replace("\"6b\"", "\"6\"")), "h.jsonl"))
                .hasMessageStartingWith("h.jsonl:3: key \"6\" is not hex");
        assertThatThrownBy(
                        () -> Dbf0HistoryFormat.parse(text(ok.replace("set", "incr")), "h.jsonl"))
                .hasMessageContaining("h.jsonl:1: op must be");
        assertThatThrownBy(
                        () ->
                                Dbf0HistoryFormat.parse(
                                        text(
                                                ok.replace(
                                                        "\"complete_ns\":20",
                                                        "\"complete_ns\":null")),
                                        "h.jsonl"))
                .hasMessageContaining("h.jsonl:1: missing complete_ns");
        assertThatThrownBy(
                        () ->
                                Dbf0HistoryFormat.parse(
                                        text(
                                                Dbf0HistoryFormat.line(
                                                        1, "get", b("k"), null, null, 1, 2L, "ok")),
                                        "h"))
                .hasMessageContaining("missing found");
        assertThatThrownBy(
                        () -> Dbf0HistoryFormat.parse(text(ok.replace("\"ok\"", "\"maybe\"")), "h"))
                .hasMessageContaining("status must be ok, fail or pending");
        assertThatThrownBy(
                        () ->
                                Dbf0HistoryFormat.parse(
                                        text(ok.replace("\"complete_ns\":20", "\"complete_ns\":5")),
                                        "h"))
                .hasMessageContaining("before invoke_ns");
    }

    @Test
    void etcdLogsFollowTheNote() throws Exception {
        var h =
                EtcdLogFormat.parse(
                        text(
                                "INFO  jepsen.core - Starting the test",
                                "INFO  jepsen.util - 0\t:invoke\t:write\t3",
                                "INFO  jepsen.util - 1 :invoke :read nil",
                                "INFO  jepsen.util - :nemesis :info :start nil",
                                "INFO  jepsen.util - 0\t:ok\t:write\t3",
                                "INFO  jepsen.util - 1\t:ok\t:read\tnil",
                                "INFO  jepsen.util - 2\t:invoke\t:cas\t[1 4]",
                                "INFO  jepsen.util - 2\t:fail\t:cas\t[1 4]",
                                "INFO  jepsen.util - 3\t:invoke\t:cas\t[3 4]",
                                "INFO  jepsen.util - 3\t:info\t:cas\t:timed-out",
                                "INFO  jepsen.util - 4\t:invoke\t:read\tnil",
                                "INFO  jepsen.util - 4\t:fail\t:read\t:timed-out",
                                "INFO  jepsen.util - 5\t:invoke\t:write\t1",
                                "INFO  jepsen.util - 5\t:fail\t:write\t1",
                                "2017-01-01 10:00:00,000{GMT}\tINFO\t[jepsen worker 6] jepsen.util:"
                                        + " not an event",
                                "2017-01-01 10:00:00,000{GMT}\tINFO\t[jepsen worker 6] jepsen.util"
                                        + " - 6\t:invoke\t:write\t2"),
                        "e.log");
        var ops = h.operations();
        assertThat(ops).hasSize(6); // the failed write is gone
        assertThat(ops.get(0))
                .isEqualTo(
                        Operation.ok(
                                0,
                                RegisterModel.Input.write("3"),
                                RegisterModel.Output.WRITTEN,
                                2,
                                5));
        assertThat(ops.get(1))
                .isEqualTo(
                        Operation.ok(
                                1,
                                RegisterModel.Input.read(),
                                RegisterModel.Output.read(null),
                                3,
                                6));
        assertThat(ops.get(2).output()).isEqualTo(RegisterModel.Output.NOT_SWAPPED);
        assertThat(ops.get(2).isPending()).isFalse();
        assertThat(ops.get(3).isPending()).isTrue();
        assertThat(ops.get(3).input()).isEqualTo(RegisterModel.Input.cas("3", "4"));
        assertThat(ops.get(4).isPending())
                .isTrue(); // a read with unknown result constrains nothing
        assertThat(ops.get(5).isPending()).isTrue(); // never completed
        assertThat(ops.get(5).input()).isEqualTo(RegisterModel.Input.write("2"));
    }

    @Test
    void etcdErrorsNameTheLine() {
        assertThatThrownBy(
                        () ->
                                EtcdLogFormat.parse(
                                        text("INFO  jepsen.util - 0\t:ok\t:write\t3"), "e.log"))
                .hasMessage("e.log:1: process 0 completes :write but has no open invocation");
        assertThatThrownBy(
                        () ->
                                EtcdLogFormat.parse(
                                        text("x", "INFO  jepsen.util - 0\t:invoke\t:cas\t3"),
                                        "e.log"))
                .hasMessageStartingWith("e.log:2: a cas needs [expected new]");
        assertThatThrownBy(
                        () ->
                                EtcdLogFormat.parse(
                                        text(
                                                "INFO  jepsen.util - 0 :invoke :read nil",
                                                "INFO  jepsen.util - 0 :invoke :read nil"),
                                        "e.log"))
                .hasMessageStartingWith("e.log:2: process 0 invokes");
        assertThatThrownBy(
                        () ->
                                EtcdLogFormat.parse(
                                        text("INFO  jepsen.util - 0 :invoke :incr 1"), "e.log"))
                .hasMessageContaining("unknown operation :incr");
    }

    @Test
    void kvEdnLinesFollowTheNote() throws Exception {
        var h =
                KvEdnFormat.parse(
                        text(
                                "{:process 0, :type :invoke, :f :put, :key \"3\", :value \"x 0 1"
                                        + " y\"}",
                                "{:process 1, :type :invoke, :f :get, :key \"3\", :value nil}",
                                "{:process :nemesis, :type :info, :f :start, :value nil}",
                                "{:process 0, :type :ok, :f :put, :key \"3\", :value \"x 0 1 y\"}",
                                "{:process 1, :type :ok, :f :get, :key \"3\", :value \"\"}",
                                "{:process 2 :type :invoke :f :append :key 7 :value \"a"
                                        + " \\\"q\\\"\"}",
                                "{:process 2, :type :info, :f :append, :key 7, :value \"a\"}",
                                "{:process 3, :type :invoke, :f :append, :key \"3\", :value \"z\"}",
                                "{:process 3, :type :fail, :f :append, :key \"3\", :value \"z\"}"),
                        "c.txt");
        var ops = h.operations();
        assertThat(ops).hasSize(3);
        assertThat(ops.get(0))
                .isEqualTo(
                        Operation.ok(
                                0, KvModel.Input.put("3", "x 0 1 y"), KvModel.Output.NONE, 1, 4));
        assertThat(ops.get(1).output()).isEqualTo(KvModel.Output.emptyMeansMissing(""));
        assertThat(ops.get(2).isPending()).isTrue();
        assertThat(ops.get(2).input()).isEqualTo(KvModel.Input.append("7", "a \"q\""));
    }

    @Test
    void kvEdnErrorsNameTheLine() {
        assertThatThrownBy(
                        () ->
                                KvEdnFormat.parse(
                                        text(
                                                "{:process 0, :type :invoke, :f :put, :key \"3\","
                                                        + " :value \"x}"),
                                        "c.txt"))
                .hasMessageStartingWith("c.txt:1: not an EDN map");
        assertThatThrownBy(
                        () ->
                                KvEdnFormat.parse(
                                        text(
                                                "",
                                                "{:process 0, :type :invoke, :f :cas, :key \"3\","
                                                        + " :value 1}"),
                                        "c.txt"))
                .hasMessageStartingWith("c.txt:2: unknown :f :cas");
    }

    @Test
    void theCanonicalLayoutReadsAsTheGeneralReaderReadsIt() {
        List<String> lines =
                List.of(
                        "{:process 0, :type :invoke, :f :put, :key \"3\", :value \"x 0 1 y\"}",
                        "{:process 12, :type :ok, :f :get, :key \"k\", :value \"\"}",
                        "{:process 7, :type :invoke, :f :get, :key \"\", :value nil}",
                        "{:process 1, :type :info, :f :append, :key \"a b\", :value \"é\"}",
                        "{:process 2, :type :fail, :f :cas, :key \"4\", :value \"v\"}",
                        "{:process 3, :type :ok-ish, :f :my_f, :key \"9\", :value nil}");
        for (String line : lines) {
            KvEdnFormat.Event canonical = KvEdnFormat.Canonical.read(line);
            assertThat(canonical).as(line).isNotNull();
            assertThat(canonical)
                    .as(line)
                    .isEqualTo(KvEdnFormat.Event.of(new KvEdnFormat.EdnMap(line).read()));
        }
        // Anything else is the general reader's.
        assertThat(KvEdnFormat.Canonical.read("{:type :ok, :process 0, :f :get}")).isNull();
        assertThat(KvEdnFormat.Canonical.read("{:process 0, :type :ok, :f :get, :key 3}")).isNull();
        assertThat(
                        KvEdnFormat.Canonical.read(
                                "{:process 0, :type :ok, :f :get, :key \"3\", :value \"a\\\"b\"}"))
                .isNull();
    }
}
