package dbf0.kv.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/** The default connection limit fits in the file descriptors the process may open. */
class ServerOptionsDefaultsTest {

    @Test
    void defaultConnectionLimitLeavesHeadroomBelowTheFileDescriptorLimit() {
        long fds = ServerOptions.maxFileDescriptors();
        assumeTrue(fds > 0, "the JVM cannot tell the file descriptor limit here");
        assertThat((long) ServerOptions.DEFAULT_MAX_CONNECTIONS)
                .isLessThanOrEqualTo(fds - ServerOptions.FD_HEADROOM)
                .isLessThanOrEqualTo(ServerOptions.MAX_DEFAULT_CONNECTIONS);
        assertThat(ServerOptions.defaults().maxConnections())
                .isEqualTo(ServerOptions.DEFAULT_MAX_CONNECTIONS);
    }

    @Test
    void defaultFollowsTheLimitCappedAtTenThousand() {
        assertThat(ServerOptions.defaultMaxConnections(1024)).isEqualTo(960);
        assertThat(ServerOptions.defaultMaxConnections(1 << 20)).isEqualTo(10_000);
        assertThat(ServerOptions.defaultMaxConnections(10)).isEqualTo(1);
        assertThat(ServerOptions.defaultMaxConnections(-1)).isEqualTo(10_000);
    }
}
