package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * INFO [section]: "field:value" lines under "# Section" headers, in a bulk string in RESP2 and a
 * verbatim string ({@code =len\r\ntxt:...}) in RESP3, as Redis sends it. dbf0 reports only the
 * sections and fields it has figures for (see {@link RespInfo}), adds its own (its version, server
 * model and threads), and reads only the first section named, where Redis accepts several. Every
 * figure is in memory, the key count included ({@link dbf0.kv.storage.Store#keyCount}), so it is
 * answered on the event loop whatever the store.
 */
final class Info implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("INFO");
    }

    @Override
    public int arity() {
        return -1;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        String section = args.size() > 1 ? Reply.lower(args.get(1)) : "default";
        Reply.text(
                connection,
                out,
                RespInfo.render(context, section).getBytes(StandardCharsets.UTF_8));
        return false;
    }
}
