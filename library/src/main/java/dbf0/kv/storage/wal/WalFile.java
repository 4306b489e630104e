package dbf0.kv.storage.wal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The few things the log does to one file. An interface, so that tests can put a file that fails on
 * demand or loses its unforced bytes in a simulated power cut under the same code (see the test
 * sources' SimulatedDirectory); {@link FileChannelDirectory} is the real one.
 */
public interface WalFile extends Closeable {

    long size() throws IOException;

    /** Reads up to {@code dst.remaining()} bytes at {@code position}; -1 at the end. */
    int read(ByteBuffer dst, long position) throws IOException;

    /**
     * Writes all of {@code src} at {@code position}, or throws having written an unknown part of
     * it.
     */
    void write(ByteBuffer src, long position) throws IOException;

    /** Returns once every byte written so far is on stable storage (fdatasync's promise). */
    void force() throws IOException;

    /** Cuts the file to {@code size} bytes. */
    void truncate(long size) throws IOException;
}
