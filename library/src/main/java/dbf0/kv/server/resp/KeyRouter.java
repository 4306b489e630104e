package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import java.util.List;

/**
 * What stands between {@link RespCommands} and a command when the server is one node of a cluster:
 * it may run the command, or answer in its place that the keys live elsewhere ({@code -MOVED},
 * {@code -ASK}, {@code -CROSSSLOT}). A standalone server has none ({@link RespContext#router()} is
 * null), and runs every command directly.
 */
public interface KeyRouter {

    /**
     * Runs {@code command} here, or answers with where its keys are.
     *
     * @param command the command {@code args} names; its arity already checked
     * @param args the command's name, then its arguments
     * @return what {@link RespCommand#execute} returned, or false when it was not run
     */
    boolean route(
            RespCommand command,
            List<byte[]> args,
            RespConnection connection,
            RespContext context,
            OutputBuffer out);
}
