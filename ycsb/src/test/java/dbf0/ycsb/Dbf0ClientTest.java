package dbf0.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerOptions;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** The binding against a real dbf0 server on 127.0.0.1, with both connection kinds. */
class Dbf0ClientTest {

    private final Map<ByteArrayWrapper, ByteArrayWrapper> map = new ConcurrentHashMap<>();
    private KeyValueServer server;

    @BeforeEach
    void start() throws Exception {
        server =
                new KeyValueServer(
                        ServerOptions.defaults()
                                .withBindAddress(new InetSocketAddress("127.0.0.1", 0)),
                        map);
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Dbf0Client client(String connection) throws DBException {
        Properties p = new Properties();
        p.setProperty("dbf0.port", Integer.toString(server.getLocalAddress().getPort()));
        p.setProperty("dbf0.connection", connection);
        p.setProperty("fieldcount", "2");
        Dbf0Client client = new Dbf0Client();
        client.setProperties(p);
        client.init();
        return client;
    }

    private static Map<String, ByteIterator> fields(String... nameValue) {
        Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put(nameValue[i], new StringByteIterator(nameValue[i + 1]));
        }
        return m;
    }

    private static Map<String, String> read(Dbf0Client client, String key, Set<String> wanted) {
        Map<String, ByteIterator> result = new HashMap<>();
        assertEquals(Status.OK, client.read("t", key, wanted, result));
        Map<String, String> out = new HashMap<>();
        result.forEach((k, v) -> out.put(k, v.toString()));
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "client"})
    void insertReadUpdateDelete(String connection) throws DBException {
        Dbf0Client client = client(connection);
        try {
            assertEquals(
                    Status.OK, client.insert("t", "user1", fields("field0", "a", "field1", "b")));
            assertEquals(Map.of("field0", "a", "field1", "b"), read(client, "user1", null));
            assertEquals(Map.of("field1", "b"), read(client, "user1", Set.of("field1")));
            // one field of two: the binding reads the record and merges
            assertEquals(Status.OK, client.update("t", "user1", fields("field1", "c")));
            assertEquals(Map.of("field0", "a", "field1", "c"), read(client, "user1", null));
            // every field: one SET that replaces the record
            assertEquals(
                    Status.OK, client.update("t", "user1", fields("field0", "x", "field1", "y")));
            assertEquals(Map.of("field0", "x", "field1", "y"), read(client, "user1", null));
            assertEquals(Status.NOT_FOUND, client.update("t", "nobody", fields("field1", "c")));
            assertEquals(Status.NOT_FOUND, client.read("t", "nobody", null, new HashMap<>()));
            assertEquals(Status.OK, client.delete("t", "user1"));
            assertEquals(Status.NOT_FOUND, client.delete("t", "user1"));
            assertTrue(map.isEmpty());
        } finally {
            client.cleanup();
        }
    }

    @Test
    void theRecordIsStoredInTheDocumentedFormat() throws DBException {
        Dbf0Client client = client("blocking");
        try {
            client.insert("t", "k", fields("f", "v"));
        } finally {
            client.cleanup();
        }
        byte[] stored =
                map.get(new ByteArrayWrapper("k".getBytes(StandardCharsets.UTF_8))).getArray();
        assertEquals(
                Map.of("f", "v"),
                Map.of(
                        "f",
                        new String(RecordFormat.decode(stored).get("f"), StandardCharsets.UTF_8)));
    }

    @Test
    void theBlockingConnectionReconnectsAfterTheServerDropsIt() throws Exception {
        try (BlockingConnection connection = new BlockingConnection(server.getLocalAddress())) {
            ByteArrayWrapper key = new ByteArrayWrapper(new byte[] {1});
            connection.set(key, key);
            int port = server.getLocalAddress().getPort();
            server.close(); // drops the connection
            assertThrows(java.io.IOException.class, () -> connection.get(key));
            server =
                    new KeyValueServer(
                            ServerOptions.defaults()
                                    .withBindAddress(new InetSocketAddress("127.0.0.1", port)),
                            map);
            server.start();
            assertEquals(key, connection.get(key));
        }
    }

    @Test
    void anUnknownConnectionKindIsRefused() {
        DBException e = assertThrows(DBException.class, () -> client("pipelined"));
        assertTrue(
                e.getMessage().contains("dbf0.connection is blocking or client"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "client"})
    void scanReadsRecordsInKeyOrderFromASortedMap(String connection) throws Exception {
        server.close();
        server =
                new KeyValueServer(
                        ServerOptions.defaults()
                                .withBindAddress(new InetSocketAddress("127.0.0.1", 0)),
                        new ConcurrentSkipListMap<ByteArrayWrapper, ByteArrayWrapper>());
        server.start();
        Dbf0Client client = client(connection);
        try {
            for (String key : List.of("user3", "user1", "user4", "user2", "user5")) {
                assertEquals(Status.OK, client.insert("t", key, fields("f0", key, "f1", "x")));
            }
            Vector<HashMap<String, ByteIterator>> result = new Vector<>();
            assertEquals(Status.OK, client.scan("t", "user2", 3, Set.of("f0"), result));
            assertEquals(
                    List.of("user2", "user3", "user4"),
                    result.stream().map(r -> r.get("f0").toString()).toList());
            assertEquals(Set.of("f0"), result.get(0).keySet());
            result.clear();
            assertEquals(Status.OK, client.scan("t", "user45", 10, null, result));
            assertEquals(1, result.size());
            assertEquals(2, result.get(0).size());
        } finally {
            client.cleanup();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"blocking", "client"})
    void scanOverAHashMapIsYcsbsErrorWithTheServersReason(String connection) throws Exception {
        Dbf0Client client = client(connection);
        try {
            Vector<HashMap<String, ByteIterator>> result = new Vector<>();
            Status status = client.scan("t", "user1", 10, null, result);
            assertEquals(Status.ERROR.getName(), status.getName());
            assertTrue(status.getDescription().contains("hash order"), status.getDescription());
            assertTrue(result.isEmpty());
            assertEquals(Status.OK, client.insert("t", "user1", fields("f0", "a")));
        } finally {
            client.cleanup();
        }
    }
}
