package dbf0.kv.storage.lsm;

import dbf0.kv.storage.LogPosition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A checkpoint: the store's tables at one position of its owner's log ({@link LogPosition}), as a
 * directory that is itself a store's data directory. It holds a hard link to each table (a table
 * never changes once written, so a link is a copy that costs no bytes, and compaction deleting the
 * table's name in the store leaves the checkpoint's), a manifest of one edit holding the whole
 * state, and {@code CURRENT} naming it. RocksDB's checkpoints are made the same way. A replicated
 * shard's snapshot is one: the leader sends its files to a member that lags, which loads them with
 * {@link #restore}.
 *
 * <p>Written in this order: links, the manifest forced, {@code CURRENT} forced, the directory
 * synced. A checkpoint is read whole or refused: a frame that does not check out, a missing {@code
 * CURRENT}, manifest or table is an error naming the file.
 */
final class Checkpoint {

    private Checkpoint() {}

    /**
     * What a checkpoint holds.
     *
     * @param files every file written, tables first, {@code CURRENT} last
     * @param applied the position its tables hold
     */
    record Written(List<Path> files, LogPosition applied) {}

    /**
     * Writes the checkpoint of {@code state}, whose tables lie in {@code from}, into {@code dir}.
     */
    static Written write(Path from, Manifest.State state, Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        for (ManifestEdit.Added a : state.tables.values()) {
            String name = TableFormat.tableName(a.meta().number());
            Path link = dir.resolve(name);
            linkOrCopy(from.resolve(name), link);
            files.add(link);
        }
        Manifest.State copy = new Manifest.State();
        copy.copyOf(state);
        String name = String.format("MANIFEST-%06d", copy.nextFile);
        copy.nextFile++;
        Path manifest = dir.resolve(name);
        writeForced(manifest, Manifest.frame(copy.snapshot()));
        files.add(manifest);
        Path current = dir.resolve(Manifest.CURRENT);
        writeForced(current, (name + "\n").getBytes(StandardCharsets.UTF_8));
        files.add(current);
        syncDirectory(dir);
        return new Written(files, copy.applied);
    }

    /** A hard link; a copy, forced, where the file system has none between the two places. */
    static void linkOrCopy(Path existing, Path link) throws IOException {
        Files.deleteIfExists(link);
        try {
            Files.createLink(link, existing);
        } catch (UnsupportedOperationException | IOException e) {
            Files.copy(existing, link, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel c = FileChannel.open(link, StandardOpenOption.WRITE)) {
                c.force(true);
            }
        }
    }

    private static void writeForced(Path file, byte[] bytes) throws IOException {
        try (FileChannel c =
                FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                c.write(b);
            }
            c.force(true);
        }
    }

    static void syncDirectory(Path dir) throws IOException {
        try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
            c.force(true);
        }
    }

    /**
     * The state a checkpoint's manifest holds, every table it names checked to be there.
     *
     * @throws CorruptTableException naming the file, for a checkpoint that is not whole
     */
    static Manifest.State read(Path dir) throws IOException {
        Path current = dir.resolve(Manifest.CURRENT);
        if (!Files.isRegularFile(current)) {
            throw new CorruptTableException(current + ": missing: " + dir + " is no checkpoint");
        }
        String text = new String(Files.readAllBytes(current), StandardCharsets.UTF_8);
        if (!text.startsWith("MANIFEST-") || !text.endsWith("\n") || text.length() > 64) {
            throw new CorruptTableException(current + ": does not name a manifest");
        }
        Path manifest = dir.resolve(text.strip());
        if (!Files.isRegularFile(manifest)) {
            throw new CorruptTableException(current + " names " + manifest + ", which is missing");
        }
        Manifest.State state = new Manifest.State();
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(manifest));
        if (!bytes.hasRemaining()) {
            throw new CorruptTableException(manifest + ": empty");
        }
        while (bytes.hasRemaining()) {
            int at = bytes.position();
            if (bytes.remaining() < 8) {
                throw new CorruptTableException(manifest + " at offset " + at + ": cut short");
            }
            int length = bytes.getInt();
            int crc = bytes.getInt();
            if (length < 0 || length > bytes.remaining()) {
                throw new CorruptTableException(
                        manifest + " at offset " + at + ": an edit of " + length + " bytes");
            }
            byte[] body = new byte[length];
            bytes.get(body);
            CRC32C check = new CRC32C();
            check.update(body);
            if ((int) check.getValue() != crc) {
                throw new CorruptTableException(
                        manifest + " at offset " + at + ": its CRC32C does not match: damaged");
            }
            try {
                state.apply(ManifestEdit.decode(ByteBuffer.wrap(body)));
            } catch (IllegalArgumentException e) {
                throw new CorruptTableException(
                        manifest + " at offset " + at + ": " + e.getMessage());
            }
        }
        for (ManifestEdit.Added a : state.tables.values()) {
            Path table = dir.resolve(TableFormat.tableName(a.meta().number()));
            if (!Files.isRegularFile(table)) {
                throw new CorruptTableException(table + ": named by " + manifest + " but missing");
            }
        }
        return state;
    }

    /**
     * Makes the checkpoint in {@code dir} the whole store: its tables linked in under new numbers
     * and opened, a new manifest naming them alone (with the checkpoint's sequence numbers and
     * position) made current, then the store's state swapped: first to nothing, and once every read
     * that began before has ended, to the checkpoint's tables with its sequence numbers. A read
     * meanwhile finds nothing rather than a mix of the two. The memtables' writes are dropped (its
     * owner's log has them); the old tables are retired. The caller has stopped writes and paused
     * the background threads.
     */
    static LogPosition restore(LsmCore core, WritePath writes, Background background, Path dir)
            throws IOException {
        Manifest.State from = read(dir);
        List<List<Table>> levels = new ArrayList<>();
        for (int i = 0; i < Version.LEVELS; i++) {
            levels.add(new ArrayList<>());
        }
        Manifest.State next = new Manifest.State();
        List<Table> opened = new ArrayList<>();
        int largestValue = 0;
        try {
            for (ManifestEdit.Added a : from.tables.values()) {
                long number = core.nextFile.getAndIncrement();
                String name = TableFormat.tableName(number);
                Path source = dir.resolve(TableFormat.tableName(a.meta().number()));
                linkOrCopy(source, core.options.dataDir().resolve(name));
                Table t =
                        Table.open(
                                core.dir.open(name),
                                number,
                                core.dir.describe(name) + " (from " + source + ")");
                opened.add(t);
                levels.get(a.level()).add(t);
                next.tables.put(number, new ManifestEdit.Added(a.level(), t.meta()));
                largestValue = Math.max(largestValue, t.meta().maxValue());
            }
            core.dir.sync();
            next.logNumber = core.manifest.state().logNumber;
            next.nextFile = core.nextFile.get();
            next.lastSeq = from.lastSeq;
            next.clearSeq = from.clearSeq;
            next.applied = from.applied;
            core.manifest.replace(next, core.nextFile.getAndIncrement());
        } catch (IOException | RuntimeException e) {
            for (Table t : opened) {
                t.close();
                core.dir.delete(TableFormat.tableName(t.number()));
            }
            throw e;
        }
        for (int i = 0; i < Version.LEVELS; i++) {
            Version.order(i, levels.get(i));
        }
        LsmState was = core.state;
        long log = was.active().logNumber;
        synchronized (core.stateLock) {
            core.install(
                    new LsmState(
                            new Memtable(log, core.options.memtableBytes()),
                            null,
                            Version.empty()));
        }
        background.awaitReads(); // none holds the old state now: its floor may change
        core.clearSeq = from.clearSeq;
        writes.resetSeq(from.lastSeq);
        writes.raiseLargestValue(largestValue);
        synchronized (core.stateLock) {
            core.install(
                    new LsmState(
                            new Memtable(log, core.options.memtableBytes()),
                            null,
                            new Version(levels)));
        }
        background.retire(was.version().all());
        return from.applied;
    }
}
