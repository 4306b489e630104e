package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.cli.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * The data directories of {@code server}, {@code bench} and {@code disk-bench}: only the last part
 * of the path is created, a missing parent is refused by name, and a taken port leaves nothing on
 * disk.
 */
@Timeout(60)
class DataDirTest {

    @TempDir Path tmp;

    private record Run(int exit, String out, String err) {}

    private static Run dbf0(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static String[] line(String command, List<String> before, String... after) {
        List<String> all = new ArrayList<>();
        all.add(command);
        all.addAll(before);
        all.addAll(List.of(after));
        return all.toArray(String[]::new);
    }

    @ParameterizedTest
    @ValueSource(strings = {"server", "server --store lsm", "bench", "bench --store lsm"})
    void aMissingParentIsRefusedAndNothingIsCreated(String command) {
        Path dir = tmp.resolve("nope").resolve("deeper").resolve("wal");
        String[] words = command.split(" ");
        List<String> args = new ArrayList<>(List.of(words).subList(1, words.length));
        if (words[0].equals("bench")) {
            args.addAll(0, List.of("1", "1", "concurrent", "8", "8", "0.5", "1s"));
        }
        Run run = dbf0(line(words[0], args, "--data-dir", dir.toString()));
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().lines())
                .containsExactly(
                        "dbf0 "
                                + words[0]
                                + ": error: --data-dir "
                                + dir
                                + ": its parent "
                                + dir.getParent()
                                + " does not exist",
                        "if that is the path you meant, create the parent first: mkdir -p "
                                + dir.getParent());
        assertThat(tmp.resolve("nope")).doesNotExist();
    }

    @Test
    void diskBenchRefusesAMissingParentToo() {
        Path dir = tmp.resolve("nope").resolve("db");
        Run run =
                dbf0(
                        "disk-bench",
                        dir.toString(),
                        "100",
                        "10",
                        "BALANCED",
                        "0.5",
                        "1",
                        "1s",
                        "lsm");
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err().lines())
                .hasSize(2)
                .first()
                .isEqualTo(
                        "dbf0 disk-bench: error: DIR "
                                + dir
                                + ": its parent "
                                + dir.getParent()
                                + " does not exist");
        assertThat(tmp.resolve("nope")).doesNotExist();
    }

    @Test
    void aFileWhereTheDirectoryShouldBeIsRefusedByName() throws Exception {
        Path file = java.nio.file.Files.writeString(tmp.resolve("data"), "x");
        Run run = dbf0("server", "--data-dir", file.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().lines())
                .hasSize(2)
                .first()
                .isEqualTo(
                        "dbf0 server: error: --data-dir " + file + ": is a file, not a directory");
    }

    /** The port is bound before the disk is touched: a taken one leaves no new directory. */
    @ParameterizedTest
    @ValueSource(strings = {"map", "lsm"})
    void aTakenPortLeavesNoDirectoryBehind(String store) throws Exception {
        Path dir = tmp.resolve("data");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            Run run =
                    dbf0(
                            "server",
                            "--store",
                            store,
                            "--data-dir",
                            dir.toString(),
                            "--port",
                            Integer.toString(port));
            assertThat(run.exit()).as(run.err()).isEqualTo(1);
            assertThat(run.out()).isEmpty();
            assertThat(run.err().lines())
                    .containsExactly(
                            "dbf0 server: error: cannot listen on 127.0.0.1:"
                                    + port
                                    + ": Address already in use");
        }
        assertThat(dir).doesNotExist();
    }
}
