package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.util.List;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH: dbf0 has no transactions (its store has no multi-key
 * atomicity to offer), so MULTI is refused. The point of this class is what happens to the commands
 * a client sends after that MULTI without waiting for its reply, as redis-py's and Jedis's
 * transactions do (MULTI, SET, SET, EXEC in one write):
 *
 * <ul>
 *   <li>Running them as ordinary commands would apply every write of a transaction the client is
 *       then told failed: the EXEC gets an error, yet the SETs happened.
 *   <li>Closing the connection would drop them, but clients that reconnect and send again what was
 *       not answered (Lettuce does) would then run them on the new connection.
 * </ul>
 *
 * So the connection does what Redis does with a transaction that cannot run: after the refused
 * MULTI, every command up to the EXEC or DISCARD that ends the transaction is answered with an
 * error and not run, and EXEC answers {@code -EXECABORT}, the error Redis gives for a transaction
 * discarded before it ran. Nothing of a refused transaction is ever applied, and a client that goes
 * on after the MULTI error without EXEC or DISCARD is told, by every command it sends, what ends
 * the state. Clients surface the MULTI error: redis-py raises it from {@code execute()} (it raises
 * the first error once EXEC says EXECABORT), Jedis from {@code exec()}, Lettuce from {@code
 * multi()}.
 *
 * <p>WATCH is refused too (there is no EXEC for it to guard); UNWATCH answers {@code +OK}, as it
 * does in Redis, since nothing is watched.
 */
final class Transactions implements RespCommand {

    static final byte[] MULTI_REFUSED =
            RespCodec.error(
                    "ERR MULTI is refused: dbf0 has no transactions. "
                            + "Nothing up to the next EXEC or DISCARD will run");
    static final byte[] NOT_RUN =
            RespCodec.error(
                    "ERR not run: this connection's MULTI was refused (dbf0 has no "
                            + "transactions); EXEC or DISCARD ends the transaction");
    static final byte[] EXEC_ABORT =
            RespCodec.error(
                    "EXECABORT Transaction discarded because MULTI was refused: "
                            + "dbf0 has no transactions; nothing of it ran");
    static final byte[] NESTED = RespCodec.error("ERR MULTI calls can not be nested");
    static final byte[] WATCH_REFUSED =
            RespCodec.error("ERR WATCH is not supported: dbf0 has no transactions");

    @Override
    public List<String> names() {
        return List.of("MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH");
    }

    @Override
    public int arity() {
        return -1; // each name's own arity is checked below
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        String name = Reply.lower(args.get(0));
        boolean refused = connection.refusedTransaction();
        if (name.equals("watch")) {
            if (refused) {
                out.put(NOT_RUN);
            } else if (args.size() < 2) {
                Reply.wrongArgs(out, name);
            } else {
                out.put(WATCH_REFUSED);
            }
            return false;
        }
        if (args.size() != 1) {
            // As Redis: a MULTI with arguments is a wrong-arity error and starts nothing. Inside a
            // refused transaction the same error is fine: the command would not run either way.
            Reply.wrongArgs(out, name);
            return false;
        }
        switch (name) {
            case "multi" -> {
                out.put(refused ? NESTED : MULTI_REFUSED);
                connection.refusedTransaction(true);
            }
            case "exec" -> {
                out.put(refused ? EXEC_ABORT : RespCodec.error("ERR EXEC without MULTI"));
                connection.refusedTransaction(false);
            }
            case "discard" -> {
                out.put(refused ? Reply.OK : RespCodec.error("ERR DISCARD without MULTI"));
                connection.refusedTransaction(false);
            }
            case "unwatch" -> out.put(refused ? NOT_RUN : Reply.OK);
            default -> throw new IllegalStateException("not a transaction command: " + name);
        }
        return false;
    }
}
