package dbf0.kv.storage.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The real {@link LogDirectory}: a directory on disk, files through {@link FileChannel}. It holds
 * an exclusive lock on a file named {@value #LOCK_NAME} while open, so that two servers never
 * append to one log (the operating system drops the lock when the process dies, even by SIGKILL).
 */
public final class FileChannelDirectory implements LogDirectory {

  public static final String LOCK_NAME = "LOCK";

  private final Path dir;
  private final FileChannel lockChannel;
  private final FileLock lock;

  public FileChannelDirectory(Path dir) throws IOException {
    this.dir = dir;
    Files.createDirectories(dir);
    lockChannel = FileChannel.open(dir.resolve(LOCK_NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
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
      throw new IOException(dir + " is in use by another process (its " + LOCK_NAME + " file is locked)");
    }
    lock = held;
  }

  @Override
  public LogFile open(String name) throws IOException {
    FileChannel channel = FileChannel.open(dir.resolve(name), StandardOpenOption.CREATE, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    return new LogFile() {
      @Override
      public long size() throws IOException {
        return channel.size();
      }

      @Override
      public int read(ByteBuffer dst, long position) throws IOException {
        return channel.read(dst, position);
      }

      @Override
      public void write(ByteBuffer src, long position) throws IOException {
        long at = position;
        while (src.hasRemaining()) {
          at += channel.write(src, at);
        }
      }

      @Override
      public void force() throws IOException {
        // false: the file's data and the metadata needed to read it back (its size), not its
        // modification time: fdatasync, one write to the disk less than fsync.
        channel.force(false);
      }

      @Override
      public void truncate(long size) throws IOException {
        channel.truncate(size);
      }

      @Override
      public void close() throws IOException {
        channel.close();
      }
    };
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
    Files.move(dir.resolve(from), dir.resolve(to), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
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
