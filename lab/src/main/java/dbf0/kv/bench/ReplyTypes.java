package dbf0.kv.bench;

import static dbf0.kv.protocol.V2Codec.BATCH;
import static dbf0.kv.protocol.V2Codec.ERROR;
import static dbf0.kv.protocol.V2Codec.NOT_FOUND;
import static dbf0.kv.protocol.V2Codec.OK;
import static dbf0.kv.protocol.V2Codec.VALUE;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The replies in one v2 reply frame, read where they lie: the type byte of each (VALUE, NOT_FOUND,
 * OK, ERROR), the fields skipped. A load generator counts replies by type and never looks at a
 * value, so it need not make a {@code Response} and an array per operation to learn that a GET
 * found something. One instance per connection, reused for every frame.
 */
final class ReplyTypes {

    private byte[] types = new byte[16];
    private int count;

    /**
     * Reads a reply frame's body, from its position to its limit.
     *
     * @return false if the body is malformed (an unknown type, a field past the end, bytes left
     *     over), as the decoder would have found it invalid
     */
    boolean read(ByteBuffer body) {
        count = 0;
        if (!body.hasRemaining()) {
            return false;
        }
        byte type = body.get();
        if (type != BATCH) {
            return element(type, body) && !body.hasRemaining();
        }
        if (body.remaining() < 4) {
            return false;
        }
        int n = body.getInt();
        if (n < 0 || n > body.remaining()) { // every reply takes a byte at least
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (!body.hasRemaining() || !element(body.get(), body)) {
                return false;
            }
        }
        return !body.hasRemaining();
    }

    private boolean element(byte type, ByteBuffer body) {
        if (type == VALUE || type == ERROR) {
            if (body.remaining() < 4) {
                return false;
            }
            int length = body.getInt();
            if (length < 0 || length > body.remaining()) {
                return false;
            }
            body.position(body.position() + length);
        } else if (type != NOT_FOUND && type != OK) {
            return false;
        }
        if (count == types.length) {
            types = Arrays.copyOf(types, 2 * count);
        }
        types[count++] = type;
        return true;
    }

    /** How many replies the frame held. */
    int count() {
        return count;
    }

    /** The type byte of reply {@code i}. */
    byte type(int i) {
        return types[i];
    }
}
