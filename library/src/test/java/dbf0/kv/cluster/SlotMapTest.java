package dbf0.kv.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The slot map, the --cluster-nodes list and the nodes file. */
class SlotMapTest {

    static final List<ClusterNode> THREE =
            ClusterNode.parseList("127.0.0.1:7001,127.0.0.1:7002,localhost:7003");

    @Test
    void slotsSplitEvenlyInListOrder() {
        SlotMap map = SlotMap.evenSplit(THREE);
        assertThat(map.ranges(0)).containsExactly(new SlotMap.Range(0, 5460));
        assertThat(map.ranges(1)).containsExactly(new SlotMap.Range(5461, 10921));
        assertThat(map.ranges(2)).containsExactly(new SlotMap.Range(10922, 16383));
        assertThat(map.unassigned()).isZero();
        assertThat(SlotMap.evenSplit(THREE.subList(0, 1)).ranges(0))
                .containsExactly(new SlotMap.Range(0, 16383));
    }

    @Test
    void changesMakeNewMaps() {
        SlotMap map = SlotMap.evenSplit(THREE);
        SlotMap moved = map.withOwner(5, 2).withMigrating(6, 1).withImporting(7, 2);
        assertThat(map.owner(5)).isZero();
        assertThat(moved.owner(5)).isEqualTo(2);
        assertThat(moved.ranges(0))
                .containsExactly(new SlotMap.Range(0, 4), new SlotMap.Range(6, 5460));
        assertThat(moved.migrating(6)).isEqualTo(1);
        assertThat(moved.importing(7)).isEqualTo(2);
        assertThat(moved.migrating(7)).isEqualTo(SlotMap.NONE);
        assertThat(moved).isNotEqualTo(map);
        assertThatThrownBy(() -> map.withOwner(1, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theNodeListIsCheckedEntryByEntry() {
        assertThat(THREE.get(2).address()).isEqualTo("localhost:7003");
        assertThat(THREE.get(0).hasKnownId()).isFalse();
        assertThatThrownBy(() -> ClusterNode.parseList("127.0.0.1:7001,127.0.0.1"))
                .hasMessageContaining("'127.0.0.1' is not host:port");
        assertThatThrownBy(() -> ClusterNode.parseList("a:1,a:1")).hasMessageContaining("twice");
        assertThatThrownBy(() -> ClusterNode.parseList("a:x")).hasMessageContaining("no port");
        assertThatThrownBy(() -> ClusterNode.parseList("a:70000"))
                .hasMessageContaining("port out of range");
        assertThatThrownBy(() -> new ClusterNode("abc", "a", 1)).hasMessageContaining("40 hex");
        assertThat(ClusterNode.randomId()).matches("[0-9a-f]{40}");
        assertThat(ClusterNode.randomId()).isNotEqualTo(ClusterNode.randomId());
    }

    @Test
    void theNodesFileRoundTrips(@TempDir Path dir) throws IOException {
        SlotMap map =
                SlotMap.evenSplit(THREE)
                        .withNode(1, THREE.get(1).withId("ab".repeat(20)))
                        .withOwner(0, 1)
                        .withMigrating(1, 2)
                        .withImporting(10922, 0);
        NodesFile.write(dir, 1, map);
        assertThat(Files.readString(dir.resolve(NodesFile.NAME)))
                .isEqualTo(
                        "dbf0-cluster-nodes 1\n"
                                + "myself 1\n"
                                + "node 0 "
                                + ClusterNode.UNKNOWN_ID
                                + " 127.0.0.1:7001 1-5460\n"
                                + "node 1 "
                                + "ab".repeat(20)
                                + " 127.0.0.1:7002 0-0 5461-10921\n"
                                + "node 2 "
                                + ClusterNode.UNKNOWN_ID
                                + " localhost:7003 10922-16383\n"
                                + "migrating 1 2\n"
                                + "importing 10922 0\n"
                                + "end\n");
        NodesFile.Saved saved = NodesFile.read(dir);
        assertThat(saved.myself()).isEqualTo(1);
        assertThat(saved.map()).isEqualTo(map);
        assertThat(NodesFile.read(dir.resolve("nowhere"))).isNull();
    }

    @Test
    void aDamagedNodesFileIsRefusedWithTheLine(@TempDir Path dir) throws IOException {
        String good = NodesFile.format(0, SlotMap.evenSplit(THREE));
        assertThatThrownBy(() -> NodesFile.parse(good.replace("end\n", "")))
                .hasMessageContaining("cut short");
        assertThatThrownBy(() -> NodesFile.parse("x\n" + good)).hasMessageContaining("line 1");
        assertThatThrownBy(() -> NodesFile.parse(good.replace("0-5460", "0-99999")))
                .hasMessageContaining("line 3")
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> NodesFile.parse(good.replace("myself 0", "myself 7")))
                .hasMessageContaining("names no node");
        Files.writeString(dir.resolve(NodesFile.NAME), good.replace("node 1", "node 5"));
        assertThatThrownBy(() -> NodesFile.read(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("out of order");
    }
}
