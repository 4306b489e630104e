package dbf0.kv.server.resp;

/**
 * A Redis glob pattern (SCAN's MATCH, as KEYS reads it), matched against a key's bytes, case
 * sensitive: {@code *} any run of bytes, {@code ?} any one byte, {@code [abc]} one of a set, {@code
 * [^abc]} one not in it, {@code [a-z]} a range (either way round), and {@code \x} the byte x
 * itself, inside a set too. As in Redis, a set missing its {@code ]} runs to the end of the
 * pattern, a {@code -} after a byte always makes a range (so {@code [a-]} is a to ']'), and a lone
 * trailing {@code \} is a literal backslash.
 *
 * <p>Every token but {@code *} matches exactly one byte, so the classic two-pointer walk applies:
 * on a mismatch go back to the last {@code *} and let it swallow one byte more. That costs at most
 * the key's length times the pattern's, never the exponential time of a naive recursion over many
 * stars.
 */
final class KeyGlob {

    private final byte[] pattern;

    KeyGlob(byte[] pattern) {
        this.pattern = pattern.clone();
    }

    /**
     * The glob of {@code pattern}, or null for {@code *}, which matches every key: a caller that
     * gets null skips the matching altogether.
     */
    static KeyGlob unlessAll(byte[] pattern) {
        return pattern.length == 1 && pattern[0] == '*' ? null : new KeyGlob(pattern);
    }

    boolean matches(byte[] key) {
        int p = 0;
        int k = 0;
        int star = -1; // where the pattern resumes after the last star seen
        int starKey = 0; // the key byte that star has swallowed up to
        while (k < key.length) {
            if (p < pattern.length && pattern[p] == '*') {
                while (p < pattern.length && pattern[p] == '*') {
                    p++;
                }
                star = p;
                starKey = k;
                continue;
            }
            int next = p < pattern.length ? matchOne(p, key[k]) : -1;
            if (next >= 0) {
                p = next;
                k++;
            } else if (star >= 0) {
                p = star;
                k = ++starKey;
            } else {
                return false;
            }
        }
        while (p < pattern.length && pattern[p] == '*') {
            p++;
        }
        return p == pattern.length;
    }

    /** The pattern index after the token at {@code p} if it matches {@code b}, else -1. */
    private int matchOne(int p, byte b) {
        byte t = pattern[p];
        if (t == '?') {
            return p + 1;
        }
        if (t == '[') {
            return matchSet(p + 1, b);
        }
        if (t == '\\' && p + 1 < pattern.length) {
            return pattern[p + 1] == b ? p + 2 : -1;
        }
        return t == b ? p + 1 : -1;
    }

    /** A set {@code [...]} whose first byte after {@code [} is at {@code p}. */
    private int matchSet(int p, byte b) {
        boolean negate = p < pattern.length && pattern[p] == '^';
        if (negate) {
            p++;
        }
        boolean found = false;
        int u = b & 0xff;
        while (p < pattern.length && pattern[p] != ']') {
            if (pattern[p] == '\\' && p + 1 < pattern.length) {
                found |= (pattern[p + 1] & 0xff) == u;
                p += 2;
            } else if (p + 2 < pattern.length && pattern[p + 1] == '-') {
                int low = pattern[p] & 0xff;
                int high = pattern[p + 2] & 0xff;
                found |= u >= Math.min(low, high) && u <= Math.max(low, high);
                p += 3;
            } else {
                found |= (pattern[p] & 0xff) == u;
                p++;
            }
        }
        int after = p < pattern.length ? p + 1 : p; // past the ']', or at the end without one
        return found != negate ? after : -1;
    }
}
