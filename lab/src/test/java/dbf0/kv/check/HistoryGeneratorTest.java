package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.StringReader;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The generator behind the million-operation measurement writes what the checker accepts. */
class HistoryGeneratorTest {

    @Test
    void generatedHistoriesAreLinearizableAndACorruptedOneIsNot() throws Exception {
        StringWriter w = new StringWriter();
        HistoryGenerator.write(w, 20_000, 200, 16, new Random(7));
        String text = w.toString();
        var h = Dbf0HistoryFormat.parse(new BufferedReader(new StringReader(text)), "gen");
        assertThat(h.size()).isBetween(19_900, 20_000); // about 0.2% failed operations are dropped
        assertThat(h.operations()).anyMatch(Operation::isPending);
        var r = LinearizabilityChecker.check(h, Duration.ofMinutes(1));
        assertThat(r.verdict()).isEqualTo(CheckResult.Verdict.LINEARIZABLE);
        assertThat(r.partitions()).isEqualTo(200);

        // The same file with one found value changed to bytes never written.
        int at = text.indexOf("\"found\":true");
        int v = text.lastIndexOf("\"value\":\"", at) + 9;
        String bad = text.substring(0, v) + "ffffffffffffffffff" + text.substring(v + 16);
        var r2 =
                LinearizabilityChecker.check(
                        Dbf0HistoryFormat.parse(new BufferedReader(new StringReader(bad)), "bad"),
                        Duration.ofMinutes(1));
        assertThat(r2.verdict()).isEqualTo(CheckResult.Verdict.NOT_LINEARIZABLE);
    }
}
