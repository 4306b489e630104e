package dbf0.kv.storage.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * A {@link WalDirectory} in memory that models what a power cut keeps, and fails on demand.
 *
 * <p>The model: every file (inode) has its current bytes and its durable bytes, the bytes as of its
 * last completed {@link WalFile#force}. The directory has its current names and its durable names,
 * as of its last {@link #sync}. {@link #powerCut} throws away everything not durable: each file
 * goes back to its durable bytes, plus, when tearing, a random prefix of the bytes appended since
 * (a write the disk had half done), and the names go back to the durable names, so a file created
 * or renamed without a directory sync vanishes or keeps its old name. That is the contract POSIX
 * and ext4/xfs give, taken at its most pessimistic.
 *
 * <p>A file written in place (a write below its durable size since the last force: the B+tree's
 * pages) is cut another way, since a disk may write unforced blocks in any order: each unforced
 * write (and truncation) since the last force survives or not by a coin toss, in order, and the
 * last write keeps a random prefix of its bytes over what was there: a torn page.
 *
 * <p>Faults: {@link #failNext} makes the next n calls of an operation throw, and {@link #capacity}
 * makes writes past a total size fail as a full disk would. A failed write writes nothing; a failed
 * force makes nothing durable.
 *
 * <p>A store reaches the files through a {@link #mount}: after a power cut every call through an
 * earlier mount, and every file opened through it, throws, as a dead machine's would, so a store
 * left running from before the cut cannot touch what the next one recovers.
 */
public final class SimulatedDirectory {

    public enum Op {
        OPEN,
        WRITE,
        FORCE,
        TRUNCATE,
        RENAME,
        SYNC_DIR,
        DELETE
    }

    private static final class Inode {
        byte[] data = new byte[0];
        int size;
        byte[] durable = new byte[0];

        /**
         * Writes (and truncations, bytes null) since the last force, for a file written in place.
         */
        final java.util.List<Pending> pending = new java.util.ArrayList<>();

        /** True if a write since the last force landed below the durable size. */
        boolean overwrote;
    }

    private record Pending(long position, byte[] bytes) {}

    private final Map<String, Inode> names = new HashMap<>();
    private Map<String, Inode> durableNames = new HashMap<>();
    private final Map<Op, Integer> failures = new EnumMap<>(Op.class);
    private long capacity = Long.MAX_VALUE;
    private long forces;
    private long writes;
    private int generation;

    /** The directory as a store sees it until the next power cut. */
    public synchronized WalDirectory mount() {
        return new Mount(generation);
    }

    /** Makes the next {@code count} calls of {@code op} throw an IOException. */
    public synchronized void failNext(Op op, int count) {
        failures.put(op, count);
    }

    /** Writes that would take the total size of all files past {@code bytes} fail (a full disk). */
    public synchronized void capacity(long bytes) {
        capacity = bytes;
    }

    synchronized long forces() {
        return forces;
    }

    /**
     * Write calls that succeeded, on every file: how many system calls a real disk would have seen.
     */
    public synchronized long writes() {
        return writes;
    }

    /**
     * Cuts the power at the {@code ops}-th write, force, directory sync, rename or delete from now
     * on (any thread's): a write is made first and then torn with the rest of the unforced bytes,
     * anything else is cut before it happens. The call that meets the cut throws, as does every
     * later call through the old mounts.
     */
    public synchronized void cutAt(long ops, Random random) {
        cutAt(ops, random, "");
    }

    /** As {@link #cutAt(long, Random)}, counting only the calls of threads named so at first. */
    public synchronized void cutAt(long ops, Random random, String threadPrefix) {
        cutThreads = threadPrefix;
        cutCountdown = ops;
        cutRandom = random;
        cutWhere = null;
    }

    /** The thread and operation the last {@link #cutAt} cut, or null if it has not happened. */
    public synchronized String cutWhere() {
        return cutWhere;
    }

    private long cutCountdown;
    private String cutThreads = "";
    private Random cutRandom;
    private String cutWhere;

    private void maybeCut(Op op) throws IOException {
        if (cutCountdown > 0
                && Thread.currentThread().getName().startsWith(cutThreads)
                && --cutCountdown == 0) {
            cutWhere = Thread.currentThread().getName() + " " + op;
            powerCut(cutRandom);
            throw new IOException("simulated: the power went at this " + op);
        }
    }

    private void maybeFail(Op op) throws IOException {
        Integer left = failures.get(op);
        if (left != null && left > 0) {
            failures.put(op, left - 1);
            throw new IOException("simulated " + op + " failure");
        }
    }

    /**
     * A power cut: only durable bytes and names survive, and with {@code random} each file keeps a
     * random prefix of its unforced appended bytes as well. Faults are cleared, as on a new boot.
     */
    public synchronized void powerCut(Random random) {
        Map<Inode, Boolean> done = new java.util.IdentityHashMap<>();
        for (Inode inode : names.values()) {
            cut(inode, random, done);
        }
        for (Inode inode : durableNames.values()) {
            cut(inode, random, done);
        }
        names.clear();
        names.putAll(durableNames);
        failures.clear();
        capacity = Long.MAX_VALUE;
        generation++;
    }

    private static void cut(Inode inode, Random random, Map<Inode, Boolean> done) {
        if (done.put(inode, Boolean.TRUE) != null) {
            return;
        }
        if (random != null && inode.overwrote) {
            cutInPlace(inode, random);
            return;
        }
        inode.pending.clear();
        int keep = inode.durable.length;
        boolean appendedSince =
                inode.size > keep && Arrays.equals(inode.data, 0, keep, inode.durable, 0, keep);
        if (random != null && appendedSince) {
            keep += random.nextInt(inode.size - keep + 1);
            inode.data = Arrays.copyOf(inode.data, keep);
        } else {
            inode.data = inode.durable.clone();
            keep = inode.durable.length;
        }
        inode.size = keep;
    }

    /**
     * The in-place model of the class comment: unforced writes survive by chance, the last torn.
     */
    private static void cutInPlace(Inode inode, Random random) {
        byte[] data = inode.durable.clone();
        int size = data.length;
        int n = inode.pending.size();
        for (int i = 0; i < n; i++) {
            Pending p = inode.pending.get(i);
            if (p.bytes() == null) {
                if (random.nextBoolean()) {
                    size = (int) Math.min(size, p.position());
                }
                continue;
            }
            int length =
                    i == n - 1
                            ? random.nextInt(p.bytes().length + 1)
                            : random.nextBoolean() ? p.bytes().length : 0;
            if (length == 0) {
                continue;
            }
            int end = (int) p.position() + length;
            if (end > data.length) {
                data = Arrays.copyOf(data, end);
            }
            if (p.position() > size) {
                Arrays.fill(data, size, (int) p.position(), (byte) 0);
            }
            System.arraycopy(p.bytes(), 0, data, (int) p.position(), length);
            size = Math.max(size, end);
        }
        inode.data = Arrays.copyOf(data, size);
        inode.size = size;
        inode.durable = inode.data.clone();
        inode.pending.clear();
        inode.overwrote = false;
    }

    /** The current bytes of {@code name}, for tests that damage or inspect a log. */
    public synchronized byte[] bytes(String name) {
        Inode inode = names.get(name);
        return inode == null ? null : Arrays.copyOf(inode.data, inode.size);
    }

    /** Replaces {@code name}'s bytes, durably, as a disk that went bad would. */
    public synchronized void replace(String name, byte[] bytes) {
        Inode inode = names.computeIfAbsent(name, n -> new Inode());
        inode.data = bytes.clone();
        inode.size = bytes.length;
        inode.durable = bytes.clone();
        durableNames.put(name, inode);
    }

    private long totalSize() {
        long total = 0;
        for (Inode inode : names.values()) {
            total += inode.size;
        }
        return total;
    }

    private final class Mount implements WalDirectory {
        private final int gen;

        Mount(int gen) {
            this.gen = gen;
        }

        private void alive() throws IOException {
            if (gen != generation) {
                throw new IOException("simulated: this machine lost power");
            }
        }

        @Override
        public WalFile open(String name) throws IOException {
            synchronized (SimulatedDirectory.this) {
                alive();
                maybeFail(Op.OPEN);
                Inode inode = names.computeIfAbsent(name, n -> new Inode());
                return new SimulatedFile(inode, gen);
            }
        }

        @Override
        public boolean exists(String name) throws IOException {
            synchronized (SimulatedDirectory.this) {
                alive();
                return names.containsKey(name);
            }
        }

        @Override
        public void delete(String name) throws IOException {
            synchronized (SimulatedDirectory.this) {
                alive();
                maybeFail(Op.DELETE);
                maybeCut(Op.DELETE);
                names.remove(name);
            }
        }

        @Override
        public void rename(String from, String to) throws IOException {
            synchronized (SimulatedDirectory.this) {
                alive();
                maybeFail(Op.RENAME);
                maybeCut(Op.RENAME);
                Inode inode = names.remove(from);
                if (inode == null) {
                    throw new IOException("no such file: " + from);
                }
                names.put(to, inode);
            }
        }

        @Override
        public java.util.List<String> list() throws IOException {
            synchronized (SimulatedDirectory.this) {
                alive();
                return java.util.List.copyOf(names.keySet());
            }
        }

        @Override
        public void sync() throws IOException {
            synchronized (SimulatedDirectory.this) {
                alive();
                maybeFail(Op.SYNC_DIR);
                maybeCut(Op.SYNC_DIR);
                durableNames = new HashMap<>(names);
            }
        }

        @Override
        public String describe(String name) {
            return "sim:/" + name;
        }

        @Override
        public void close() {}
    }

    private final class SimulatedFile implements WalFile {
        private final Inode inode;
        private final int gen;
        private boolean closed;

        SimulatedFile(Inode inode, int gen) {
            this.inode = inode;
            this.gen = gen;
        }

        private void open() throws IOException {
            if (closed) {
                throw new IOException("closed");
            }
            if (gen != generation) {
                throw new IOException("simulated: this machine lost power");
            }
        }

        @Override
        public long size() throws IOException {
            synchronized (SimulatedDirectory.this) {
                open();
                return inode.size;
            }
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            synchronized (SimulatedDirectory.this) {
                open();
                if (position >= inode.size) {
                    return -1;
                }
                int n = (int) Math.min(dst.remaining(), inode.size - position);
                dst.put(inode.data, (int) position, n);
                return n;
            }
        }

        @Override
        public void write(ByteBuffer src, long position) throws IOException {
            synchronized (SimulatedDirectory.this) {
                open();
                maybeFail(Op.WRITE);
                int n = src.remaining();
                long end = position + n;
                if (totalSize() + Math.max(0, end - inode.size) > capacity) {
                    throw new IOException("simulated: no space left on device");
                }
                if (end > inode.data.length) {
                    inode.data =
                            Arrays.copyOf(inode.data, (int) Math.max(end, inode.data.length * 2L));
                }
                if (position > inode.size) {
                    Arrays.fill(inode.data, inode.size, (int) position, (byte) 0);
                }
                if (position < inode.durable.length) {
                    inode.overwrote = true;
                }
                byte[] copy = new byte[n];
                src.duplicate().get(copy);
                inode.pending.add(new Pending(position, copy));
                src.get(inode.data, (int) position, n);
                inode.size = (int) Math.max(inode.size, end);
                writes++;
                maybeCut(Op.WRITE);
            }
        }

        @Override
        public void force() throws IOException {
            synchronized (SimulatedDirectory.this) {
                open();
                maybeFail(Op.FORCE);
                maybeCut(Op.FORCE);
                inode.durable = Arrays.copyOf(inode.data, inode.size);
                inode.pending.clear();
                inode.overwrote = false;
                forces++;
            }
        }

        @Override
        public void truncate(long size) throws IOException {
            synchronized (SimulatedDirectory.this) {
                open();
                maybeFail(Op.TRUNCATE);
                if (size < inode.size) {
                    inode.size = (int) size;
                }
                inode.pending.add(new Pending(size, null));
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
