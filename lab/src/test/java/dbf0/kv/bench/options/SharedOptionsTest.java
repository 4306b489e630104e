package dbf0.kv.bench.options;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.cli.Cli;
import dbf0.kv.server.ServerModel;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The mixins as a command sees them: defaults, help, and each check's exit status and message. */
class SharedOptionsTest {

    @Command(name = "probe")
    static final class Probe implements Callable<Integer> {
        @Spec CommandSpec spec;
        @Mixin MapOption map = new MapOption("skiplist");
        @Mixin ListenOptions listen = new ListenOptions(9000, "--port");
        @Mixin ServerModelOption model = new ServerModelOption();

        String mapType;
        InetSocketAddress address;
        ServerModel serverModel;

        @Override
        public Integer call() {
            mapType = map.validated(spec);
            address = listen.address(spec);
            serverModel = model.model(spec);
            return 0;
        }
    }

    private record Run(int status, Probe probe, String err, String out) {}

    private static Run run(String... args) {
        Probe probe = new Probe();
        CommandLine cl = Cli.commandLine(probe);
        StringWriter err = new StringWriter();
        StringWriter out = new StringWriter();
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(out));
        int status = cl.execute(args);
        return new Run(status, probe, err.toString(), out.toString());
    }

    @Test
    void eachCommandsDefaultsApplyAndShowInTheHelp() {
        Run run = run();
        assertThat(run.status()).isZero();
        assertThat(run.probe().mapType).isEqualTo("skiplist");
        assertThat(run.probe().address).isEqualTo(new InetSocketAddress("127.0.0.1", 9000));
        assertThat(run.probe().serverModel).isEqualTo(ServerModel.POOL);
        String help = new CommandLine(new Probe()).getUsageMessage();
        assertThat(help)
                .contains("(default: skiplist)")
                .contains("(default: 9000)")
                .contains("(default: 127.0.0.1)")
                .contains("(default: pool)");
    }

    @Test
    void givenValuesWin() {
        Run run =
                run(
                        "--map",
                        "hashtable",
                        "--bind",
                        "0.0.0.0",
                        "--port",
                        "0",
                        "--server-model",
                        "nio");
        assertThat(run.status()).isZero();
        assertThat(run.probe().mapType).isEqualTo("hashtable");
        assertThat(run.probe().address).isEqualTo(new InetSocketAddress("0.0.0.0", 0));
        assertThat(run.probe().serverModel).isEqualTo(ServerModel.NIO);
    }

    @Test
    void badValuesAreBadArgumentsWithTheirMessages() {
        Run map = run("--map", "nosuchmap");
        assertThat(map.status()).isEqualTo(2);
        assertThat(map.err()).contains("unknown map type 'nosuchmap'");
        Run port = run("--port", "70000");
        assertThat(port.status()).isEqualTo(2);
        assertThat(port.err()).contains("--port must be 0..65535, got 70000");
        Run model = run("--server-model", "threads");
        assertThat(model.status()).isEqualTo(2);
        assertThat(model.err()).contains("threads");
    }

    @Test
    void theListCheckIsTheSameCheck() {
        assertThat(MapOption.check(new CommandLine(new Probe()).getCommandSpec(), "concurrent"))
                .isEqualTo("concurrent");
    }
}
