package dbf0.kv.replication;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dbf0.kv.cluster.ClusterNode;
import dbf0.kv.cluster.Shards;
import dbf0.kv.server.KeyValueServer;
import dbf0.kv.server.ServerOptions;
import dbf0.kv.storage.lsm.LsmOptions;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The LSM store keeps a log of its own exactly when no Raft log is its log. */
class LsmReplicationOptionsTest {

    @TempDir Path dir;

    @Test
    void aReplicatedShardRefusesAnLsmStoreThatKeepsItsOwnLog() {
        List<ClusterNode> nodes = ClusterNode.parseList("127.0.0.1:7290,127.0.0.1:7291");
        Shards shards = new Shards(2, 1);
        KeyValueServer server =
                new KeyValueServer(ServerOptions.defaults().withLsm(LsmOptions.defaults(dir)));
        RaftReplication raft =
                new RaftReplication(nodes, shards, 0, "127.0.0.1", RaftOptions.defaults(dir));
        assertThatThrownBy(() -> server.clusterNodes(nodes, shards, raft, dir))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keeps no log of its own");
        raft.close();
    }

    @Test
    void anLsmStoreWithoutItsOwnLogServesOnlyAReplicatedShard() {
        ServerOptions options =
                ServerOptions.defaults()
                        .withBindAddress(new InetSocketAddress("127.0.0.1", 0))
                        .withLsm(LsmOptions.defaults(dir).withoutOwnLog());
        KeyValueServer server = new KeyValueServer(options);
        assertThatThrownBy(server::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("serves a replicated shard only");
    }
}
