package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.cli.ServeCommand;
import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real server in a child JVM, killed with SIGKILL ({@link Process#destroyForcibly}) at random
 * moments while v2 and RESP connections write, then started again on the same data dir and read key
 * by key: every acknowledged SET and DELETE must be there, with its latest acknowledged value. Each
 * connection owns its keys, so each key has one order of writes; a key may also hold the one write
 * that was in flight when the server died, which was neither acknowledged nor refused. Automatic
 * rewrites are set to fire often (2x, no minimum size), so kills land during rewrites too. Pool and
 * nio models alternate, and so do the policies {@code always}, {@code interval} and {@code never}:
 * a SIGKILL leaves the kernel's page cache, so under all three an acknowledged write (written
 * before it was answered) must survive it; only a crash of the machine tells them apart
 * (PowerLossTest).
 *
 * <p>{@code -Ddbf0.crash.cycles=N} (default 3, for CI) runs more kill cycles, e.g. 50.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class CrashRecoveryTest {

    static final int CONNECTIONS = 4; // two v2, two RESP
    static final int KEYS_EACH = 24;
    static final List<String> POLICIES = List.of("always", "interval", "never");

    static final class KeyState {
        volatile ByteArrayWrapper acked;
        volatile boolean inFlight;
        volatile ByteArrayWrapper flying;
    }

    @Test
    void noAcknowledgedWriteIsLostToSigkill(@TempDir Path dataDir) throws Exception {
        int cycles = Integer.getInteger("dbf0.crash.cycles", 3);
        Random random = new Random(Long.getLong("dbf0.crash.seed", System.nanoTime()));
        KeyState[][] keys = new KeyState[CONNECTIONS][KEYS_EACH];
        for (KeyState[] row : keys) {
            for (int k = 0; k < row.length; k++) {
                row[k] = new KeyState();
            }
        }
        long totalAcks = 0;
        java.util.Map<String, Long> acksBefore =
                new java.util.TreeMap<>(); // acknowledged writes, by the policy killed
        for (int cycle = 0; cycle <= cycles; cycle++) {
            String model = cycle % 2 == 0 ? "pool" : "nio";
            String fsync = POLICIES.get(cycle % POLICIES.size());
            Child server = Child.start(dataDir, model, fsync);
            try {
                verify(server.address, keys, cycle);
                if (cycle == cycles) {
                    break; // the last start only checks
                }
                reset(server.address, keys);
                AtomicLong acks = new AtomicLong();
                List<Thread> clients = new ArrayList<>();
                for (int c = 0; c < CONNECTIONS; c++) {
                    int id = c;
                    long seed = random.nextLong();
                    clients.add(
                            Thread.ofPlatform()
                                    .daemon()
                                    .start(
                                            () ->
                                                    drive(
                                                            server.address,
                                                            id,
                                                            keys[id],
                                                            new Random(seed),
                                                            acks)));
                }
                // Kill at a random moment once writes flow (a loaded machine may take a while to
                // start them).
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (acks.get() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                Thread.sleep(random.nextInt(600));
                server.kill();
                for (Thread t : clients) {
                    t.join(TimeUnit.SECONDS.toMillis(20));
                    assertThat(t.isAlive()).as("a client stops once its server is gone").isFalse();
                }
                assertThat(acks.get())
                        .as("cycle %d acknowledged writes before the kill", cycle)
                        .isPositive();
                totalAcks += acks.get();
                acksBefore.merge(fsync, acks.get(), Long::sum);
            } finally {
                server.kill();
            }
        }
        assertThat(totalAcks).isPositive();
        System.err.printf(
                "CrashRecoveryTest: %d SIGKILLs after %,d acknowledged writes in all %s; every key"
                        + " checked after each restart%n",
                cycles, totalAcks, acksBefore);
    }

    /** One connection's writer: random SETs and DELETEs on its keys until the connection dies. */
    private static void drive(
            InetSocketAddress address, int id, KeyState[] mine, Random random, AtomicLong acks) {
        boolean resp = id % 2 == 1;
        try (Writer writer = resp ? new RespWriter(address) : new V2Writer(address)) {
            for (int op = 0; ; op++) {
                int k = random.nextInt(mine.length);
                KeyState state = mine[k];
                boolean delete = random.nextInt(4) == 0;
                ByteArrayWrapper value =
                        delete ? null : text(id + "/" + k + "/" + op + "/" + random.nextInt(1000));
                state.flying = value;
                state.inFlight = true;
                if (delete) {
                    writer.delete(key(id, k));
                } else {
                    writer.set(key(id, k), value);
                }
                state.acked = value; // only once the server said OK (or :n for DEL)
                state.inFlight = false;
                acks.incrementAndGet();
            }
        } catch (IOException | RuntimeException expected) {
            // the kill: the write in flight stays unknown
        }
    }

    private static void verify(InetSocketAddress address, KeyState[][] keys, int cycle)
            throws IOException {
        try (KeyValueClient client = KeyValueClient.connect(address)) {
            for (int c = 0; c < keys.length; c++) {
                for (int k = 0; k < keys[c].length; k++) {
                    KeyState state = keys[c][k];
                    ByteArrayWrapper found = client.get(key(c, k));
                    boolean ok =
                            Objects.equals(found, state.acked)
                                    || (state.inFlight && Objects.equals(found, state.flying));
                    assertThat(ok)
                            .as(
                                    "after kill %d, key %d/%d: found %s, last acknowledged %s, in"
                                            + " flight %s",
                                    cycle,
                                    c,
                                    k,
                                    show(found),
                                    show(state.acked),
                                    state.inFlight ? show(state.flying) : "nothing")
                            .isTrue();
                }
            }
        }
    }

    private static void reset(InetSocketAddress address, KeyState[][] keys) throws IOException {
        try (KeyValueClient client = KeyValueClient.connect(address)) {
            for (int c = 0; c < keys.length; c++) {
                for (int k = 0; k < keys[c].length; k++) {
                    keys[c][k].acked = client.get(key(c, k));
                    keys[c][k].inFlight = false;
                    keys[c][k].flying = null;
                }
            }
        }
    }

    static ByteArrayWrapper key(int c, int k) {
        return text("c" + c + "k" + k);
    }

    static ByteArrayWrapper text(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    static String show(ByteArrayWrapper v) {
        return v == null ? "absent" : new String(v.getArray(), StandardCharsets.UTF_8);
    }

    interface Writer extends AutoCloseable {
        void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException;

        void delete(ByteArrayWrapper key) throws IOException;

        @Override
        void close() throws IOException;
    }

    static final class V2Writer implements Writer {
        private final KeyValueClient client;

        V2Writer(InetSocketAddress address) throws IOException {
            client = KeyValueClient.connect(address);
        }

        @Override
        public void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException {
            client.set(key, value);
        }

        @Override
        public void delete(ByteArrayWrapper key) throws IOException {
            client.delete(key);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** RESP by hand: SET answers +OK, DEL answers :n; anything else is a failure. */
    static final class RespWriter implements Writer {
        private final Socket socket = new Socket();
        private final OutputStream out;
        private final InputStream in;

        RespWriter(InetSocketAddress address) throws IOException {
            socket.connect(address, 5_000);
            socket.setSoTimeout(15_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream());
        }

        private String call(byte[]... args) throws IOException {
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (byte[] a : args) {
                request.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                request.writeBytes(a);
                request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(request.toByteArray());
            out.flush();
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) != '\n') {
                if (b < 0) {
                    throw new EOFException("server gone");
                }
                if (b != '\r') {
                    line.append((char) b);
                }
            }
            return line.toString();
        }

        @Override
        public void set(ByteArrayWrapper key, ByteArrayWrapper value) throws IOException {
            String reply =
                    call(
                            "SET".getBytes(StandardCharsets.US_ASCII),
                            key.getArray(),
                            value.getArray());
            if (!reply.equals("+OK")) {
                throw new IOException("SET answered " + reply);
            }
        }

        @Override
        public void delete(ByteArrayWrapper key) throws IOException {
            String reply = call("DEL".getBytes(StandardCharsets.US_ASCII), key.getArray());
            if (!reply.startsWith(":")) {
                throw new IOException("DEL answered " + reply);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** The server as a child process, its port read from its first lines. */
    static final class Child {
        final Process process;
        final InetSocketAddress address;

        private Child(Process process, InetSocketAddress address) {
            this.process = process;
            this.address = address;
        }

        static Child start(Path dataDir, String model, String fsync)
                throws IOException, InterruptedException {
            List<String> command =
                    List.of(
                            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            ServeCommand.class.getName(),
                            "--port",
                            "0",
                            "--server-model",
                            model,
                            "--threads",
                            "4",
                            "--data-dir",
                            dataDir.toString(),
                            "--fsync",
                            fsync,
                            "--rewrite-growth",
                            "2",
                            "--rewrite-min-size",
                            "0");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            CompletableFuture<InetSocketAddress> bound = new CompletableFuture<>();
            StringBuilder seen = new StringBuilder();
            Thread reader =
                    Thread.ofPlatform()
                            .daemon()
                            .start(
                                    () -> {
                                        try (BufferedReader lines =
                                                new BufferedReader(
                                                        new InputStreamReader(
                                                                process.getInputStream(),
                                                                StandardCharsets.UTF_8))) {
                                            String line;
                                            while ((line = lines.readLine()) != null) {
                                                synchronized (seen) {
                                                    seen.append(line).append('\n');
                                                }
                                                int at = line.indexOf("listening on ");
                                                if (at >= 0) {
                                                    String rest =
                                                            line.substring(
                                                                    at + "listening on ".length());
                                                    String hostPort =
                                                            rest.substring(0, rest.indexOf(' '));
                                                    int colon = hostPort.lastIndexOf(':');
                                                    bound.complete(
                                                            new InetSocketAddress(
                                                                    "127.0.0.1",
                                                                    Integer.parseInt(
                                                                            hostPort.substring(
                                                                                    colon + 1))));
                                                }
                                            }
                                        } catch (IOException e) {
                                            // the child is gone
                                        }
                                        bound.completeExceptionally(
                                                new AssertionError(
                                                        "the server exited before listening"));
                                    });
            try {
                return new Child(process, bound.get(60, TimeUnit.SECONDS));
            } catch (Exception e) {
                process.destroyForcibly();
                reader.join(5_000);
                synchronized (seen) {
                    throw new AssertionError("server did not start: " + e + "\n" + seen, e);
                }
            }
        }

        void kill() throws InterruptedException {
            process.destroyForcibly();
            assertThat(process.waitFor(30, TimeUnit.SECONDS))
                    .as("the killed server exits")
                    .isTrue();
        }
    }
}
