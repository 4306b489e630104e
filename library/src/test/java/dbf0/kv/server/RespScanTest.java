package dbf0.kv.server;

import static dbf0.kv.server.RespSessionTest.cmd;
import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.ProtocolLimits;
import dbf0.kv.storage.MapStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RESP SCAN as raw bytes through a session, over hash maps and sorted maps alike. */
@Timeout(30)
class RespScanTest {

    private static final List<Supplier<Map<ByteArrayWrapper, ByteArrayWrapper>>> MAPS =
            List.of(ConcurrentHashMap::new, HashMap::new, ConcurrentSkipListMap::new, TreeMap::new);

    private ProtocolLimits limits = ProtocolLimits.DEFAULTS;

    private static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    private String send(Map<ByteArrayWrapper, ByteArrayWrapper> map, String input)
            throws Exception {
        SessionFeeder feeder =
                new SessionFeeder(
                        new ProtocolSession(
                                new ServerContext(
                                        new MapStore(map),
                                        ServerOptions.defaults().withLimits(limits))));
        byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
        feeder.feed(bytes, 0, bytes.length);
        return new String(feeder.output.toByteArray(), StandardCharsets.UTF_8);
    }

    /** A SCAN reply's cursor and keys, parsed from its raw bytes. */
    record Page(String cursor, List<String> keys) {
        static Page parse(String reply) {
            String[] lines = reply.split("\r\n", -1);
            assertThat(lines[0]).as(reply).isEqualTo("*2");
            assertThat(lines[1]).startsWith("$");
            int n = Integer.parseInt(lines[3].substring(1));
            assertThat(lines[3]).startsWith("*");
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                assertThat(lines[4 + 2 * i]).startsWith("$");
                keys.add(lines[5 + 2 * i]);
            }
            assertThat(lines.length).isEqualTo(4 + 2 * n + 1);
            return new Page(lines[2], keys);
        }
    }

    private Page scan(Map<ByteArrayWrapper, ByteArrayWrapper> map, String... args)
            throws Exception {
        List<String> command = new ArrayList<>(List.of("SCAN"));
        command.addAll(List.of(args));
        return Page.parse(send(map, cmd(command.toArray(String[]::new))));
    }

    @Test
    void aSmallStoreComesBackWholeInOneCallAsRedisBytes() throws Exception {
        for (var maps : MAPS) {
            Map<ByteArrayWrapper, ByteArrayWrapper> map = maps.get();
            map.put(b("k1"), b("v"));
            String reply = send(map, cmd("SCAN", "0"));
            assertThat(reply).isEqualTo("*2\r\n$1\r\n0\r\n*1\r\n$2\r\nk1\r\n");
            assertThat(send(maps.get(), cmd("SCAN", "0"))).isEqualTo("*2\r\n$1\r\n0\r\n*0\r\n");
        }
    }

    @Test
    void aFullIterationReturnsEveryKeyThatStayedWhileOthersComeAndGo() throws Exception {
        for (var maps : MAPS) {
            Map<ByteArrayWrapper, ByteArrayWrapper> map = maps.get();
            Set<String> stayed = new HashSet<>();
            for (int i = 0; i < 500; i++) {
                map.put(b("k" + i), b("v"));
                if (i % 5 != 0) {
                    stayed.add("k" + i);
                }
            }
            Set<String> seen = new HashSet<>();
            String cursor = "0";
            int calls = 0;
            do {
                Page page = scan(map, cursor, "COUNT", "7");
                assertThat(page.keys().size()).isLessThanOrEqualTo(7);
                seen.addAll(page.keys());
                cursor = page.cursor();
                // between calls: every fifth key goes, new keys come
                map.remove(b("k" + (calls * 5)));
                map.put(b("new" + calls), b("v"));
                calls++;
            } while (!cursor.equals("0"));
            assertThat(seen).containsAll(stayed);
            // at least the 400 keys that stayed, at most 7 a call; keys removed meanwhile may
            // shorten the walk below 500 / 7 calls, depending on where the hash order puts them
            assertThat(calls).as("COUNT 7 over 400 to 600 keys").isBetween(400 / 7, 200);
        }
    }

    @Test
    void matchFiltersBeforeCountAndTypeStringIsAccepted() throws Exception {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        for (int i = 0; i < 50; i++) {
            map.put(b("user:" + i), b("v"));
            map.put(b("item:" + i), b("v"));
        }
        Page page = scan(map, "0", "MATCH", "user:*", "COUNT", "1000", "TYPE", "string");
        assertThat(page.cursor()).isEqualTo("0");
        assertThat(page.keys()).hasSize(50).allMatch(k -> k.startsWith("user:"));
        Page few = scan(map, "0", "match", "item:?", "count", "3");
        assertThat(few.keys()).hasSize(3).allMatch(k -> k.matches("item:\\d"));
        assertThat(few.cursor()).isNotEqualTo("0");
    }

    @Test
    void badArgumentsGetRedissErrors() throws Exception {
        Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        assertThat(send(map, cmd("SCAN", "x"))).isEqualTo("-ERR invalid cursor\r\n");
        assertThat(send(map, cmd("SCAN", "-1"))).isEqualTo("-ERR invalid cursor\r\n");
        assertThat(send(map, cmd("SCAN", "0", "COUNT", "0"))).isEqualTo("-ERR syntax error\r\n");
        assertThat(send(map, cmd("SCAN", "0", "COUNT", "ten")))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(send(map, cmd("SCAN", "0", "MATCH"))).isEqualTo("-ERR syntax error\r\n");
        assertThat(send(map, cmd("SCAN", "0", "LIMIT", "5"))).isEqualTo("-ERR syntax error\r\n");
        assertThat(send(map, cmd("SCAN", "0", "TYPE", "hash")))
                .startsWith("-ERR dbf0 holds only string values: SCAN TYPE hash");
        assertThat(send(map, cmd("SCAN")))
                .isEqualTo("-ERR wrong number of arguments for 'scan' command\r\n");
        assertThat(Page.parse(send(map, cmd("SCAN", "18446744073709551615"))).cursor())
                .as("the largest u64 is a cursor")
                .isEqualTo("0");
    }

    @Test
    void aPageStaysWithinTheFrameLimitAndTheIterationStillCompletes() throws Exception {
        limits = new ProtocolLimits(32, 32, 128, 100); // 64 bytes of keys: 7 keys "kNN" of 9
        Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
        for (int i = 10; i < 50; i++) {
            map.put(b("k" + i), b("v"));
        }
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        do {
            Page page = scan(map, cursor, "COUNT", "1000");
            assertThat(page.keys().size()).isBetween(1, 7);
            seen.addAll(page.keys());
            cursor = page.cursor();
            calls++;
        } while (!cursor.equals("0"));
        assertThat(seen).hasSize(40);
        assertThat(calls).isBetween(6, 40);
    }
}
