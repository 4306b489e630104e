package dbf0.kv.bench.resp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The bytes of one pipelined batch: {@code pipeline} operations on keys drawn uniformly from the
 * key space, each a GET, a SET, or a SET followed by {@code WAIT replicas 0}. Keys are spelled as
 * redis-benchmark spells them with {@code -r} ({@code key:000000012345}), values are {@code
 * valueSize} bytes of 'x' (its {@code -d}), so the two tools store the same bytes.
 *
 * <p>One buffer per connection, sized once for a batch: {@code pipeline} times the largest
 * operation, at most 10,000 × (1 MiB + 100 bytes) by the command's limits.
 */
final class LoadRequests {

    /** What each operation of a batch is. */
    enum Operation {
        SET,
        GET
    }

    private static final byte[] SET = "*3\r\n$3\r\nSET\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GET = "*2\r\n$3\r\nGET\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int KEY_DIGITS = 12;
    private static final byte[] KEY_HEADER =
            ("$" + (4 + KEY_DIGITS) + "\r\nkey:").getBytes(StandardCharsets.US_ASCII);

    private final Operation operation;
    private final int pipeline;
    private final long keyspace;
    private final byte[] value; // the bulk string, header and \r\n included
    private final byte[] wait; // WAIT n 0 as a command, or empty
    private final SplittableRandom random;
    private final ByteBuffer batch;

    LoadRequests(
            Operation operation,
            int pipeline,
            long keyspace,
            int valueSize,
            int waitReplicas,
            SplittableRandom random) {
        this.operation = operation;
        this.pipeline = pipeline;
        this.keyspace = keyspace;
        this.random = random;
        byte[] x = new byte[valueSize];
        Arrays.fill(x, (byte) 'x');
        this.value = bulk(x);
        this.wait =
                waitReplicas > 0
                        ? command("WAIT", Integer.toString(waitReplicas), "0")
                        : new byte[0];
        int key = KEY_HEADER.length + KEY_DIGITS + 2;
        int each =
                operation == Operation.SET
                        ? SET.length + key + value.length + wait.length
                        : GET.length + key;
        this.batch = ByteBuffer.allocate(pipeline * each);
    }

    /** The replies one operation gets: two for a SET followed by WAIT, else one. */
    int repliesPerOperation() {
        return wait.length > 0 ? 2 : 1;
    }

    /** A new batch of fresh keys; the buffer is valid until the next call. */
    ByteBuffer next() {
        batch.clear();
        for (int i = 0; i < pipeline; i++) {
            batch.put(operation == Operation.SET ? SET : GET);
            putKey(random.nextLong(keyspace));
            if (operation == Operation.SET) {
                batch.put(value).put(wait);
            }
        }
        return batch.flip();
    }

    private void putKey(long n) {
        batch.put(KEY_HEADER);
        int end = batch.position() + KEY_DIGITS;
        long left = n;
        for (int i = end - 1; i >= end - KEY_DIGITS; i--) {
            batch.put(i, (byte) ('0' + left % 10));
            left /= 10;
        }
        batch.position(end);
        batch.put((byte) '\r').put((byte) '\n');
    }

    /** A RESP array of bulk strings: a command as clients send it. */
    static byte[] command(String... words) {
        StringBuilder s = new StringBuilder("*").append(words.length).append("\r\n");
        for (String w : words) {
            s.append('$').append(w.length()).append("\r\n").append(w).append("\r\n");
        }
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] bulk(byte[] bytes) {
        byte[] header = ("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[header.length + bytes.length + 2];
        System.arraycopy(header, 0, out, 0, header.length);
        System.arraycopy(bytes, 0, out, header.length, bytes.length);
        out[out.length - 2] = '\r';
        out[out.length - 1] = '\n';
        return out;
    }
}
