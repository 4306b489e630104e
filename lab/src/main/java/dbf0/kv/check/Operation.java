package dbf0.kv.check;

/**
 * One operation of a history: what a client asked ({@code input}), what it was told ({@code
 * output}), and when, as seen by the client.
 *
 * <p>A {@link Status#PENDING} operation has an unknown outcome (a timeout, a crash): it may have
 * taken effect at any point after its invocation, or never. Its {@code output} is ignored and its
 * {@code returnTime} is only for display; the checker treats it as returning at +infinity.
 *
 * @param client the client (process) that issued it; only used to explain violations
 */
public record Operation<I, O>(
        int client, I input, O output, long invokeTime, long returnTime, Status status) {

    /** Whether the client saw the operation's outcome. */
    public enum Status {
        OK,
        PENDING
    }

    public Operation {
        if (status == Status.OK && returnTime < invokeTime) {
            throw new IllegalArgumentException(
                    "returns (" + returnTime + ") before it is invoked (" + invokeTime + ")");
        }
    }

    public static <I, O> Operation<I, O> ok(int client, I input, O output, long invoke, long ret) {
        return new Operation<>(client, input, output, invoke, ret, Status.OK);
    }

    /**
     * An operation whose outcome is unknown; {@code lastSeen} is only for display (Long.MAX_VALUE
     * if none).
     */
    public static <I, O> Operation<I, O> pending(int client, I input, long invoke, long lastSeen) {
        return new Operation<>(client, input, null, invoke, lastSeen, Status.PENDING);
    }

    public boolean isPending() {
        return status == Status.PENDING;
    }
}
