package dbf0.kv.bench.options;

import dbf0.common.cli.Cli;
import java.net.InetSocketAddress;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --bind} and {@code --port}: where a server started by the command listens. */
public final class ListenOptions {

    @Option(
            names = "--bind",
            description = "address the server listens on (default: ${DEFAULT-VALUE})")
    String bind = "127.0.0.1";

    @Option(
            names = "--port",
            description = "server port; 0 picks a free one (default: ${DEFAULT-VALUE})")
    int port;

    private final String portName;

    /**
     * @param defaultPort the port when {@code --port} is absent
     * @param portName how the port's error message names it (each command's message predates this
     *     class)
     */
    public ListenOptions(int defaultPort, String portName) {
        this.port = defaultPort;
        this.portName = portName;
    }

    public String bind() {
        return bind;
    }

    /** The port once it is a valid one; otherwise a bad argument. */
    public int port(CommandSpec spec) {
        Cli.require(spec, port >= 0 && port <= 65535, portName + " must be 0..65535, got " + port);
        return port;
    }

    public InetSocketAddress address(CommandSpec spec) {
        return new InetSocketAddress(bind, port(spec));
    }
}
