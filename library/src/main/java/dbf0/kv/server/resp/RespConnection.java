package dbf0.kv.server.resp;

import dbf0.base.server.PendingReplies;
import java.nio.charset.StandardCharsets;

/**
 * What one RESP connection remembers between its commands: the protocol it speaks (RESP2 until
 * HELLO 3), its id and name, and whether it is inside a refused transaction. One per connection,
 * used by one thread at a time (the session's), so nothing here is synchronized. The commands
 * themselves stay stateless and shared; whatever differs between connections is here.
 */
public final class RespConnection {

    private final long id;
    private int protocol = 2;
    private byte[] name;
    private boolean refusedTransaction;
    private boolean asking;
    private boolean readOnly;
    private long lastWriteIndex = -1;
    private final PendingReplies pending;

    /**
     * @param id unique among the server's connections, as CLIENT ID and HELLO report it
     * @param beforeWaiting what makes the connection's submitted writes go ahead before it waits
     *     for them: the store's {@code flush}
     */
    public RespConnection(long id, Runnable beforeWaiting) {
        this.id = id;
        this.pending = new PendingReplies(beforeWaiting);
    }

    public long id() {
        return id;
    }

    /** 2 or 3: which RESP this connection's replies are written in. */
    public int protocol() {
        return protocol;
    }

    public boolean resp3() {
        return protocol == 3;
    }

    void protocol(int version) {
        if (version != 2 && version != 3) {
            throw new IllegalArgumentException("RESP2 or RESP3, not " + version);
        }
        protocol = version;
    }

    /** The name set by CLIENT SETNAME or HELLO ... SETNAME, or null. */
    byte[] name() {
        return name;
    }

    /** An empty name removes it, as in Redis. */
    void name(byte[] newName) {
        name = newName.length == 0 ? null : newName;
    }

    /**
     * True from a refused MULTI until the EXEC or DISCARD that would have ended the transaction:
     * meanwhile no command runs (see {@link Transactions}).
     */
    boolean refusedTransaction() {
        return refusedTransaction;
    }

    void refusedTransaction(boolean refused) {
        refusedTransaction = refused;
    }

    /**
     * True after ASKING, for the one command that follows it: a cluster node then serves a key of a
     * slot it is importing (see {@code dbf0.kv.server.cluster}).
     *
     * @return whether the last command was ASKING
     */
    public boolean asking() {
        return asking;
    }

    /**
     * Sets or clears the ASKING flag.
     *
     * @param on true after ASKING, false once the next command has run
     */
    public void asking(boolean on) {
        asking = on;
    }

    /**
     * True after READONLY (until READWRITE): on a replicated cluster, a replica then answers this
     * connection's reads of its own shard from its own copy, which may be behind the leader's.
     *
     * @return whether the connection accepts reads from a replica
     */
    public boolean readOnly() {
        return readOnly;
    }

    /**
     * Sets or clears the READONLY flag.
     *
     * @param on true after READONLY, false after READWRITE
     */
    public void readOnly(boolean on) {
        readOnly = on;
    }

    /**
     * Where this connection's last acknowledged write sits in its shard's log ({@link
     * dbf0.kv.storage.Store#lastWriteIndex} as the write was answered): what WAIT waits for.
     *
     * @return the log index, or -1 before any write or without replicas
     */
    public long lastWriteIndex() {
        return lastWriteIndex;
    }

    void lastWriteIndex(long index) {
        lastWriteIndex = Math.max(lastWriteIndex, index);
    }

    /**
     * The replies of this connection's writes still in flight, in order: the commands that
     * {@linkplain RespCommand#defersReply() defer their reply} queue it here, and the session
     * writes them once the writes are done.
     *
     * @return the connection's queue of waiting replies
     */
    public PendingReplies pending() {
        return pending;
    }

    @Override
    public String toString() {
        return "RespConnection{id="
                + id
                + ", resp"
                + protocol
                + (name == null ? "" : ", name=" + new String(name, StandardCharsets.UTF_8))
                + "}";
    }
}
