package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import dbf0.kv.protocol.RespCodec;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CONFIG GET parameter [parameter ...]: the parameters known with their values, as a map in RESP3
 * and a flat array of names and values in RESP2, as Redis 7 answers. Redis also has SET, RESETSTAT
 * and REWRITE, and matches glob patterns; dbf0 answers only exact names, and only those tools ask
 * for: redis-benchmark asks for "save" and "appendonly" when it starts, and dbf0 keeps nothing on
 * disk, so both are off. Unknown names match nothing, as in Redis.
 */
final class Config implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("CONFIG");
    }

    @Override
    public int arity() {
        return -1; // checked below, with an error that says what dbf0 supports
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        if (args.size() < 3 || !Reply.lower(args.get(1)).equals("get")) {
            out.put(RespCodec.error("ERR dbf0 supports only CONFIG GET parameter"));
            return false;
        }
        // Each parameter answers once however often it is asked for: a million "save"s must not
        // turn a 10 MB command into a 20 MB reply.
        Map<String, String> pairs = new LinkedHashMap<>();
        for (int i = 2; i < args.size(); i++) {
            String param = Reply.lower(args.get(i));
            switch (param) {
                case "save" -> pairs.put("save", "");
                case "appendonly" -> pairs.put("appendonly", "no");
                case "databases" -> pairs.put("databases", "1");
                case "maxclients" ->
                        pairs.put("maxclients", Integer.toString(context.maxConnections()));
                default -> {} // unknown parameters match nothing, as in Redis
            }
        }
        Reply.mapHeader(connection, out, pairs.size());
        for (Map.Entry<String, String> pair : pairs.entrySet()) {
            Reply.bulk(out, pair.getKey().getBytes(StandardCharsets.UTF_8));
            Reply.bulk(out, pair.getValue().getBytes(StandardCharsets.UTF_8));
        }
        return false;
    }
}
