package dbf0.kv.cluster;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One node of a cluster: its id, 40 lower-case hex characters as in Redis, and the address clients
 * reach it at. The id names the node in CLUSTER NODES and SETSLOT, and outlives an address change;
 * the address is what a {@code -MOVED} sends a client to.
 *
 * @param id 40 hex characters, or {@link #UNKNOWN_ID} while the node has not told its id
 * @param host the host as the {@code --cluster-nodes} list gives it
 * @param port its RESP port
 */
public record ClusterNode(String id, String host, int port) {

    /** Length of a node id. */
    public static final int ID_LENGTH = 40;

    /** The id a peer has until it has answered CLUSTER MYID: forty zeros. */
    public static final String UNKNOWN_ID = "0".repeat(ID_LENGTH);

    private static final Pattern ID = Pattern.compile("[0-9a-f]{40}");
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * Checks the fields.
     *
     * @throws IllegalArgumentException for an id that is not 40 lower-case hex characters, an empty
     *     host or one with a space, or a port outside 1 to 65,535
     */
    public ClusterNode {
        if (!validId(id)) {
            throw new IllegalArgumentException("a node id is 40 hex characters, got " + id);
        }
        if (host.isEmpty() || host.contains(" ") || host.contains(",")) {
            throw new IllegalArgumentException("bad host '" + host + "'");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /** Whether {@code id} is 40 lower-case hex characters. */
    public static boolean validId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /** A fresh random id: 160 bits from a secure random source, as Redis draws its own. */
    public static String randomId() {
        byte[] bytes = new byte[ID_LENGTH / 2];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** False until the node has told its id ({@link #UNKNOWN_ID} until then). */
    public boolean hasKnownId() {
        return !id.equals(UNKNOWN_ID);
    }

    /** {@code host:port}, as MOVED and ASK write it. */
    public String address() {
        return host + ":" + port;
    }

    /** This node under another id. */
    public ClusterNode withId(String newId) {
        return new ClusterNode(newId, host, port);
    }

    /**
     * Parses {@code --cluster-nodes}: addresses {@code host:port} separated by commas, none twice.
     * The nodes get {@link #UNKNOWN_ID} until they are known.
     *
     * @throws IllegalArgumentException naming the entry that is not {@code host:port}
     */
    public static List<ClusterNode> parseList(String list) {
        List<ClusterNode> nodes = new ArrayList<>();
        for (String entry : list.split(",", -1)) {
            String address = entry.strip();
            int colon = address.lastIndexOf(':');
            if (colon <= 0 || colon == address.length() - 1) {
                throw new IllegalArgumentException(
                        "cluster node '" + address + "' is not host:port");
            }
            int port;
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "cluster node '" + address + "' has no port number");
            }
            ClusterNode node = new ClusterNode(UNKNOWN_ID, address.substring(0, colon), port);
            for (ClusterNode other : nodes) {
                if (other.address().equals(node.address())) {
                    throw new IllegalArgumentException(
                            "cluster node " + node.address() + " is listed twice");
                }
            }
            nodes.add(node);
        }
        if (nodes.size() > SlotMap.MAX_NODES) {
            throw new IllegalArgumentException(
                    "at most " + SlotMap.MAX_NODES + " cluster nodes, got " + nodes.size());
        }
        return List.copyOf(nodes);
    }
}
