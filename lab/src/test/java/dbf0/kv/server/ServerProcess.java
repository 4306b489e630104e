package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.cli.ServeCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code server} in a child JVM on an ephemeral port of 127.0.0.1, its port read from the
 * line it prints once it listens; everything it prints is kept, for a failure's message. {@link
 * #kill} is SIGKILL: no shutdown hook, no close, nothing flushed that the kernel does not have.
 */
public final class ServerProcess {

    public final Process process;
    public final InetSocketAddress address;
    private final StringBuilder output;

    private ServerProcess(Process process, InetSocketAddress address, StringBuilder output) {
        this.process = process;
        this.address = address;
        this.output = output;
    }

    /**
     * Starts {@code java [jvmOptions] ServeCommand --port 0 [serverArgs]} and waits up to a minute
     * for it to listen.
     */
    static ServerProcess start(List<String> jvmOptions, List<String> serverArgs)
            throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("--port", "0"));
        args.addAll(serverArgs);
        return startWith(jvmOptions, args);
    }

    /**
     * As {@link #start}, with {@code serverArgs} as they are: they name the port (a cluster node's,
     * which its peers must know beforehand).
     */
    public static ServerProcess startWith(List<String> jvmOptions, List<String> serverArgs)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(
                List.of(
                        "-cp",
                        System.getProperty("java.class.path"),
                        ServeCommand.class.getName()));
        command.addAll(serverArgs);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
        StringBuilder seen = new StringBuilder();
        Thread reader =
                Thread.ofPlatform()
                        .daemon()
                        .start(
                                () -> {
                                    readLines(process, seen, bound);
                                    bound.completeExceptionally(
                                            new AssertionError(
                                                    "the server exited before listening"));
                                });
        try {
            return new ServerProcess(process, bound.get(60, TimeUnit.SECONDS), seen);
        } catch (Exception e) {
            process.destroyForcibly();
            reader.join(5_000);
            synchronized (seen) {
                throw new AssertionError("server did not start: " + e + "\n" + seen, e);
            }
        }
    }

    private static void readLines(
            Process process, StringBuilder seen, CompletableFuture<InetSocketAddress> bound) {
        try (BufferedReader lines =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                synchronized (seen) {
                    seen.append(line).append('\n');
                }
                int at = line.indexOf("listening on ");
                if (at >= 0) {
                    String rest = line.substring(at + "listening on ".length());
                    String hostPort = rest.substring(0, rest.indexOf(' '));
                    int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
                    bound.complete(new InetSocketAddress("127.0.0.1", port));
                }
            }
        } catch (IOException e) {
            // the child is gone
        }
    }

    /** What the server printed so far. */
    public String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    /** SIGKILL, and wait for the process to be gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the killed server exits").isTrue();
    }
}
