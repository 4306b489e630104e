package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What dbf0's options become in Ratis's properties: the settings failover time depends on. */
class RaftSettingsTest {

    @TempDir Path dir;

    private RaftProperties properties(Duration min, Duration max) {
        RaftOptions o = RaftOptions.defaults(dir).withElection(min, max);
        return RaftSettings.properties(o, dir, "127.0.0.1", 7290);
    }

    @Test
    void followersStandAfterTheElectionTimeoutRange() {
        RaftProperties p = properties(Duration.ofMillis(250), Duration.ofMillis(700));
        assertThat(RaftServerConfigKeys.Rpc.timeoutMin(p).toLong(TimeUnit.MILLISECONDS))
                .isEqualTo(250);
        assertThat(RaftServerConfigKeys.Rpc.timeoutMax(p).toLong(TimeUnit.MILLISECONDS))
                .isEqualTo(700);
    }

    @Test
    void aLeaderThatSteppedDownStandsAgainAfterOneShortestElectionTimeoutNotRatisTenSeconds() {
        RaftProperties defaults = new RaftProperties();
        assertThat(
                        RaftServerConfigKeys.LeaderElection.leaderStepDownWaitTime(defaults)
                                .toLong(TimeUnit.MILLISECONDS))
                .isEqualTo(10_000);
        RaftProperties p = properties(Duration.ofMillis(300), Duration.ofMillis(600));
        assertThat(
                        RaftServerConfigKeys.LeaderElection.leaderStepDownWaitTime(p)
                                .toLong(TimeUnit.MILLISECONDS))
                .isEqualTo(300);
        assertThat(RaftServerConfigKeys.LeaderElection.preVote(p)).isTrue();
    }
}
