package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExplanationTest {

    private static CheckResult<RegisterModel.Input, RegisterModel.Output> staleRead() {
        var h =
                Histories.register()
                        .write(1, "1", 0, 10)
                        .read(2, "1", 20, 30)
                        .read(3, null, 40, 100) // stale: the write finished long before
                        .pendingWrite(4, "<2>", 50)
                        .history();
        var r = LinearizabilityChecker.check(h, Duration.ofSeconds(5));
        assertThat(r.verdict()).isEqualTo(CheckResult.Verdict.NOT_LINEARIZABLE);
        return r;
    }

    @Test
    void textTimelineDrawsEachIntervalToScaleAndStarsTheUnexplained() {
        String text = Explanation.text(Histories.REGISTER, staleRead(), 21);
        // Time 0..100 over 21 columns: 5 time units a column; the longest label sets the indent.
        assertThat(text)
                .isEqualTo(
                        String.join(
                                "\n",
                                "  c1 write 1        |-|",
                                "  c2 read -> 1          |-|",
                                "* c3 read -> nil            |-----------|",
                                "  c4 write <2> -> ?           |--------->",
                                "(* = not in the longest partial linearization found; 3 of 4"
                                    + " operations were linearized before the search got stuck)",
                                ""));
    }

    @Test
    void htmlDrawsOneRowPerClientAndEscapesLabels() {
        String page = Explanation.html(Histories.REGISTER, staleRead(), "a <title>");
        assertThat(page).contains("<title>a &lt;title&gt;</title>");
        assertThat(page.split("<text x=\"4\"", -1)).hasSize(5); // four client rows
        assertThat(page).contains("write &lt;2&gt; -&gt; ?").doesNotContain("write <2>");
        assertThat(page.split("<g class=\"bad", -1)).hasSize(2); // only the stale read
        // The pending write could be placed (after the read of 1), so it is numbered, not red.
        assertThat(page)
                .contains("class=\"ok pending\"")
                .contains("1. write 1")
                .contains("2. read -&gt; 1")
                .contains("3. write &lt;2&gt;");
    }
}
