package dbf0.kv.server.resp;

import dbf0.base.io.OutputBuffer;
import java.util.List;

/**
 * AUTH [username] password: always an error that says dbf0 has no authentication, the same one
 * HELLO ... AUTH gets. Redis clients send AUTH on connecting only when they were given a password
 * (redis-py with protocol=2 does, HELLO 3 AUTH is its RESP3 form); answering +OK would let them
 * believe the password was checked.
 */
final class Auth implements RespCommand {

    @Override
    public List<String> names() {
        return List.of("AUTH");
    }

    @Override
    public int arity() {
        return -2;
    }

    @Override
    public boolean execute(
            List<byte[]> args, RespConnection connection, RespContext context, OutputBuffer out) {
        out.put(Hello.NO_AUTH);
        return false;
    }
}
