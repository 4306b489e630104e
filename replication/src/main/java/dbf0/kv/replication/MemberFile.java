package dbf0.kv.replication;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The mark a member leaves in its data dir before it forms its Raft log ({@code DIR/raft-member},
 * one line of text: {@code dbf0 raft member: shard S, node N}). Its presence alone is what counts:
 * it says the engine ran here, so that a data dir whose log has gone missing since is refused
 * instead of starting again with an empty log (see {@link RaftReplication#start}). The file and the
 * directory entry are forced to disk before the log is formed.
 */
final class MemberFile {

    private MemberFile() {}

    static void write(Path file, int shard, int node) throws IOException {
        byte[] line =
                ("dbf0 raft member: shard " + shard + ", node " + node + "\n")
                        .getBytes(StandardCharsets.US_ASCII);
        try (FileChannel ch =
                FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(line));
            ch.force(true);
        }
        // the new directory entry too: without it a crash could keep the log and lose the mark
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
