package dbf0.kv.nemesis;

import java.nio.charset.StandardCharsets;

/**
 * One RESP2 reply, as far as the nemesis's commands (SET, GET) can be answered: a simple string, an
 * error, an integer, a bulk string or nil.
 *
 * @param type what the reply's first byte said
 * @param bytes the line's text (simple, error, integer) or the bulk's bytes; empty for nil
 */
record Reply(Type type, byte[] bytes) {

    enum Type {
        SIMPLE,
        ERROR,
        INTEGER,
        BULK,
        NIL
    }

    static final Reply NIL = new Reply(Type.NIL, new byte[0]);

    static Reply error(String text) {
        return new Reply(Type.ERROR, text.getBytes(StandardCharsets.UTF_8));
    }

    static Reply simple(String text) {
        return new Reply(Type.SIMPLE, text.getBytes(StandardCharsets.UTF_8));
    }

    static Reply bulk(byte[] bytes) {
        return new Reply(Type.BULK, bytes);
    }

    String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** An error's first word, as Redis makes it a code: MOVED, TRYAGAIN, CLUSTERDOWN, ERR. */
    String code() {
        String text = text();
        int space = text.indexOf(' ');
        return space < 0 ? text : text.substring(0, space);
    }

    @Override
    public String toString() {
        return type + " " + text();
    }
}
