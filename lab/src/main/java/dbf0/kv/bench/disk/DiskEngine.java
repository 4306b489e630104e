package dbf0.kv.bench.disk;

import java.io.Closeable;
import java.io.IOException;

/**
 * One storage engine under the benchmark: the three operations the 2020 benchmark times, and the
 * engine's own counters. Keys and values are plain arrays so that no engine pays for another's
 * wrapper. Every method may be called from many threads at once.
 */
public interface DiskEngine extends Closeable {

    /**
     * Stores {@code value} under {@code key}, as durable as the engine's fsync policy promises.
     *
     * @param key the key
     * @param value the value; the engine may keep the array
     * @throws IOException if the engine fails
     */
    void put(byte[] key, byte[] value) throws IOException;

    /**
     * Looks {@code key} up.
     *
     * @param key the key
     * @return true if it has a value
     * @throws IOException if the engine fails
     */
    boolean get(byte[] key) throws IOException;

    /**
     * Removes {@code key}.
     *
     * @param key the key
     * @return true if it had a value
     * @throws IOException if the engine fails
     */
    boolean delete(byte[] key) throws IOException;

    /**
     * What the engine has done since it opened; each field is a running total.
     *
     * @return the counters now
     */
    EngineCounters counters();

    /**
     * The engine and the options it runs with, for the log: one line.
     *
     * @return a description
     */
    String describe();
}
