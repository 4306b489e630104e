package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.cli.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class Dbf0Test {

    @ParameterizedTest
    @ValueSource(strings = {"server", "race", "write-race", "bench"})
    void everyCommandHasHelp(String command) {
        StringWriter out = new StringWriter();
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        assertThat(cl.execute(command, "--help")).isZero();
        assertThat(out.toString()).contains("Usage: dbf0 " + command);
    }

    @Test
    void noCommandPrintsTheUsageOnceAndExitsTwo() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute()).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString()).startsWith("Usage: dbf0 ").contains("race").contains("bench");
        assertThat(err.toString().split("Usage: dbf0 ", -1)).as("the usage, once").hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "--help"})
    void anUnknownCommandIsATwoLineUsageError(String help) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = help.isEmpty() ? cl.execute("nosuchcommand") : cl.execute("nosuchcommand", help);
        assertThat(code).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString().lines()).hasSize(2).last().isEqualTo("see 'dbf0 --help'");
        assertThat(err.toString())
                .startsWith("dbf0: error: unknown command 'nosuchcommand'")
                .contains("server, race, write-race, bench, check");
    }

    @Test
    void topLevelHelpAndVersionStillExitZero() {
        StringWriter out = new StringWriter();
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        assertThat(cl.execute("--help")).isZero();
        assertThat(out.toString())
                .startsWith("Usage: dbf0 [-hV] [COMMAND]")
                .contains("-h, --help")
                .contains("-V, --version")
                .contains("Commands:");
        assertThat(cl.execute("-h")).isZero();
        assertThat(cl.execute("--version")).isZero();
        assertThat(out.toString()).contains("dbf0 ");
    }

    @Test
    void writeRaceRunsAndReportsEveryMap() {
        StringWriter out = new StringWriter();
        CommandLine cl = Cli.commandLine(new Dbf0());
        cl.setOut(new PrintWriter(out, true));
        // Thread-safe maps only in-process: a racing HashMap can leave a thread spinning
        // (WriteRaceTest).
        assertThat(
                        cl.execute(
                                "write-race",
                                "--maps",
                                "hashtable,concurrent",
                                "--keys",
                                "20000",
                                "--rounds",
                                "1",
                                "--json"))
                .isZero();
        var json = com.google.gson.JsonParser.parseString(out.toString()).getAsJsonObject();
        assertThat(json.getAsJsonArray("results")).hasSize(2);
        json.getAsJsonArray("results")
                .forEach(
                        r ->
                                assertThat(r.getAsJsonObject().get("anomalous").getAsBoolean())
                                        .isFalse());
    }

    /**
     * Help is read at a terminal: every paragraph of a command's description is whole sentences,
     * and the command list of {@code dbf0 --help} (which shows each description's first paragraph)
     * cuts none of them off.
     */
    @ParameterizedTest
    @ValueSource(strings = {"server", "race", "write-race", "bench"})
    void helpTextsEndWholeSentences(String command) {
        CommandLine cl = Cli.commandLine(new Dbf0());
        CommandLine sub = cl.getSubcommands().get(command);
        for (String paragraph : sub.getCommandSpec().usageMessage().description()) {
            assertThat(paragraph).as(command + " description").endsWith(".");
        }
        for (var option : sub.getCommandSpec().options()) {
            for (String line : option.description()) {
                assertThat(line)
                        .as(command + " " + option.longestName())
                        .doesNotEndWith(",")
                        .doesNotEndWith(";")
                        .doesNotEndWith(" the")
                        .doesNotEndWith(" a");
            }
        }
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        assertThat(cl.execute("--help")).isZero();
        String summary =
                out.toString()
                        .lines()
                        .dropWhile(l -> !l.startsWith("Commands:"))
                        .skip(1)
                        .takeWhile(l -> !l.isBlank())
                        .reduce("", (a, b) -> a + " " + b)
                        .replaceAll("\\s+", " ");
        assertThat(summary)
                .as("dbf0 --help's command list")
                .contains(
                        " " + command + " " + sub.getCommandSpec().usageMessage().description()[0]);
    }
}
