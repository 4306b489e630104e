package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import java.util.List;

/**
 * One Redis command, as a small stateless object that {@link RespCommands} finds by name. A single
 * instance serves every connection at once, so an implementation keeps no fields that change: all
 * it knows comes through the arguments, the {@link RespContext} and the store.
 *
 * <p>To add a command: write a class beside the others and list it in {@link
 * RespCommands#standard()}; if it takes keys, say where ({@link #keys()}), which a cluster node
 * needs to route it.
 */
public interface RespCommand {

    /**
     * The names it answers to, in upper case (lookup ignores case); the first, lower-cased, is its
     * name in "wrong number of arguments" errors.
     */
    List<String> names();

    /**
     * How many arguments it takes, its own name included, counted as Redis counts them: N means
     * exactly N, -N means at least N. {@link RespCommands} answers any other count with {@code -ERR
     * wrong number of arguments for '<name>' command} and does not run it.
     */
    int arity();

    /**
     * Runs the command and appends its whole reply to {@code out}.
     *
     * @param args the name as the client sent it, then the arguments; their number already passed
     *     {@link #arity()}
     * @param connection this connection's state: the protocol its replies are written in (a reply
     *     that differs between RESP2 and RESP3 goes through {@link Reply}), its id and name
     * @return true to close the connection once the reply is written (QUIT), false to go on
     */
    boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out);

    /**
     * Where its keys are and whether it writes, for a cluster node's slot check and {@code COMMAND}
     * table.
     *
     * @return the command's keys, or null for a command that takes none
     */
    default KeySpec keys() {
        return null;
    }

    /**
     * True for a command that only submits writes (SET, MSET, DEL, FLUSHALL): it queues its reply,
     * errors included, on {@link RespConnection#pending()} instead of writing it to {@code out},
     * and the session goes on decoding the commands behind it before the writes are done, so that a
     * pipeline's writes reach the log together. Any other command runs only once every queued reply
     * is written (it may read what those writes wrote), and writes its reply straight out.
     *
     * @return whether the reply is deferred
     */
    default boolean defersReply() {
        return false;
    }
}
