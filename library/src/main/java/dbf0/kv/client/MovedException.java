package dbf0.kv.client;

/**
 * A cluster node answered MOVED: the request's key lives on another node, and nothing of the
 * request was applied. {@link ShardedKeyValueClient} in cluster mode catches it, asks that node for
 * the slot map again, and sends the request where the map says.
 */
public class MovedException extends ServerErrorException {

    private final int slot;
    private final String address;

    /**
     * A MOVED reply as an exception.
     *
     * @param slot the key's hash slot
     * @param address the owner's "host:port"
     */
    public MovedException(int slot, String address) {
        super("MOVED " + slot + " " + address);
        this.slot = slot;
        this.address = address;
    }

    /**
     * The key's hash slot.
     *
     * @return the slot, 0 to 16,383
     */
    public int slot() {
        return slot;
    }

    /**
     * The node that owns the slot.
     *
     * @return its "host:port"
     */
    public String address() {
        return address;
    }
}
