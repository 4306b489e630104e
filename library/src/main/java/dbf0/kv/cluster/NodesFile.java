package dbf0.kv.cluster;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A node's cluster configuration on disk: the file {@value #NAME} in its data directory, so that a
 * restarted node keeps its id and the slot map it last had (docs/formats.md gives the format line
 * by line). Text, one record per line:
 *
 * <pre>
 * dbf0-cluster-nodes 1
 * myself 0
 * node 0 9f0c...40 hex... 127.0.0.1:7001 0-5460
 * node 1 0000...40 zeros.. 127.0.0.1:7002 5461-10921
 * migrating 42 1
 * importing 43 1
 * end
 * </pre>
 *
 * A write goes to a temporary file that is forced to disk and then renamed over the old one, so a
 * crash leaves the old file or the new one, never half of one; the {@code end} line catches a file
 * cut short all the same.
 */
public final class NodesFile {

    /** The file's name in the data directory. */
    public static final String NAME = "nodes";

    /** Larger than any honest file (1,000 nodes with fragmented slots), smaller than a mistake. */
    static final long MAX_BYTES = 4 << 20;

    private static final String MAGIC = "dbf0-cluster-nodes 1";

    /** What the file holds: which node this one is, and the map. */
    public record Saved(int myself, SlotMap map) {}

    private NodesFile() {}

    /** The text of the file for node {@code myself} of {@code map}. */
    public static String format(int myself, SlotMap map) {
        StringBuilder s = new StringBuilder(MAGIC).append('\n');
        s.append("myself ").append(myself).append('\n');
        for (int i = 0; i < map.nodes().size(); i++) {
            ClusterNode node = map.nodes().get(i);
            s.append("node ").append(i).append(' ').append(node.id());
            s.append(' ').append(node.address());
            for (SlotMap.Range r : map.ranges(i)) {
                s.append(' ').append(r.first()).append('-').append(r.last());
            }
            s.append('\n');
        }
        for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
            if (map.migrating(slot) != SlotMap.NONE) {
                s.append("migrating ").append(slot).append(' ').append(map.migrating(slot));
                s.append('\n');
            }
            if (map.importing(slot) != SlotMap.NONE) {
                s.append("importing ").append(slot).append(' ').append(map.importing(slot));
                s.append('\n');
            }
        }
        return s.append("end\n").toString();
    }

    /**
     * Writes the file in {@code dir} atomically (temporary file, fsync, rename).
     *
     * @throws IOException if it cannot be written
     */
    public static void write(Path dir, int myself, SlotMap map) throws IOException {
        Path tmp = dir.resolve(NAME + ".tmp");
        byte[] bytes = format(myself, map).getBytes(StandardCharsets.US_ASCII);
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(bytes));
            ch.force(true);
        }
        Files.move(
                tmp,
                dir.resolve(NAME),
                StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Reads the file in {@code dir}.
     *
     * @return what it holds, or null if there is no such file
     * @throws IOException if it cannot be read, or is not a whole, well-formed nodes file (the
     *     message names the line)
     */
    public static Saved read(Path dir) throws IOException {
        Path file = dir.resolve(NAME);
        if (!Files.exists(file)) {
            return null;
        }
        if (Files.size(file) > MAX_BYTES) {
            throw new IOException(file + " is over " + MAX_BYTES + " bytes: not a nodes file");
        }
        try {
            return parse(Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses the text of a nodes file.
     *
     * @throws IllegalArgumentException naming the first line that is wrong
     */
    public static Saved parse(String text) {
        List<String> lines = text.lines().toList();
        if (lines.isEmpty() || !lines.get(0).equals(MAGIC)) {
            throw new IllegalArgumentException("line 1 is not '" + MAGIC + "'");
        }
        if (!lines.get(lines.size() - 1).equals("end")) {
            throw new IllegalArgumentException("no 'end' line: the file was cut short");
        }
        int myself = -1;
        List<ClusterNode> nodes = new ArrayList<>();
        short[] owner = filled();
        short[] migrating = filled();
        short[] importing = filled();
        for (int n = 1; n < lines.size() - 1; n++) {
            String[] f = lines.get(n).split(" ");
            try {
                switch (f[0]) {
                    case "myself" -> myself = Integer.parseInt(f[1]);
                    case "node" -> {
                        int index = Integer.parseInt(f[1]);
                        if (index != nodes.size() || index >= SlotMap.MAX_NODES) {
                            throw new IllegalArgumentException("node " + index + " out of order");
                        }
                        ClusterNode parsed = ClusterNode.parseList(f[3]).get(0);
                        nodes.add(parsed.withId(f[2]));
                        for (int i = 4; i < f.length; i++) {
                            String[] r = f[i].split("-");
                            int first = slot(r[0]);
                            int last = slot(r[1]);
                            if (last < first) {
                                throw new IllegalArgumentException("empty range " + f[i]);
                            }
                            Arrays.fill(owner, first, last + 1, (short) index);
                        }
                    }
                    case "migrating" -> migrating[slot(f[1])] = (short) Integer.parseInt(f[2]);
                    case "importing" -> importing[slot(f[1])] = (short) Integer.parseInt(f[2]);
                    default -> throw new IllegalArgumentException("unknown record " + f[0]);
                }
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "line " + (n + 1) + " '" + lines.get(n) + "': " + e.getMessage(), e);
            }
        }
        if (myself < 0 || myself >= nodes.size()) {
            throw new IllegalArgumentException("'myself " + myself + "' names no node");
        }
        return new Saved(myself, SlotMap.of(nodes, owner, migrating, importing));
    }

    private static int slot(String s) {
        int slot = Integer.parseInt(s);
        if (!HashSlots.valid(slot)) {
            throw new IllegalArgumentException("slot " + slot + " out of range");
        }
        return slot;
    }

    private static short[] filled() {
        short[] a = new short[HashSlots.SLOTS];
        Arrays.fill(a, (short) SlotMap.NONE);
        return a;
    }
}
