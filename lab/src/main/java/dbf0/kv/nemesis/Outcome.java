package dbf0.kv.nemesis;

import java.util.Set;

/**
 * What a reply says about the command it answers, which decides how the history records it.
 *
 * <ul>
 *   <li>{@link #DONE}: the answer: the command took effect, or the read saw this.
 *   <li>{@link #REDIRECTED}: MOVED or ASK: this node did not run it; ask the one named.
 *   <li>{@link #REFUSED}: the node turned it away before running it (CLUSTERDOWN: no leader;
 *       READONLY: it stopped leading before the write reached the log; LOADING): it did not take
 *       effect, and may be sent again.
 *   <li>{@link #UNKNOWN}: anything else, TRYAGAIN first (the write reached the log but no majority
 *       answered in time, or the leader stepped down): it may take effect later or never. A history
 *       records such an operation as pending, never as failed.
 * </ul>
 */
enum Outcome {
    DONE,
    REDIRECTED,
    REFUSED,
    UNKNOWN;

    /** Error codes a node sends only for a command it did not run. */
    static final Set<String> NOT_RUN = Set.of("CLUSTERDOWN", "READONLY", "LOADING", "MASTERDOWN");

    /** What {@code reply} says of a SET ({@code write}) or a GET. */
    static Outcome of(Reply reply, boolean write) {
        return switch (reply.type()) {
            case SIMPLE -> write && reply.text().equals("OK") ? DONE : UNKNOWN;
            case BULK, NIL -> write ? UNKNOWN : DONE;
            case INTEGER -> UNKNOWN;
            case ERROR -> {
                String code = reply.code();
                if (code.equals("MOVED") || code.equals("ASK")) {
                    yield REDIRECTED;
                }
                yield NOT_RUN.contains(code) ? REFUSED : UNKNOWN;
            }
        };
    }
}
