package dbf0.kv.storage.wal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;

/** A directory whose log's force waits until the test lets it go: a stalled disk. */
final class StalledForce implements WalDirectory {
    final WalDirectory disk;
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    StalledForce(WalDirectory disk) {
        this.disk = disk;
    }

    @Override
    public WalFile open(String name) throws IOException {
        WalFile file = disk.open(name);
        return new WalFile() {
            @Override
            public long size() throws IOException {
                return file.size();
            }

            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                return file.read(dst, position);
            }

            @Override
            public void write(ByteBuffer src, long position) throws IOException {
                file.write(src, position);
            }

            @Override
            public void force() throws IOException {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new InterruptedIOException("stalled force interrupted");
                }
                file.force();
            }

            @Override
            public void truncate(long size) throws IOException {
                file.truncate(size);
            }

            @Override
            public void close() throws IOException {
                file.close();
            }
        };
    }

    @Override
    public boolean exists(String name) throws IOException {
        return disk.exists(name);
    }

    @Override
    public void delete(String name) throws IOException {
        disk.delete(name);
    }

    @Override
    public void rename(String from, String to) throws IOException {
        disk.rename(from, to);
    }

    @Override
    public java.util.List<String> list() throws IOException {
        return disk.list();
    }

    @Override
    public void sync() throws IOException {
        disk.sync();
    }

    @Override
    public String describe(String name) {
        return disk.describe(name);
    }

    @Override
    public void close() throws IOException {
        disk.close();
    }
}
