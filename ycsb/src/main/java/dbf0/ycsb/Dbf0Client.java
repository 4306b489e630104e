package dbf0.ycsb;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.protocol.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB's DB interface over one dbf0 protocol v2 connection. YCSB makes one instance per client
 * thread, so each thread has its own connection and its own blocking round trips.
 *
 * <p>Properties: {@code dbf0.host} (default 127.0.0.1), {@code dbf0.port} (default 9000, the
 * server's) and {@code dbf0.connection}: {@code blocking} (default; {@link BlockingConnection}, the
 * reply read on the calling thread) or {@code client} (dbf0's {@code KeyValueClient}, whose reader
 * thread hands each reply over). The table name is ignored: dbf0 has one key space. A record is
 * stored as one value in {@link RecordFormat}.
 *
 * <ul>
 *   <li>insert: one SET of the encoded record;
 *   <li>read: one GET, then the asked-for fields (all when {@code fields} is null);
 *   <li>update: when it writes every field the record has ({@code fieldcount}, YCSB's property,
 *       default 10, or {@code writeallfields=true}), one SET; otherwise a GET, the new fields
 *       merged in, and a SET: two round trips, and not atomic (another client's update of the same
 *       record in between is lost), which YCSB's core workloads do not check;
 *   <li>delete: one DELETE;
 *   <li>scan: v2 RANGE from the start key, no end, {@code recordcount} records (more pages if the
 *       server's caps cut one short); keys compare as unsigned bytes, which for YCSB's ASCII keys
 *       is their string order. A server over a hash map cannot scan: the scan returns YCSB's ERROR
 *       status carrying the server's message, printed once per thread.
 * </ul>
 */
public final class Dbf0Client extends DB {

    private Connection client;
    private boolean scanFailureShown;
    private int fieldCount;
    private final String[] fieldNames = new String[64]; // RecordFormat's cache of read names

    @Override
    public void init() throws DBException {
        String host = getProperties().getProperty("dbf0.host", "127.0.0.1");
        int port = Integer.parseInt(getProperties().getProperty("dbf0.port", "9000"));
        fieldCount =
                Boolean.parseBoolean(getProperties().getProperty("writeallfields", "false"))
                        ? 0
                        : Integer.parseInt(getProperties().getProperty("fieldcount", "10"));
        String kind = getProperties().getProperty("dbf0.connection", "blocking");
        try {
            client = Connection.open(kind, new InetSocketAddress(host, port));
        } catch (IllegalArgumentException e) {
            throw new DBException(e.getMessage(), e);
        } catch (IOException e) {
            throw new DBException("cannot connect to dbf0 at " + host + ":" + port + ": " + e, e);
        }
    }

    @Override
    public void cleanup() {
        if (client != null) {
            client.close();
        }
    }

    private static ByteArrayWrapper key(String key) {
        return new ByteArrayWrapper(key.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public Status read(
            String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            ByteArrayWrapper value = client.get(key(key));
            if (value == null) {
                return Status.NOT_FOUND;
            }
            RecordFormat.readInto(value.getArray(), fields, result, fieldNames);
            return Status.OK;
        } catch (IOException | RuntimeException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status scan(
            String table,
            String startKey,
            int recordCount,
            Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        try {
            for (Response.Pair pair : client.scan(key(startKey), recordCount)) {
                HashMap<String, ByteIterator> record = new HashMap<>();
                RecordFormat.readInto(pair.value().getArray(), fields, record, fieldNames);
                result.add(record);
            }
            return Status.OK;
        } catch (IOException | RuntimeException e) {
            String message = "dbf0 scan failed: " + e.getMessage();
            if (!scanFailureShown) {
                scanFailureShown = true;
                System.err.println(message);
            }
            return new Status(Status.ERROR.getName(), message);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        try {
            if (fieldCount == 0 || values.size() >= fieldCount) {
                // every field is new: no need to read the old record
                client.set(key(key), new ByteArrayWrapper(RecordFormat.encodeIterators(values)));
                return Status.OK;
            }
            ByteArrayWrapper old = client.get(key(key));
            if (old == null) {
                return Status.NOT_FOUND;
            }
            Map<String, byte[]> record = RecordFormat.decode(old.getArray());
            values.forEach((name, bytes) -> record.put(name, bytes.toArray()));
            client.set(key(key), new ByteArrayWrapper(RecordFormat.encode(record)));
            return Status.OK;
        } catch (IOException | RuntimeException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            client.set(key(key), new ByteArrayWrapper(RecordFormat.encodeIterators(values)));
            return Status.OK;
        } catch (IOException | RuntimeException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            return client.delete(key(key)) ? Status.OK : Status.NOT_FOUND;
        } catch (IOException | RuntimeException e) {
            return Status.ERROR;
        }
    }
}
