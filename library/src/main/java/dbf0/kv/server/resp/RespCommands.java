package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Redis commands dbf0 answers, found by name whatever its case. It checks each command's {@link
 * RespCommand#arity() arity} before running it, and answers a name it does not know with {@code
 * -ERR unknown command}, leaving the connection open, as Redis does.
 */
public final class RespCommands {

    private static final RespCommands STANDARD =
            new RespCommands(
                    List.of(
                            new Ping(),
                            new Echo(),
                            new Get(),
                            new Set(),
                            new Del(),
                            new Exists(),
                            new Scan(),
                            new Keys(),
                            new MGet(),
                            new MSet(),
                            new DbSize(),
                            new FlushAll(),
                            new BgRewriteAof(),
                            new Info(),
                            new Config(),
                            new CommandInfo(),
                            new Client(),
                            new Hello(),
                            new Auth(),
                            new Select(),
                            new Quit(),
                            new Transactions()));

    private final Map<String, RespCommand> byName = new HashMap<>();
    private final List<RespCommand> commands;

    /**
     * @throws IllegalArgumentException if two commands claim the same name
     */
    public RespCommands(List<RespCommand> commands) {
        this.commands = List.copyOf(commands);
        for (RespCommand command : commands) {
            for (String name : command.names()) {
                RespCommand clash = byName.putIfAbsent(name.toUpperCase(Locale.ROOT), command);
                if (clash != null) {
                    throw new IllegalArgumentException(
                            name
                                    + " is claimed by both "
                                    + clash.getClass().getSimpleName()
                                    + " and "
                                    + command.getClass().getSimpleName());
                }
            }
        }
    }

    /** Every command dbf0 implements; the instances are stateless and shared by all connections. */
    public static RespCommands standard() {
        return STANDARD;
    }

    /**
     * These commands and {@code more}: a cluster node's are the standard ones and its own.
     *
     * @throws IllegalArgumentException if one of {@code more} claims a name already taken
     */
    public RespCommands plus(List<RespCommand> more) {
        List<RespCommand> all = new java.util.ArrayList<>(commands);
        all.addAll(more);
        return new RespCommands(all);
    }

    /** Every command, in the order they were listed. */
    public List<RespCommand> all() {
        return commands;
    }

    /** The command called {@code name} in any case, or null if there is none. */
    public RespCommand find(byte[] name) {
        // The same folding the server has always used, so that exactly the same spellings match.
        return byName.get(new String(name, StandardCharsets.UTF_8).toUpperCase(Locale.ROOT));
    }

    /**
     * Runs the command {@code args} names and appends its reply (or the error for an unknown
     * command or a wrong number of arguments) to {@code out}. After a refused MULTI nothing runs
     * but EXEC, DISCARD, MULTI and QUIT, until EXEC or DISCARD (see {@link Transactions}).
     *
     * @param args the command's name, then its arguments; at least the name
     * @param connection the state of the connection the command came on
     * @return true if the connection should close once the reply is written (QUIT)
     */
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        RespCommand command = find(args.get(0));
        if (connection.refusedTransaction()
                && !(command instanceof Transactions || command instanceof Quit)) {
            out.put(Transactions.NOT_RUN);
            return false;
        }
        if (command == null) {
            out.put(
                    RespCodec.error(
                            "ERR unknown command '"
                                    + new String(args.get(0), StandardCharsets.UTF_8)
                                    + "', with args beginning with: "
                                    + argsPreview(args)));
            return false;
        }
        if (!arityFits(command, args)) {
            Reply.wrongArgs(out, command.names().get(0).toLowerCase(Locale.ROOT));
            return false;
        }
        KeyRouter router = context == null ? null : context.router();
        return router == null
                ? command.execute(args, connection, context, out)
                : router.route(command, args, connection, context, out);
    }

    /**
     * Whether {@link #execute} would run {@code args} as a command that {@linkplain
     * RespCommand#defersReply() defers its reply}: one that may go on while this connection's
     * earlier writes are in flight. Anything else (another command, or an error such as a wrong
     * arity) must wait for them, to keep the replies in order.
     *
     * @param args the command's name, then its arguments
     * @param connection the state of the connection the command came on
     * @return true if the command only queues its reply
     */
    public boolean defersReply(List<byte[]> args, RespConnection connection) {
        RespCommand command = find(args.get(0));
        return command != null
                && command.defersReply()
                && !connection.refusedTransaction()
                && arityFits(command, args);
    }

    private static boolean arityFits(RespCommand command, List<byte[]> args) {
        int arity = command.arity();
        return arity >= 0 ? args.size() == arity : args.size() >= -arity;
    }

    private static String argsPreview(List<byte[]> args) {
        StringBuilder s = new StringBuilder();
        for (int i = 1; i < args.size() && s.length() < 128; i++) {
            s.append('\'').append(new String(args.get(i), StandardCharsets.UTF_8)).append("' ");
        }
        return s.toString();
    }
}
