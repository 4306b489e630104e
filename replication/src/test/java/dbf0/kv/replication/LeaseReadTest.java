package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.kv.server.cluster.RawResp;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --read-mode lease} reaches Ratis: a leader cut off from both its followers still answers a
 * read while its lease holds, where a ReadIndex leader, which must hear a majority first, cannot.
 * Elections after 6-7 s give the lease 5.4 s, ample for stopping two followers on a busy machine.
 */
@Tag("slow") // Raft servers, slow elections
@Timeout(180)
class LeaseReadTest {

    @TempDir Path dir;

    private static UnaryOperator<RaftOptions> slowElections(RaftOptions.ReadMode mode) {
        return o -> o.withElection(Duration.ofSeconds(6), Duration.ofSeconds(7)).withReads(mode);
    }

    @Test
    void aLeaderWithALeaseReadsWithoutItsFollowers() throws Exception {
        assertThat(readAlone(RaftOptions.ReadMode.LEASE)).isEqualTo("$1\r\nv\r\n");
    }

    @Test
    void aReadIndexLeaderWithoutItsFollowersDoesNotRead() throws Exception {
        assertThat(readAlone(RaftOptions.ReadMode.LINEARIZABLE)).startsWith("-TRYAGAIN ");
    }

    /** Writes, stops both followers at once, and reads on the leader. */
    private String readAlone(RaftOptions.ReadMode mode) throws Exception {
        try (LocalShards cluster = new LocalShards(3, 2, dir, slowElections(mode))) {
            int leader = cluster.awaitLeader(0, Duration.ofSeconds(60));
            try (RawResp l = new RawResp(cluster.ports.get(leader))) {
                // a write just now: both followers answered the leader a moment ago
                assertThat(l.call("SET", "k", "v")).isEqualTo("+OK\r\n");
                for (int i = 0; i < 3; i++) {
                    if (i != leader) {
                        cluster.stop(i);
                    }
                }
                return l.call("GET", "k");
            }
        }
    }
}
