package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The attacker's run, where memory is the point: a real {@code server} process with a 64 MiB heap,
 * and hostile connections that each used to cost far more than that. 48 connections announcing a 16
 * MiB v2 frame with six bytes and sending one byte of it (768 MiB if buffers followed headers), 8
 * RESP MGETs of a 1 MiB value x400 and 4 v2 pipelines of 400 GETs of it (400 MiB of replies each if
 * nothing paused them), none of them reading. Under the bounds in docs/architecture.md these hold a
 * few MiB. The server must keep every hostile connection open (none was dropped for an
 * OutOfMemoryError), answer fresh clients within a second, and once the hostile clients leave
 * return to its connection count, file descriptors and threads.
 */
@Tag("slow") // a child JVM with a small heap per server model
@Timeout(120)
class MemoryBoundTest {

    private static final Pattern LISTENING = Pattern.compile("listening on \\S*:(\\d+) ");
    private static final int ANNOUNCERS = 48;
    private static final int MGETS = 8;
    private static final int PIPELINES = 4;

    @ParameterizedTest
    @EnumSource(ServerModel.class)
    void hostileConnectionsStayWithinTheBoundsOfASmallHeap(ServerModel model) throws Exception {
        // The pool model needs a worker per held connection; the others need none.
        int threads = model == ServerModel.POOL ? ANNOUNCERS + MGETS + PIPELINES + 8 : 2;
        Process child =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-Xmx64m",
                                "-XX:+UseSerialGC",
                                "-cp",
                                System.getProperty("java.class.path"),
                                "dbf0.cli.ServeCommand",
                                "--port",
                                "0",
                                "--server-model",
                                model.cliName(),
                                "--threads",
                                Integer.toString(threads),
                                "--idle-timeout",
                                "60s")
                        .redirectErrorStream(true)
                        .start();
        List<Socket> hostile = new ArrayList<>();
        try {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", awaitPort(child));
            long pid = child.pid();
            long fdsBefore = openFds(pid);
            long threadsBefore = threadCount(pid);

            byte[] big = new byte[1 << 20];
            Arrays.fill(big, (byte) 'v');
            try (Socket setter = connect(address)) {
                setter.getOutputStream().write(RawV2.PREAMBLE);
                setter.getOutputStream().write(RawV2.frame(RawV2.set("big", big)));
                assertThat(RawV2.readReply(setter.getInputStream())).containsExactly('K');
            }
            for (int i = 0; i < ANNOUNCERS; i++) {
                Socket s = connect(address);
                s.getOutputStream()
                        .write(
                                new byte[] {
                                    (byte) 0xDB, 0x02, 0x01, 0x00, 0x00, 0x00
                                }); // "16 MiB follow"
                s.getOutputStream()
                        .write('G'); // and one of them does: an event loop reads again only when
                // bytes come
                hostile.add(s);
            }
            StringBuilder mget = new StringBuilder("*401\r\n$4\r\nMGET\r\n");
            for (int i = 0; i < 400; i++) {
                mget.append("$3\r\nbig\r\n");
            }
            for (int i = 0; i < MGETS; i++) {
                Socket s = connect(address);
                s.getOutputStream().write(mget.toString().getBytes(StandardCharsets.US_ASCII));
                hostile.add(s);
            }
            byte[] gets = RawV2.repeat(RawV2.frame(RawV2.get("big")), 400);
            for (int i = 0; i < PIPELINES; i++) {
                Socket s = connect(address);
                s.getOutputStream().write(RawV2.PREAMBLE);
                s.getOutputStream().write(gets);
                hostile.add(s);
            }

            // Every hostile connection is still open: none cost the server an OutOfMemoryError.
            awaitConnectedClients(address, hostile.size() + 1);
            // A fresh client is answered within a second, a large value included.
            for (int round = 0; round < 3; round++) {
                long start = System.nanoTime();
                try (Socket fresh = connect(address)) {
                    fresh.getOutputStream()
                            .write(
                                    "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n"
                                            .getBytes(StandardCharsets.US_ASCII));
                    byte[] reply = fresh.getInputStream().readNBytes(1 + 7 + 2 + big.length + 2);
                    assertThat(new String(reply, 0, 10, StandardCharsets.US_ASCII))
                            .isEqualTo("$1048576\r\n");
                }
                assertThat((System.nanoTime() - start) / 1e6)
                        .as("fresh client's wait, ms")
                        .isLessThan(1_000.0);
            }
            assertThat(child.isAlive()).isTrue();

            for (Socket s : hostile) {
                s.close();
            }
            hostile.clear();
            awaitConnectedClients(address, 1);
            if (fdsBefore >= 0) {
                // A few descriptors may be the JDK's own, opened lazily on first use (the
                // virtual-thread pollers' epoll fds); a leak would be one per hostile connection,
                // 60 here.
                awaitAtMost(() -> openFds(pid), fdsBefore + 8, "open file descriptors");
                awaitAtMost(() -> threadCount(pid), threadsBefore + threads + 8, "threads");
            }
        } finally {
            for (Socket s : hostile) {
                s.close();
            }
            child.destroy();
            if (!child.waitFor(10, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
    }

    private static Socket connect(InetSocketAddress address) throws IOException {
        Socket socket = V1.connect(address);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** Reads the child's output until its "listening on" line; keeps draining it afterwards. */
    private static int awaitPort(Process child) throws Exception {
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread.ofPlatform()
                .daemon()
                .start(
                        () -> {
                            try {
                                for (String line; (line = out.readLine()) != null; ) {
                                    Matcher m = LISTENING.matcher(line);
                                    if (!port.isDone() && m.find()) {
                                        port.complete(Integer.parseInt(m.group(1)));
                                    }
                                }
                                port.completeExceptionally(
                                        new IOException("the server exited before listening"));
                            } catch (IOException e) {
                                port.completeExceptionally(e);
                            }
                        });
        return port.get(30, TimeUnit.SECONDS);
    }

    /**
     * Asks the server (RESP INFO clients) until it reports {@code expected} open connections,
     * itself included.
     */
    private static void awaitConnectedClients(InetSocketAddress address, int expected)
            throws Exception {
        // The server's own counter, polled: from outside the child there is no event to wait on.
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(
                        () -> {
                            try (Socket info = connect(address)) {
                                info.getOutputStream()
                                        .write(
                                                "*2\r\n$4\r\nINFO\r\n$7\r\nclients\r\n"
                                                        .getBytes(StandardCharsets.US_ASCII));
                                String text = readBulk(info.getInputStream());
                                Matcher m =
                                        Pattern.compile("connected_clients:(\\d+)").matcher(text);
                                assertThat(m.find()).as(text).isTrue();
                                assertThat(Integer.parseInt(m.group(1)))
                                        .as("connected_clients")
                                        .isEqualTo(expected);
                            }
                        });
    }

    private static String readBulk(InputStream in) throws IOException {
        StringBuilder header = new StringBuilder();
        for (int b; (b = in.read()) != '\n'; ) {
            header.append((char) b);
        }
        int length = Integer.parseInt(header.substring(1).trim());
        return new String(in.readNBytes(length + 2), StandardCharsets.UTF_8);
    }

    interface Count {
        long get() throws IOException;
    }

    private static void awaitAtMost(Count count, long limit, String what) throws Exception {
        // The child closes sockets on its own threads: poll its /proc entry.
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertThat(count.get()).as(what).isLessThanOrEqualTo(limit));
    }

    /** The child's open file descriptors, or -1 where /proc is not there. */
    private static long openFds(long pid) throws IOException {
        Path fd = Path.of("/proc", Long.toString(pid), "fd");
        if (!Files.isDirectory(fd)) {
            return -1;
        }
        try (var entries = Files.list(fd)) {
            return entries.count();
        }
    }

    private static long threadCount(long pid) throws IOException {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        if (!Files.exists(status)) {
            return -1;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("Threads:")) {
                return Long.parseLong(line.substring(8).trim());
            }
        }
        return -1;
    }
}
