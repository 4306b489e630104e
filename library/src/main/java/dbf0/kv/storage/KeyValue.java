package dbf0.kv.storage;

import dbf0.common.ByteArrayWrapper;
import java.util.Objects;

/**
 * One pair of a {@link Store#scan}: a key and its value.
 *
 * @param key the key
 * @param value its value
 */
public record KeyValue(ByteArrayWrapper key, ByteArrayWrapper value) {
    /** Checks that neither part is null. */
    public KeyValue {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }
}
