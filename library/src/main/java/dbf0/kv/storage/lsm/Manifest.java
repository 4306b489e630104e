package dbf0.kv.storage.lsm;

import dbf0.kv.storage.LogPosition;
import dbf0.kv.storage.wal.WalDirectory;
import dbf0.kv.storage.wal.WalFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The record of which tables make up the store: a file of {@link ManifestEdit}s, each framed like a
 * log record (u32 body length, u32 CRC32C of the body, the body), and a file {@value #CURRENT}
 * naming the manifest in use. The set of tables changes only by an edit appended and forced here: a
 * table not named by a forced edit does not exist, whatever files lie around.
 *
 * <p>The manifest grows with every flush and compaction; past {@value #REWRITE_BYTES} bytes it is
 * rewritten into a new file holding one edit, the current state, which is forced, then named by a
 * new {@value #CURRENT} (written aside, forced, renamed over the old one, directory synced). A
 * crash at any point leaves {@value #CURRENT} naming a complete manifest, old or new.
 *
 * <p>Not thread-safe: the store's one background thread appends, under the store's lock.
 */
final class Manifest {

    static final String CURRENT = "CURRENT";
    static final String CURRENT_TEMP = "CURRENT.tmp";

    /** A manifest past this size is rewritten as a snapshot. */
    static final long REWRITE_BYTES = 4L << 20;

    /** The rewrite threshold in use: {@link #REWRITE_BYTES}, lowered by tests. */
    static volatile long rewriteBytes = REWRITE_BYTES;

    /** A record body above this is corruption, not an edit. */
    static final int MAX_BODY_BYTES = 64 << 20;

    /** What the edits so far add up to. */
    static final class State {
        /** Table number to (level, meta), in the order they were added. */
        final Map<Long, ManifestEdit.Added> tables = new LinkedHashMap<>();

        long logNumber;
        long nextFile = 1;
        long lastSeq;
        long clearSeq;

        /** What the tables hold of the owner's log ({@link LsmOptions#ownLog} off). */
        volatile LogPosition applied = LogPosition.NONE;

        void apply(ManifestEdit edit) {
            for (ManifestEdit.Removed r : edit.removed()) {
                tables.remove(r.number());
            }
            for (ManifestEdit.Added a : edit.added()) {
                tables.put(a.meta().number(), a);
            }
            logNumber = edit.logNumber() >= 0 ? edit.logNumber() : logNumber;
            nextFile = Math.max(nextFile, edit.nextFile());
            lastSeq = Math.max(lastSeq, edit.lastSeq());
            clearSeq = Math.max(clearSeq, edit.clearSeq());
            applied = edit.applied() != null ? edit.applied() : applied;
        }

        /** Makes this state a copy of {@code other}. */
        void copyOf(State other) {
            tables.clear();
            tables.putAll(other.tables);
            logNumber = other.logNumber;
            nextFile = other.nextFile;
            lastSeq = other.lastSeq;
            clearSeq = other.clearSeq;
            applied = other.applied;
        }

        /** One edit that recreates this state from nothing. */
        ManifestEdit snapshot() {
            return new ManifestEdit(
                    new ArrayList<>(tables.values()),
                    List.of(),
                    logNumber,
                    nextFile,
                    lastSeq,
                    clearSeq,
                    applied.equals(LogPosition.NONE) ? null : applied);
        }
    }

    /**
     * What opening found.
     *
     * @param droppedBytes bytes of a torn last edit cut off, or 0
     */
    record Opened(Manifest manifest, State state, long droppedBytes) {}

    private final WalDirectory dir;
    private final State state;
    private WalFile file;
    private String name;
    private long size;

    private Manifest(WalDirectory dir, State state, WalFile file, String name, long size) {
        this.dir = dir;
        this.state = state;
        this.file = file;
        this.name = name;
        this.size = size;
    }

    /** Opens the manifest {@value #CURRENT} names, or creates the first one in an empty store. */
    static Opened open(WalDirectory dir) throws IOException {
        if (!dir.exists(CURRENT)) {
            State state = new State();
            long number = state.nextFile++;
            return new Opened(create(dir, state, number), state, 0);
        }
        String name = readCurrent(dir);
        if (!dir.exists(name)) {
            throw new CorruptTableException(
                    dir.describe(CURRENT) + " names " + name + ", which does not exist");
        }
        WalFile file = dir.open(name);
        try {
            State state = new State();
            long good = replay(file, state, dir.describe(name));
            long dropped = file.size() - good;
            if (dropped > 0) {
                file.truncate(good); // a torn last edit: never forced, so never relied on
                file.force();
            }
            return new Opened(new Manifest(dir, state, file, name, good), state, dropped);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    private static String readCurrent(WalDirectory dir) throws IOException {
        try (WalFile current = dir.open(CURRENT)) {
            ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(current.size(), 256));
            while (bytes.hasRemaining() && current.read(bytes, bytes.position()) > 0) {
                // read it all
            }
            String text = new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8);
            if (!text.startsWith("MANIFEST-") || !text.endsWith("\n")) {
                throw new CorruptTableException(
                        dir.describe(CURRENT) + ": does not name a manifest: " + text.strip());
            }
            return text.strip();
        }
    }

    /** Applies every good edit; returns the offset after the last one. */
    private static long replay(WalFile file, State state, String where) throws IOException {
        long size = file.size();
        long at = 0;
        ByteBuffer header = ByteBuffer.allocate(8);
        while (at + 8 <= size) {
            header.clear();
            readFully(file, header, at);
            int length = header.getInt(0);
            if (length < 0 || length > MAX_BODY_BYTES || at + 8 + length > size) {
                break;
            }
            ByteBuffer body = ByteBuffer.allocate(length);
            readFully(file, body, at + 8);
            CRC32C crc = new CRC32C();
            crc.update(body.array());
            if ((int) crc.getValue() != header.getInt(4)) {
                break;
            }
            try {
                state.apply(ManifestEdit.decode(body.flip()));
            } catch (IllegalArgumentException e) {
                throw new CorruptTableException(where + " at offset " + at + ": " + e.getMessage());
            }
            at += 8 + length;
        }
        return at;
    }

    private static void readFully(WalFile file, ByteBuffer into, long at) throws IOException {
        while (into.hasRemaining()) {
            if (file.read(into, at + into.position()) < 0) {
                throw new IOException("unexpected end of file");
            }
        }
    }

    static byte[] frame(ManifestEdit edit) {
        byte[] body = edit.encode();
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(8 + body.length)
                .putInt(body.length)
                .putInt((int) crc.getValue())
                .put(body)
                .array();
    }

    /** Writes a new manifest holding {@code state} and points {@value #CURRENT} at it. */
    private static Manifest create(WalDirectory dir, State state, long number) throws IOException {
        String name = String.format("MANIFEST-%06d", number);
        dir.delete(name);
        WalFile file = dir.open(name);
        try {
            byte[] frame = frame(state.snapshot());
            file.write(ByteBuffer.wrap(frame), 0);
            file.force();
            dir.sync(); // the new manifest's name, before any pointer to it
            dir.delete(CURRENT_TEMP);
            try (WalFile temp = dir.open(CURRENT_TEMP)) {
                temp.write(ByteBuffer.wrap((name + "\n").getBytes(StandardCharsets.UTF_8)), 0);
                temp.force();
            }
            dir.rename(CURRENT_TEMP, CURRENT);
            dir.sync();
            return new Manifest(dir, state, file, name, frame.length);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    State state() {
        return state;
    }

    long bytes() {
        return size;
    }

    String name() {
        return name;
    }

    /**
     * Appends {@code edit} and forces it: from the force's return the edit is the truth. Rewrites
     * the manifest first if it has grown past {@link #REWRITE_BYTES}.
     */
    void append(ManifestEdit edit, java.util.function.LongSupplier newNumber) throws IOException {
        byte[] frame = frame(edit);
        file.write(ByteBuffer.wrap(frame), size);
        file.force();
        size += frame.length;
        state.apply(edit);
        if (size > rewriteBytes) {
            rewrite(newNumber.getAsLong());
        }
    }

    /** A fresh manifest holding the current state; the old one is deleted once replaced. */
    private void rewrite(long number) throws IOException {
        state.nextFile = Math.max(state.nextFile, number + 1);
        switchTo(create(dir, state, number));
    }

    /**
     * Makes {@code next} the whole state: written as a new manifest of one edit, forced and named
     * by {@value #CURRENT} (the crash-safe order of a rewrite), the old manifest deleted. What a
     * restore from a checkpoint does to the set of tables.
     */
    void replace(State next, long number) throws IOException {
        next.nextFile = Math.max(next.nextFile, number + 1);
        Manifest fresh = create(dir, next, number);
        state.copyOf(next);
        switchTo(fresh);
    }

    private void switchTo(Manifest fresh) throws IOException {
        String old = name;
        file.close();
        file = fresh.file;
        name = fresh.name;
        size = fresh.size;
        dir.delete(old);
    }

    void close() throws IOException {
        file.close();
    }
}
