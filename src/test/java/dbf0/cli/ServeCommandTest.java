package dbf0.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.common.cli.Cli;
import dbf0.kv.server.V1;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs the standalone server as a real process, talks to it, and stops it with SIGTERM. */
@Timeout(60)
class ServeCommandTest {

  @Tag("slow") // a child JVM, stopped with SIGTERM
  @Test
  void servesUntilSigtermThenStopsCleanly() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        ServeCommand.class.getName(), "--port", "0", "--threads", "2", "--map", "concurrent"))
        .redirectErrorStream(true).start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String first = out.readLine();
      Matcher m = Pattern.compile("listening on .*?:(\\d+) ").matcher(first == null ? "" : first);
      assertThat(m.find()).as("first line: %s", first).isTrue();
      InetSocketAddress address = new InetSocketAddress("127.0.0.1", Integer.parseInt(m.group(1)));

      V1.set(address, ByteArrayWrapper.of(1), ByteArrayWrapper.of(2));
      assertThat(V1.get(address, ByteArrayWrapper.of(1))).isEqualTo(ByteArrayWrapper.of(2));

      process.toHandle().destroy(); // SIGTERM, leaving our end of its stdout open
      assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
      String rest = String.join("\n", out.lines().toList());
      assertThat(rest).contains("stopped after").contains("map held 1 entries").doesNotContain("Exception");
      assertThat(process.exitValue()).isEqualTo(143); // 128 + SIGTERM, after the hook ran
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void badMapIsAUsageError() {
    var cl = Cli.commandLine(new ServeCommand());
    cl.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
    assertThat(cl.execute("--map", "nope")).isEqualTo(2);
  }
}
