package dbf0.cli;

import dbf0.common.ByteSizes;
import dbf0.common.cli.Cli;
import dbf0.common.cli.ErrorText;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
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
 * and with {@code --wait} follows INFO persistence until the rewrite is over. A server over the
 * B+tree store vacuums its file instead, and reports the vacuum in the same fields.
 */
@Command(
        name = "compact",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Rewrites a running server's write-ahead log (RESP BGREWRITEAOF): one record per live"
                    + " key; with --store btree, vacuums the tree's file instead."
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
            converter = Cli.DurationOrZeroConverter.class,
            paramLabel = "DURATION",
            description =
                    "follow INFO persistence until the rewrite ends, at most this long; 0 returns"
                            + " at once (default: ${DEFAULT-VALUE})")
    Duration wait;

    public static void main(String[] args) {
        Cli.runAndExit(new CompactCommand(), args);
    }

    @Override
    public Integer call() throws InterruptedException {
        Cli.require(spec, port >= 1 && port <= 65535, "--port must be 1..65535, got " + port);
        InetSocketAddress address = new InetSocketAddress(host, port);
        String where = ErrorText.address(address);
        if (address.isUnresolved()) {
            throw new Cli.Failure("cannot connect to " + where + ": unknown host");
        }
        try (Socket socket = new Socket()) {
            try {
                socket.connect(address, 5_000);
            } catch (IOException e) {
                throw new Cli.Failure("cannot connect to " + where + ": " + ErrorText.of(e), e);
            }
            socket.setSoTimeout(10_000);
            return compact(socket, where);
        } catch (IOException e) {
            throw new Cli.Failure(where + ": " + ErrorText.of(e), e);
        }
    }

    /** Asks for the rewrite on {@code socket} and follows it; the exit status. */
    private int compact(Socket socket, String where) throws IOException, InterruptedException {
        OutputStream out = socket.getOutputStream();
        InputStream in = new BufferedInputStream(socket.getInputStream());
        PrintWriter say = spec.commandLine().getOut();
        // The rewrite starts on the server's log thread a moment after the reply: it is over
        // when the time of the last rewrite has changed, not merely when none is in progress.
        String before = field(command(out, in, "INFO", "persistence"), "dbf0_last_rewrite_unix_ms");
        String reply = command(out, in, "BGREWRITEAOF");
        if (reply.startsWith("-")) {
            Cli.error(spec, where + " refused: " + reply.substring(1));
            return Cli.EXIT_FAILURE;
        }
        say.println(Cli.name(spec) + ": " + where + ": " + reply.substring(1));
        say.flush();
        long deadline = System.nanoTime() + wait.toNanos();
        while (!wait.isZero()) {
            String info = command(out, in, "INFO", "persistence");
            if (info.contains("aof_rewrite_in_progress:0")
                    && !field(info, "dbf0_last_rewrite_unix_ms").equals(before)) {
                String status = field(info, "dbf0_last_rewrite");
                if (!status.startsWith("ok")) {
                    Cli.error(spec, where + ": the rewrite failed: " + status);
                    return Cli.EXIT_FAILURE;
                }
                String file = field(info, "dbf0_btree_file_bytes"); // a B+tree's vacuum
                say.printf(
                        "%s: done: %s; the %s is now %s%n",
                        Cli.name(spec),
                        status,
                        file.equals("?") ? "log" : "tree's file",
                        logSize(file.equals("?") ? field(info, "aof_current_size") : file));
                say.flush();
                return Cli.EXIT_OK;
            }
            if (System.nanoTime() > deadline) {
                Cli.error(
                        spec,
                        where
                                + " is still rewriting after "
                                + (wait.toMillis() % 1000 == 0
                                        ? wait.toSeconds() + " s"
                                        : wait.toMillis() + " ms")
                                + "; see INFO persistence");
                return Cli.EXIT_FAILURE;
            }
            Thread.sleep(100);
        }
        return Cli.EXIT_OK;
    }

    /** INFO's byte count in KiB or MiB; the text as it came when it is no number. */
    private static String logSize(String bytes) {
        try {
            return ByteSizes.format(Long.parseLong(bytes));
        } catch (IllegalArgumentException e) {
            return bytes + " bytes";
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
