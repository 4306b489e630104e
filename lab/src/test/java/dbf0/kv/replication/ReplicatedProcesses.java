package dbf0.kv.replication;

import dbf0.kv.server.ServerProcess;
import dbf0.kv.server.cluster.RawResp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One shard of three {@code dbf0 server --cluster-replicas 2} child JVMs on loopback ports picked
 * free (Raft on each port + {@value #OFFSET}), each with its own data dir under a test's temporary
 * directory: what a failover test SIGKILLs a leader of.
 */
final class ReplicatedProcesses implements AutoCloseable {

    static final int OFFSET = 1000;

    final List<Integer> ports = new ArrayList<>();
    private final List<ServerProcess> servers = new ArrayList<>();
    private final List<List<String>> commands = new ArrayList<>();

    ReplicatedProcesses(Path root) throws Exception {
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            int port = LocalShards.freePortPair(OFFSET);
            ports.add(port);
            list.append(i == 0 ? "" : ",").append("127.0.0.1:").append(port);
        }
        try {
            for (int i = 0; i < 3; i++) {
                Path data = Files.createDirectories(root.resolve("node" + i));
                commands.add(
                        List.of(
                                "--bind=127.0.0.1",
                                "--port=" + ports.get(i),
                                "--threads=2",
                                "--cluster-nodes=" + list,
                                "--cluster-replicas=2",
                                "--raft-port-offset=" + OFFSET,
                                // elections after 1-2 s: child JVMs on two busy cores stall
                                "--election-timeout=1s",
                                "--data-dir=" + data));
                servers.add(ServerProcess.startWith(List.of("-Xmx256m"), commands.get(i)));
            }
        } catch (Exception | AssertionError e) {
            close();
            throw e;
        }
    }

    /** The node that says it leads, once one does within {@code within}. */
    int awaitLeader(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 3; i++) {
                if (servers.get(i) == null) {
                    continue;
                }
                try (RawResp c = new RawResp(ports.get(i))) {
                    if (c.text("DBF0-ROLE").startsWith("leader")) {
                        return i;
                    }
                } catch (IOException e) {
                    // not up yet
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no leader within " + within + "\n" + output());
    }

    /** SIGKILL node {@code i}: no shutdown hook, nothing flushed that the kernel does not have. */
    void kill(int i) throws InterruptedException {
        servers.get(i).kill();
        servers.set(i, null);
    }

    /**
     * Starts node {@code i} again, on its ports and its data dir, after {@link #kill}: it rejoins
     * its group with the log it had forced, and the leader sends it what it missed.
     */
    void restart(int i) throws Exception {
        if (servers.get(i) == null) {
            servers.set(i, ServerProcess.startWith(List.of("-Xmx256m"), commands.get(i)));
        }
    }

    /** What every live node printed, for a failure's message. */
    String output() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < servers.size(); i++) {
            if (servers.get(i) != null) {
                s.append("--- node ").append(i).append('\n').append(servers.get(i).output());
            }
        }
        return s.toString();
    }

    @Override
    public void close() {
        for (int i = 0; i < servers.size(); i++) {
            ServerProcess s = servers.get(i);
            if (s != null) {
                s.process.destroyForcibly();
                try {
                    s.process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                servers.set(i, null);
            }
        }
    }
}
