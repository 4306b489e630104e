package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Lines} gives what a UTF-8 {@link BufferedReader} gives, and detect reads what it did. */
class LinesTest {

    @TempDir Path tmp;

    private static List<String> all(Lines.Source in) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            lines.add(line);
        }
        return lines;
    }

    private static List<String> byReader(byte[] bytes) throws IOException {
        BufferedReader r =
                new BufferedReader(
                        new InputStreamReader(
                                new ByteArrayInputStream(bytes),
                                StandardCharsets.UTF_8
                                        .newDecoder()
                                        .onMalformedInput(
                                                java.nio.charset.CodingErrorAction.REPORT)));
        return all(r::readLine);
    }

    @Test
    void linesAreTheReadersLines() throws IOException {
        List<String> texts =
                List.of(
                        "",
                        "\n",
                        "\n\n",
                        "a",
                        "a\n",
                        "a\nb",
                        "a\r\nb\rc\n\nd\r",
                        "\r\n\r\n",
                        "\r\r\n",
                        "\uFEFF{:process 0}\n",
                        "é ü \u20AC \uD83D\uDE00\n",
                        "a real \uFFFD stays\n",
                        "  INFO  jepsen.util - 0\t:invoke\t:read\tnil  \n");
        for (String text : texts) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            assertThat(all(new Lines(bytes, true)::readLine)).as(text).isEqualTo(byReader(bytes));
        }
    }

    @Test
    void theStartOfATextGivesOnlyTheLinesItEnds() throws IOException {
        byte[] bytes = "one\ntwo\r\nthr".getBytes(StandardCharsets.UTF_8);
        assertThat(all(new Lines(bytes, false)::readLine)).containsExactly("one", "two");
        assertThat(all(new Lines(bytes, true)::readLine)).containsExactly("one", "two", "thr");
    }

    @Test
    void malformedUtf8FailsAsTheReaderDoes() {
        byte[] bytes = {'o', 'k', '\n', 'b', (byte) 0xC3, 'd', '\n'};
        assertThatThrownBy(() -> byReader(bytes)).isInstanceOf(MalformedInputException.class);
        assertThatThrownBy(() -> all(new Lines(bytes, true)::readLine))
                .isInstanceOf(MalformedInputException.class);
    }

    @Test
    void detectReadsPastItsFirstBytesWhenItsLinesGoOnThere() throws IOException {
        // Long junk lines before the first operation, more than detect's first read holds.
        String junk = "x".repeat(999) + "\n";
        int before = HistoryFormat.DETECT_BYTES / junk.length() + 5;
        Path etcd = tmp.resolve("late.log");
        Files.writeString(
                etcd,
                junk.repeat(before) + "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n",
                StandardCharsets.UTF_8);
        assertThat(HistoryFormat.detect(etcd)).isEqualTo(HistoryFormat.ETCD);
        Path none = tmp.resolve("junk.txt");
        Files.writeString(none, junk.repeat(HistoryFormat.DETECT_LINES + 1));
        assertThat(HistoryFormat.detect(none)).isNull();
        Path empty = tmp.resolve("empty.txt");
        Files.writeString(empty, "");
        assertThat(HistoryFormat.detect(empty)).isNull();
        Path kv = tmp.resolve("kv.txt");
        Files.writeString(kv, "\n  {:process 0, :type :invoke}");
        assertThat(HistoryFormat.detect(kv)).isEqualTo(HistoryFormat.KV);
    }
}
