package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dbf0.common.cli.Cli;
import dbf0.kv.bench.Benchmark;
import dbf0.kv.bench.disk.DiskBench;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.lsm.LsmStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * Every command's two kinds of error, run as a user runs them (under {@code dbf0}) and from each
 * command's own main class: a bad argument is two lines, {@code dbf0 CMD: error: ...} and a hint,
 * with exit status 2; a failure while running is one line that names the address or path, with exit
 * status 1. Never the usage after an error, never a stack trace.
 */
@Timeout(60)
class ErrorStyleTest {

    @TempDir Path tmp;

    private record Run(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().toList();
        }
    }

    private static Run run(Object command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(command);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** {@code dbf0 LINE...}, the first word being the command. */
    private static Run dbf0(String... line) {
        return run(new Dbf0(), line);
    }

    /** The command's own class, as its main method runs it. */
    private static Object standalone(String command) {
        Supplier<Object> make =
                switch (command) {
                    case "server" -> ServeCommand::new;
                    case "race" -> CreateHashMapRaceCondition::new;
                    case "write-race" -> CreateHashMapWriteRace::new;
                    case "bench" -> Benchmark::new;
                    case "check" -> CheckCommand::new;
                    case "compact" -> CompactCommand::new;
                    case "disk-bench" -> DiskBench::new;
                    default -> throw new IllegalArgumentException(command);
                };
        return make.get();
    }

    /** Exit 2, and on stderr the error, which starts with {@code error}, and the hint. */
    private static void assertUsageError(Run run, String command, String error) {
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.errLines()).as(run.err()).hasSize(2);
        assertThat(run.errLines().get(0)).startsWith("dbf0 " + command + ": error: " + error);
        assertThat(run.errLines().get(1)).isEqualTo("see 'dbf0 " + command + " --help'");
    }

    private static void assertFailure(Run run, String line) {
        assertThat(run.exit()).as(run.err()).isEqualTo(1);
        assertThat(run.errLines()).containsExactly(line);
        assertThat(run.err()).doesNotContain("\tat ").doesNotContain("Exception");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "server|--port 99999|--port must be 0..65535, got 99999",
                "server|--store lsm|--store lsm keeps its data on disk: give it --data-dir DIR",
                "race|--map nosuch|unknown map type 'nosuch': use one of",
                "write-race|--threads 1|--threads must be at least 2 (a race needs two), --keys and"
                        + " --rounds at least 1",
                "bench|0 1 concurrent 16 64 0.1 1s|serverThreads must be at least 1, got 0",
                "check|--threads 0 h.jsonl|--threads must be at least 1, got 0",
                "compact|--port 0|--port must be 1..65535, got 0",
                "disk-bench|/tmp/db 0 1 PUT_HEAVY 0.5 1 1s lsm|KEY_SPACE must be at least 1, got 0"
            })
    void aBadArgumentIsTwoLinesAndExitTwo(String text) {
        String[] parts = text.split("\\|");
        String command = parts[0];
        String[] args = parts[1].split(" ");
        String[] line = new String[args.length + 1];
        line[0] = command;
        System.arraycopy(args, 0, line, 1, args.length);
        assertUsageError(dbf0(line), command, parts[2]);
        assertUsageError(run(standalone(command), args), command, parts[2]);
    }

    @Test
    void anUnknownOptionIsTheSameTwoLines() {
        for (String command : List.of("server", "race", "write-race", "compact")) {
            assertUsageError(dbf0(command, "--bogus"), command, "unknown option: '--bogus'");
        }
    }

    /** A closed port on loopback: nothing listens there. */
    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void serverNamesTheAddressItCannotListenOn() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertFailure(
                    dbf0("server", "--port", Integer.toString(port)),
                    "dbf0 server: error: cannot listen on 127.0.0.1:"
                            + port
                            + ": Address already in use");
        }
    }

    @Test
    void serverAndDiskBenchNameADataDirectoryInUse() throws Exception {
        Path dir = tmp.resolve("db");
        try (LsmStore held = LsmStore.open(LsmOptions.defaults(dir))) {
            assertThat(held.recovery().tables()).isZero(); // a fresh store holds the directory
            String inUse = dir + " is in use by another process (its LOCK file is locked)";
            assertFailure(
                    dbf0("server", "--port", "0", "--store", "lsm", "--data-dir", dir.toString()),
                    "dbf0 server: error: " + inUse);
            Run disk =
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
            assertFailure(disk, "dbf0 disk-bench: error: " + inUse);
        }
    }

    @Test
    void benchAndCompactNameTheAddressTheyCannotReach() throws Exception {
        int port = closedPort();
        String refused = "cannot connect to 127.0.0.1:" + port + ": Connection refused";
        assertFailure(
                dbf0(
                        "bench",
                        "1",
                        "1",
                        "concurrent",
                        "16",
                        "64",
                        "0.5",
                        "1s",
                        "--connect",
                        "127.0.0.1:" + port),
                "dbf0 bench: error: " + refused);
        assertFailure(
                dbf0("compact", "--port", Integer.toString(port)),
                "dbf0 compact: error: " + refused);
    }

    @Test
    void raceNamesAHistoryFileItCannotCreate() {
        assumeTrue(
                Files.isDirectory(Path.of("/proc/self")), "Linux: files cannot be made in /proc");
        assertFailure(
                dbf0("race", "--history", "/proc/self/h.jsonl", "--duration", "1s"),
                "dbf0 race: error: cannot write the history: /proc/self/h.jsonl: no such file or"
                        + " directory");
    }

    /**
     * check's exit status 1 says "not linearizable", so a file it cannot read keeps its documented
     * status 2: the two lines of a bad argument, naming the file.
     */
    @Test
    void checkNamesAFileItCannotRead() {
        Path missing = tmp.resolve("missing.jsonl");
        assertUsageError(dbf0("check", missing.toString()), "check", missing + ": no such file");
    }

    @Test
    void dbf0AloneIsTheUsageOnceAndAMistypedCommandTwoLines() {
        Run alone = dbf0();
        assertThat(alone.exit()).isEqualTo(2);
        assertThat(alone.out()).isEmpty();
        assertThat(Arrays.stream(alone.err().split("\n")).filter(l -> l.startsWith("Usage: ")))
                .hasSize(1);
        Run typo = dbf0("serve");
        assertThat(typo.exit()).isEqualTo(2);
        assertThat(typo.errLines()).hasSize(2).last().isEqualTo("see 'dbf0 --help'");
    }
}
