package dbf0.kv.server;

import static dbf0.kv.server.RespSessionTest.cmd;
import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.storage.MapStore;
import dbf0.kv.storage.Store;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.lsm.LsmStore;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.WalOptions;
import dbf0.kv.storage.wal.WalStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** RESP KEYS as raw bytes through a session, over a hash map, a sorted map, the log and the LSM. */
@Timeout(60)
class RespKeysTest {

    private static final List<String> KEYS =
            List.of(
                    "hello",
                    "hallo",
                    "hxllo",
                    "hllo",
                    "heeeello",
                    "h*llo",
                    "h?llo",
                    "user:1",
                    "user:22",
                    "item:1");

    private static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String send(ServerContext context, String input) throws Exception {
        SessionFeeder feeder = new SessionFeeder(new ProtocolSession(context));
        byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
        feeder.feed(bytes, 0, bytes.length);
        return new String(feeder.output.toByteArray(), StandardCharsets.UTF_8);
    }

    private static String send(Store store, String input) throws Exception {
        return send(new ServerContext(store, ServerOptions.defaults()), input);
    }

    /** The keys of a KEYS reply, in the order sent, checked to be an array of bulk strings. */
    static List<String> keys(String reply) {
        String[] lines = reply.split("\r\n", -1);
        assertThat(lines[0]).as(reply).startsWith("*");
        int n = Integer.parseInt(lines[0].substring(1));
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String key = lines[2 + 2 * i];
            assertThat(lines[1 + 2 * i]).isEqualTo("$" + key.length());
            keys.add(key);
        }
        assertThat(lines).as(reply).hasSize(1 + 2 * n + 1); // and nothing after the last CRLF
        return keys;
    }

    private static MapStore filled(java.util.Map<ByteArrayWrapper, ByteArrayWrapper> map) {
        for (String key : KEYS) {
            map.put(b(key), b("v"));
        }
        return new MapStore(map);
    }

    private static List<String> keys(Store store, String pattern) throws Exception {
        return keys(send(store, cmd("KEYS", pattern)));
    }

    @Test
    void globsMatchAsInRedisOverHashAndSortedMaps() throws Exception {
        for (Store store :
                List.of(filled(new ConcurrentHashMap<>()), filled(new ConcurrentSkipListMap<>()))) {
            assertThat(keys(store, "*")).containsExactlyInAnyOrderElementsOf(KEYS);
            assertThat(keys(store, "h?llo"))
                    .containsExactlyInAnyOrder("hello", "hallo", "hxllo", "h*llo", "h?llo");
            assertThat(keys(store, "h*llo"))
                    .containsExactlyInAnyOrder(
                            "hello", "hallo", "hxllo", "hllo", "heeeello", "h*llo", "h?llo");
            assertThat(keys(store, "h[ae]llo")).containsExactlyInAnyOrder("hello", "hallo");
            assertThat(keys(store, "h[^e]llo"))
                    .containsExactlyInAnyOrder("hallo", "hxllo", "h*llo", "h?llo");
            assertThat(keys(store, "h[a-f]llo")).containsExactlyInAnyOrder("hello", "hallo");
            assertThat(keys(store, "h\\*llo")).as("an escaped star").containsExactly("h*llo");
            assertThat(keys(store, "h\\?llo")).as("an escaped ?").containsExactly("h?llo");
            assertThat(keys(store, "*:?")).containsExactlyInAnyOrder("user:1", "item:1");
            assertThat(keys(store, "user:*")).containsExactlyInAnyOrder("user:1", "user:22");
            assertThat(keys(store, "hello"))
                    .as("no wildcard: the key itself")
                    .containsExactly("hello");
            assertThat(send(store, cmd("KEYS", "nothing*"))).isEqualTo("*0\r\n");
        }
        assertThat(send(new MapStore(new ConcurrentHashMap<>()), cmd("KEYS", "*")))
                .as("an empty store")
                .isEqualTo("*0\r\n");
    }

    @Test
    void theReplyIsTheSameArrayInResp2AndResp3() throws Exception {
        Store store = filled(new ConcurrentSkipListMap<>()); // in key order: a fixed reply
        String array = "*2\r\n$6\r\nuser:1\r\n$7\r\nuser:22\r\n";
        assertThat(send(store, cmd("KEYS", "user:*"))).isEqualTo(array);
        String resp3 = send(store, cmd("HELLO", "3") + cmd("KEYS", "user:*") + cmd("KEYS", "x*"));
        assertThat(resp3).startsWith("%7\r\n").endsWith(array + "*0\r\n");
    }

    @Test
    void aWrongNumberOfArgumentsIsRedissError() throws Exception {
        Store store = filled(new ConcurrentHashMap<>());
        String error = "-ERR wrong number of arguments for 'keys' command\r\n";
        assertThat(send(store, cmd("KEYS"))).isEqualTo(error);
        assertThat(send(store, cmd("KEYS", "*", "*"))).isEqualTo(error);
        assertThat(send(store, cmd("keys", "a", "b", "c") + cmd("PING")))
                .as("the connection goes on")
                .isEqualTo(error + "+PONG\r\n");
    }

    @Test
    void aReplyOverTheFrameLimitIsAnErrorThatPointsToScan() throws Exception {
        // A 128-byte frame: 115 bytes of keys after the array header's 13; "kNN" takes 9.
        ServerOptions options =
                ServerOptions.defaults().withLimits(new ProtocolLimits(32, 32, 128, 100));
        ConcurrentSkipListMap<ByteArrayWrapper, ByteArrayWrapper> map =
                new ConcurrentSkipListMap<>();
        for (int i = 10; i < 22; i++) {
            map.put(b("k" + i), b("v"));
        }
        ServerContext context = new ServerContext(new MapStore(map), options);
        assertThat(keys(send(context, cmd("KEYS", "*")))).hasSize(12); // 108 bytes: fits
        map.put(b("k22"), b("v"));
        assertThat(send(context, cmd("KEYS", "*")))
                .isEqualTo(
                        "-ERR KEYS reply would exceed 128 bytes; use SCAN with MATCH and COUNT"
                                + " to read the keys in pages\r\n");
        assertThat(keys(send(context, cmd("KEYS", "k1?"))))
                .as("only the matching keys count")
                .hasSize(10);
    }

    @Test
    void theLogsStoreAnswersFromItsMap(@TempDir Path dir) throws Exception {
        try (WalStore store =
                WalStore.open(
                        filled(new ConcurrentHashMap<>()),
                        WalOptions.defaults(dir).withFsync(FsyncPolicy.NEVER))) {
            store.put(b("user:333"), b("v"));
            store.delete(b("user:1"));
            assertThat(keys(store, "user:*")).containsExactlyInAnyOrder("user:22", "user:333");
        }
    }

    @Test
    void theLsmStoreAnswersOffTheLoopFromTablesAndMemtableInKeyOrder(@TempDir Path dir)
            throws Exception {
        LsmOptions lsm = LsmOptions.defaults(dir).withFsync(FsyncPolicy.NEVER);
        try (LsmStore store = LsmStore.open(lsm)) {
            for (String key : KEYS) {
                store.put(b(key), b("v"));
            }
        }
        try (LsmStore store = LsmStore.open(lsm)) { // the log replayed into a table
            assertThat(store.stats().tablesPerLevel().get(0)).isEqualTo(1);
            store.put(b("user:0"), b("v")); // in the memtable
            store.delete(b("user:1")); // a tombstone over the table's value
            ServerContext context =
                    new ServerContext(store, ServerOptions.defaults().withModel(ServerModel.NIO));
            assertThat(context.asyncReads).as("read off the event loop").isTrue();
            String expected = "*2\r\n$6\r\nuser:0\r\n$7\r\nuser:22\r\n";
            assertThat(send(context, cmd("KEYS", "user:*") + cmd("PING")))
                    .as("the reply keeps its place before PING's")
                    .isEqualTo(expected + "+PONG\r\n");
            assertThat(send(context, cmd("HELLO", "3") + cmd("KEYS", "user:*"))).endsWith(expected);
            assertThat(keys(send(context, cmd("KEYS", "*"))))
                    .isSorted()
                    .hasSize(KEYS.size())
                    .contains("user:0")
                    .doesNotContain("user:1");
            assertThat(send(context, cmd("KEYS", "nothing*"))).isEqualTo("*0\r\n");
        }
    }
}
