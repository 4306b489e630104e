package dbf0.kv.storage.lsm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What a store's data dir shows from outside, read while a server may be writing it and without
 * opening the store: the edits of its manifest (each flush and each compaction appends one) and the
 * table files on disk that no edit names (a flush or compaction cut short, or inputs it had not yet
 * deleted). Tests that kill a server take one before and one after, to show that the kills met
 * flushes and compactions.
 *
 * @param manifest the manifest's file name, or null in an empty dir
 * @param edits edits in it that are whole (a torn last one is not counted)
 * @param flushes edits that wrote a memtable to a table (they name a log); the manifest's first
 *     edit, a snapshot, is not one
 * @param compactions edits that replaced tables by others
 * @param tables tables the edits add up to
 * @param strayTables table files on disk that the edits do not name
 * @param diskBytes bytes of every file in the dir
 */
public record LsmCensus(
        String manifest,
        int edits,
        int flushes,
        int compactions,
        int tables,
        int strayTables,
        long diskBytes) {

    /** Reads the dir's manifest and lists its files. */
    public static LsmCensus of(Path dir) throws IOException {
        String name = null;
        Manifest.State state = new Manifest.State();
        int edits = 0;
        int flushes = 0;
        int compactions = 0;
        try {
            name = Files.readString(dir.resolve(Manifest.CURRENT), StandardCharsets.UTF_8).strip();
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(dir.resolve(name)));
            while (bytes.remaining() >= 8) {
                int length = bytes.getInt(bytes.position());
                if (length < 0 || length > bytes.remaining() - 8) {
                    break; // torn: still being written
                }
                ByteBuffer body = bytes.slice(bytes.position() + 8, length);
                CRC32C crc = new CRC32C();
                crc.update(body.duplicate());
                if ((int) crc.getValue() != bytes.getInt(bytes.position() + 4)) {
                    break;
                }
                ManifestEdit edit = ManifestEdit.decode(body);
                if (edits > 0 && edit.logNumber() >= 0) {
                    flushes++;
                } else if (edits > 0 && !edit.removed().isEmpty()) {
                    compactions++;
                }
                state.apply(edit);
                edits++;
                bytes.position(bytes.position() + 8 + length);
            }
        } catch (NoSuchFileException e) {
            // an empty dir, or a manifest replaced between the two reads: counted as seen so far
        }
        int stray = 0;
        long diskBytes = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                long number = TableFormat.number(file.getFileName().toString(), ".sst");
                if (number >= 0 && !state.tables.containsKey(number)) {
                    stray++;
                }
                try {
                    diskBytes += Files.size(file);
                } catch (NoSuchFileException e) {
                    // deleted since the listing
                }
            }
        }
        return new LsmCensus(
                name, edits, flushes, compactions, state.tables.size(), stray, diskBytes);
    }

    /**
     * Flushes since {@code earlier}, a census of the same dir (all of this manifest's if it has
     * been rewritten since).
     */
    public int flushesSince(LsmCensus earlier) {
        return sameManifest(earlier) ? flushes - earlier.flushes : flushes;
    }

    /** Compactions since {@code earlier}, as {@link #flushesSince}. */
    public int compactionsSince(LsmCensus earlier) {
        return sameManifest(earlier) ? compactions - earlier.compactions : compactions;
    }

    private boolean sameManifest(LsmCensus earlier) {
        return manifest != null && manifest.equals(earlier.manifest);
    }
}
