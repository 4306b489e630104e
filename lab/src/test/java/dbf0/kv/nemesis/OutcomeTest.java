package dbf0.kv.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * How a reply decides the history: only a refusal the server sends before running a command may be
 * recorded as failed; anything unexpected leaves the outcome unknown.
 */
class OutcomeTest {

    private static Reply parse(String wire) throws Exception {
        return RespLink.read(new ByteArrayInputStream(wire.getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void answersAreDoneRedirectsAndRefusalsAreNotRunAndTheRestIsUnknown() throws Exception {
        assertThat(Outcome.of(parse("+OK\r\n"), true)).isEqualTo(Outcome.DONE);
        assertThat(Outcome.of(parse("$2\r\nv1\r\n"), false)).isEqualTo(Outcome.DONE);
        assertThat(Outcome.of(parse("$-1\r\n"), false)).isEqualTo(Outcome.DONE);
        assertThat(Outcome.of(parse("-MOVED 3999 127.0.0.1:7401\r\n"), true))
                .isEqualTo(Outcome.REDIRECTED);
        assertThat(Outcome.of(parse("-CLUSTERDOWN no leader\r\n"), true))
                .isEqualTo(Outcome.REFUSED);
        assertThat(Outcome.of(parse("-READONLY not the leader\r\n"), true))
                .isEqualTo(Outcome.REFUSED);
        // TRYAGAIN: the write reached the log and no majority answered in time.
        assertThat(Outcome.of(parse("-TRYAGAIN no majority\r\n"), true)).isEqualTo(Outcome.UNKNOWN);
        assertThat(Outcome.of(parse("-ERR something\r\n"), true)).isEqualTo(Outcome.UNKNOWN);
        assertThat(Outcome.of(parse("$2\r\nv1\r\n"), true)).isEqualTo(Outcome.UNKNOWN);
        assertThat(Outcome.of(parse(":1\r\n"), false)).isEqualTo(Outcome.UNKNOWN);
    }

    @Test
    void aReplyCutShortIsAnErrorNotAnAnswer() {
        Assertions.assertThatThrownBy(() -> parse("$5\r\nab")).isInstanceOf(EOFException.class);
        Assertions.assertThatThrownBy(() -> parse("*1\r\n")).hasMessageContaining("not a reply");
    }

    @Test
    void aCommandIsAnArrayOfBulkStrings() {
        byte[] wire =
                RespLink.encode(
                        "SET".getBytes(StandardCharsets.US_ASCII),
                        "k0".getBytes(StandardCharsets.US_ASCII),
                        "c1-7".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(wire, StandardCharsets.US_ASCII))
                .isEqualTo("*3\r\n$3\r\nSET\r\n$2\r\nk0\r\n$4\r\nc1-7\r\n");
    }
}
