package dbf0;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.client.KeyValueClient;
import dbf0.kv.client.V1Client;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerModel;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.MapBackends;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The library example of README.md, kept compiling and working, and the seed's v1 client. */
class ReadmeExampleTest {

    @Test
    void readmeLibraryExample() throws Exception {
        ByteArrayWrapper got;
        try (var server =
                new KeyValueServer(
                        new InetSocketAddress("127.0.0.1", 0),
                        4,
                        MapBackends.create("concurrent"))) {
            server.start();
            var key = ByteArrayWrapper.of('h', 'i');
            try (var socket = new Socket()) {
                socket.connect(server.getLocalAddress());
                V1Client.setAndAwaitClose(socket, key, ByteArrayWrapper.of(42));
            }
            try (var socket = new Socket()) {
                socket.connect(server.getLocalAddress());
                got = V1Client.get(socket, key);
            }
        }
        assertThat(got).hasToString("2a");
    }

    /** README's example, line for line (its comments aside): what it prints is what it promises. */
    @Test
    void readmeV2ClientExample() throws Exception {
        var printed = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            var options = ServerOptions.defaults().withModel(ServerModel.NIO).withThreads(2);
            try (var server = new KeyValueServer(options, MapBackends.create("concurrent"))) {
                server.start();
                try (var client = KeyValueClient.connect(server.getLocalAddress())) {
                    var key = ByteArrayWrapper.of('h', 'i');
                    client.set(key, ByteArrayWrapper.of(42));
                    System.out.println(client.get(key));
                    var pending = client.getAsync(key);
                    System.out.println(pending.join() + " " + client.delete(key));
                }
            }
        } finally {
            System.setOut(stdout);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8).lines())
                .containsSubsequence("2a", "2a true");
    }

    /** Every line of README's ```java block (comments stripped) is a line of the test above. */
    @Test
    void theReadmeShowsTheCodeThisTestRuns() throws IOException {
        String readme = Files.readString(RepositoryFiles.path("README.md"));
        int start = readme.indexOf("```java\n");
        assertThat(start).as("README.md has a ```java block").isNotNegative();
        String block = readme.substring(start + 8, readme.indexOf("```", start + 8));
        Set<String> testLines =
                Files.readString(
                                RepositoryFiles.path(
                                        "library/src/test/java/dbf0/ReadmeExampleTest.java"))
                        .lines()
                        .map(String::strip)
                        .collect(Collectors.toSet());
        List<String> shown =
                block.lines()
                        .map(l -> l.replaceFirst("\\s*//.*$", "").strip())
                        .filter(l -> !l.isEmpty())
                        .toList();
        assertThat(shown).hasSizeGreaterThan(5).allSatisfy(l -> assertThat(testLines).contains(l));
    }
}
