package dbf0.kv.storage;

/**
 * A write or read the store would not do here, and why, in a word a protocol can pass on: a
 * replicated store on a node that does not lead its shard refuses writes ({@code READONLY}), and
 * one whose leader changed while a write was in flight cannot say whether it took effect ({@code
 * TRYAGAIN}). RESP answers {@code -CODE message}, as Redis answers its own refusals.
 */
public class StoreRefusedException extends StorageFailureException {

    private final String code;

    /**
     * A refusal.
     *
     * @param code a short upper-case word: READONLY, TRYAGAIN, CLUSTERDOWN
     * @param message what happened, for a person
     */
    public StoreRefusedException(String code, String message) {
        super(message);
        this.code = code;
    }

    /**
     * The word a protocol puts first.
     *
     * @return the code, such as TRYAGAIN
     */
    public String code() {
        return code;
    }
}
