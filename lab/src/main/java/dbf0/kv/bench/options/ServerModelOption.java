package dbf0.kv.bench.options;

import dbf0.common.cli.Cli;
import dbf0.kv.server.ServerModel;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --server-model}: how the server runs its connections. */
public final class ServerModelOption {

    @Option(
            names = "--server-model",
            paramLabel = "MODEL",
            description =
                    "pool (a fixed thread pool, the seed's), virtual (a virtual thread per"
                            + " connection) or nio (event loops, one per server thread) (default:"
                            + " ${DEFAULT-VALUE})")
    String model;

    /** The seed's pool when {@code --server-model} is absent (bench, race). */
    public ServerModelOption() {
        this(ServerModel.POOL);
    }

    /**
     * @param defaultModel the model when {@code --server-model} is absent; shown as the default
     */
    public ServerModelOption(ServerModel defaultModel) {
        this.model = defaultModel.cliName();
    }

    /** The parsed model; a name {@link ServerModel#parse} does not know is a bad argument. */
    public ServerModel model(CommandSpec spec) {
        return Cli.parameter(spec, () -> ServerModel.parse(model));
    }
}
