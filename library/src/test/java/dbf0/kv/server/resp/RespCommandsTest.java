package dbf0.kv.server.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.base.io.OutputBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The registry on its own: lookup by name in any case, the arity check, and what it refuses. What
 * each command answers is RespRepliesTest's, through a whole session.
 */
class RespCommandsTest {

    static final List<String> REDIS_NAMES =
            List.of(
                    "PING",
                    "ECHO",
                    "GET",
                    "SET",
                    "DEL",
                    "EXISTS",
                    "SCAN",
                    "KEYS",
                    "MGET",
                    "MSET",
                    "DBSIZE",
                    "FLUSHALL",
                    "FLUSHDB",
                    "INFO",
                    "CONFIG",
                    "COMMAND",
                    "CLIENT",
                    "HELLO",
                    "SELECT",
                    "QUIT",
                    "MULTI",
                    "EXEC",
                    "DISCARD",
                    "WATCH",
                    "UNWATCH",
                    "AUTH");

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<byte[]> args(String... words) {
        return Arrays.stream(words).map(RespCommandsTest::bytes).toList();
    }

    /** Answers +RAN so a test can tell that it ran; closes when told to. */
    record Fake(List<String> names, int arity, boolean close) implements RespCommand {
        @Override
        public boolean execute(
                List<byte[]> args,
                RespConnection connection,
                RespContext context,
                OutputBuffer out) {
            out.put(bytes("+RAN\r\n"));
            return close;
        }
    }

    static String run(RespCommands commands, List<byte[]> args) {
        OutputBuffer out = new OutputBuffer(64);
        commands.execute(
                args, new RespConnection(1, () -> {}), null, out); // no fake looks at the context
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    @Test
    void everyImplementedCommandIsFoundInAnyCase() {
        RespCommands standard = RespCommands.standard();
        for (String name : REDIS_NAMES) {
            RespCommand command = standard.find(bytes(name));
            assertThat(command).as(name).isNotNull();
            assertThat(command.names()).contains(name);
            assertThat(standard.find(bytes(name.toLowerCase(Locale.ROOT)))).isSameAs(command);
        }
        assertThat(standard.find(bytes("FlushDb"))).isSameAs(standard.find(bytes("FLUSHALL")));
        assertThat(standard.find(bytes("LPUSH"))).isNull();
        assertThat(standard.find(bytes(""))).isNull();
    }

    @Test
    void namesAreUpperCaseAndEveryNameIsOneWeKnow() {
        RespCommands standard = RespCommands.standard();
        for (String name : REDIS_NAMES) {
            for (String alias : standard.find(bytes(name)).names()) {
                assertThat(alias).isEqualTo(alias.toUpperCase(Locale.ROOT));
                assertThat(REDIS_NAMES).contains(alias);
            }
        }
    }

    @Test
    void twoCommandsMayNotClaimOneName() {
        assertThatThrownBy(
                        () ->
                                new RespCommands(
                                        List.of(
                                                new Fake(List.of("A", "B"), -1, false),
                                                new Fake(List.of("b"), -1, false))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("b is claimed by both");
    }

    @Test
    void anExactArityRefusesMoreAndFewer() {
        RespCommands commands =
                new RespCommands(List.of(new Fake(List.of("TWO", "DEUX"), 2, false)));
        assertThat(run(commands, args("two", "x"))).isEqualTo("+RAN\r\n");
        // The error names the command by its first name, whichever alias was sent.
        assertThat(run(commands, args("deux")))
                .isEqualTo("-ERR wrong number of arguments for 'two' command\r\n");
        assertThat(run(commands, args("TWO", "x", "y")))
                .isEqualTo("-ERR wrong number of arguments for 'two' command\r\n");
    }

    @Test
    void aNegativeArityIsAMinimum() {
        RespCommands commands = new RespCommands(List.of(new Fake(List.of("ATLEAST"), -3, false)));
        assertThat(run(commands, args("atleast", "x")))
                .isEqualTo("-ERR wrong number of arguments for 'atleast' command\r\n");
        assertThat(run(commands, args("atleast", "x", "y"))).isEqualTo("+RAN\r\n");
        assertThat(run(commands, args("atleast", "x", "y", "z", "w"))).isEqualTo("+RAN\r\n");
    }

    @Test
    void whetherToCloseIsTheCommandsAnswer() {
        RespCommands commands =
                new RespCommands(
                        List.of(
                                new Fake(List.of("STAY"), -1, false),
                                new Fake(List.of("GO"), -1, true)));
        OutputBuffer out = new OutputBuffer(64);
        assertThat(commands.execute(args("stay"), new RespConnection(1, () -> {}), null, out))
                .isFalse();
        assertThat(commands.execute(args("go"), new RespConnection(1, () -> {}), null, out))
                .isTrue();
        assertThat(
                        commands.execute(
                                args("go", "too", "many"),
                                new RespConnection(1, () -> {}),
                                null,
                                out))
                .isTrue();
        assertThat(commands.execute(args("unknown"), new RespConnection(1, () -> {}), null, out))
                .isFalse();
    }
}
