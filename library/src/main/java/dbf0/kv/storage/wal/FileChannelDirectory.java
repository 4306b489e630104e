package dbf0.kv.storage.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The real {@link WalDirectory}: a directory on disk, files through {@link FileChannel}. It holds
 * an exclusive lock on a file named {@value #LOCK_NAME} while open, so that two servers never
 * append to one log (the operating system drops the lock when the process dies, even by SIGKILL).
 */
public final class FileChannelDirectory implements WalDirectory {

    public static final String LOCK_NAME = "LOCK";

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;

    /**
     * Opens {@code dir}, creating it if it is missing; its parent must exist.
     *
     * @param dir the directory of the log or store
     * @throws NoSuchFileException if {@code dir} is missing and so is its parent (the message names
     *     both)
     * @throws FileSystemException if {@code dir} is a file
     * @throws IOException if another process holds the directory's lock, or the disk fails
     */
    public FileChannelDirectory(Path dir) throws IOException {
        this.dir = dir;
        createIfMissing(dir);
        lockChannel =
                FileChannel.open(
                        dir.resolve(LOCK_NAME),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
        FileLock held;
        try {
            held = lockChannel.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException sameJvm) {
            held = null; // this JVM holds it already: in use all the same
        } catch (IOException e) {
            lockChannel.close();
            throw e;
        }
        if (held == null) {
            lockChannel.close();
            throw new IOException(
                    dir + " is in use by another process (its " + LOCK_NAME + " file is locked)");
        }
        lock = held;
    }

    /**
     * Creates {@code dir} if missing, but not its parent: a mistyped path fails here, naming it,
     * instead of becoming a tree of new directories with an empty store in it.
     */
    static void createIfMissing(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        if (Files.exists(dir)) {
            throw new FileSystemException(dir.toString(), null, "is a file, not a directory");
        }
        Path parent = dir.getParent() != null ? dir.getParent() : dir.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw new NoSuchFileException(
                    dir.toString(), null, "its parent " + parent + " does not exist");
        }
        try {
            Files.createDirectory(dir);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir)) { // else another opener made it first
                throw e;
            }
        }
    }

    @Override
    public WalFile open(String name) throws IOException {
        return new ChannelFile(dir.resolve(name));
    }

    /**
     * One file through a {@link FileChannel} that survives interrupts. A FileChannel closes itself,
     * for every thread, when a thread blocked in it (or entering it with its interrupt flag set) is
     * interrupted. Under {@code interval} and {@code never} the sessions' own threads append, and a
     * server shutting down interrupts them; so when a call fails because the channel was closed and
     * not by {@link #close}, this opens the file again and repeats the call once. Every call is
     * positional, so repeating one is safe: a write lands on the same bytes, a force covers the
     * file whatever descriptor asks. The interrupt itself is kept for the caller to see.
     */
    private static final class ChannelFile implements WalFile {

        private interface Call<T> {
            T on(FileChannel channel) throws IOException;
        }

        private final Path path;
        private volatile FileChannel channel;
        private volatile boolean closed;

        ChannelFile(Path path) throws IOException {
            this.path = path;
            this.channel = openChannel(path);
        }

        private static FileChannel openChannel(Path path) throws IOException {
            return FileChannel.open(
                    path,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        }

        private <T> T call(Call<T> call) throws IOException {
            FileChannel current = channel;
            try {
                return call.on(current);
            } catch (
                    ClosedChannelException
                            e) { // ClosedByInterruptException, AsynchronousCloseException
                if (closed) {
                    throw e;
                }
                // else the repeat would close the new channel at once
                boolean interrupted = Thread.interrupted();
                try {
                    return call.on(reopen(current));
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }

        /** A new channel in place of {@code broken}, unless another thread already opened one. */
        private synchronized FileChannel reopen(FileChannel broken) throws IOException {
            if (closed) {
                throw new ClosedChannelException();
            }
            if (channel == broken) {
                channel = openChannel(path);
            }
            return channel;
        }

        @Override
        public long size() throws IOException {
            return call(FileChannel::size);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            int start = dst.position();
            return call(
                    c -> {
                        dst.position(start); // a repeat reads into the same place
                        return c.read(dst, position);
                    });
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            int start = src.position();
            call(
                    c -> {
                        src.position(start); // a repeat writes the same bytes at the same place
                        long at = position;
                        while (src.hasRemaining()) {
                            at += c.write(src, at);
                        }
                        return null;
                    });
        }

        @Override
        public void force() throws IOException {
            // false: the file's data and the metadata needed to read it back (its size), not its
            // modification time: fdatasync, one write to the disk less than fsync.
            call(
                    c -> {
                        c.force(false);
                        return null;
                    });
        }

        @Override
        public void truncate(long size) throws IOException {
            call(c -> c.truncate(size));
        }

        @Override
        public synchronized void close() throws IOException {
            closed = true;
            channel.close();
        }
    }

    @Override
    public boolean exists(String name) {
        return Files.exists(dir.resolve(name));
    }

    @Override
    public void delete(String name) throws IOException {
        Files.deleteIfExists(dir.resolve(name));
    }

    @Override
    public void rename(String from, String to) throws IOException {
        Files.move(
                dir.resolve(from),
                dir.resolve(to),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public java.util.List<String> list() throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }

    @Override
    public void sync() throws IOException {
        // Linux lets a directory be opened read-only and fsynced: that makes its entries durable.
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    @Override
    public String describe(String name) {
        return dir.resolve(name).toString();
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            lockChannel.close();
        }
    }
}
