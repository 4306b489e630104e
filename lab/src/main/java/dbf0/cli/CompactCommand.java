package dbf0.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Asks a running server to rewrite its write-ahead log, as {@code redis-cli BGREWRITEAOF} would,
 * and with {@code --wait} follows INFO persistence until the rewrite is over.
 */
@Command(
        name = "compact",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Rewrites a running server's write-ahead log (RESP BGREWRITEAOF): one record per live"
                    + " key."
        })
public final class CompactCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--host",
            defaultValue = "127.0.0.1",
            description = "server address (default: ${DEFAULT-VALUE})")
    String host;

    @Option(
            names = "--port",
            defaultValue = "9000",
            description = "server port (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
            names = "--wait",
            defaultValue = "60s",
            converter = dbf0.common.cli.Cli.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "follow INFO persistence until the rewrite ends, at most this long; 0 returns"
                            + " at once (default: ${DEFAULT-VALUE})")
    Duration wait;

    @Override
    public Integer call() throws IOException, InterruptedException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            // The rewrite starts on the server's log thread a moment after the reply: it is over
            // when the time of the last rewrite has changed, not merely when none is in progress.
            String before =
                    field(command(out, in, "INFO", "persistence"), "dbf0_last_rewrite_unix_ms");
            String reply = command(out, in, "BGREWRITEAOF");
            if (reply.startsWith("-")) {
                spec.commandLine().getErr().println("compact: " + reply.substring(1));
                return 1;
            }
            spec.commandLine().getOut().println("compact: " + reply.substring(1));
            long deadline = System.nanoTime() + wait.toNanos();
            while (!wait.isZero()) {
                String info = command(out, in, "INFO", "persistence");
                if (info.contains("aof_rewrite_in_progress:0")
                        && !field(info, "dbf0_last_rewrite_unix_ms").equals(before)) {
                    String status = field(info, "dbf0_last_rewrite");
                    spec.commandLine()
                            .getOut()
                            .printf(
                                    "compact: done: %s; log now %s bytes%n",
                                    status, field(info, "aof_current_size"));
                    return status.startsWith("ok") ? 0 : 1;
                }
                if (System.nanoTime() > deadline) {
                    spec.commandLine()
                            .getErr()
                            .println(
                                    "compact: still rewriting after "
                                            + wait
                                            + "; see INFO persistence");
                    return 1;
                }
                Thread.sleep(100);
            }
            return 0;
        }
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        return "?";
    }

    /**
     * Sends a RESP array of words and reads one reply: a status or error line, or a bulk string's
     * text.
     */
    private static String command(OutputStream out, InputStream in, String... words)
            throws IOException {
        StringBuilder request = new StringBuilder("*").append(words.length).append("\r\n");
        for (String w : words) {
            request.append('$').append(w.length()).append("\r\n").append(w).append("\r\n");
        }
        out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String line = line(in);
        if (line.startsWith("$")) {
            int n = Integer.parseInt(line.substring(1));
            byte[] body = in.readNBytes(n + 2);
            return new String(body, 0, Math.max(0, body.length - 2), StandardCharsets.UTF_8);
        }
        return line;
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("the server closed the connection");
            }
            if (b != '\r') {
                bytes.write(b);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
