package dbf0.kv.storage.lsm;

import static org.assertj.core.api.Assertions.assertThat;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.wal.FileChannelDirectory;
import dbf0.kv.storage.wal.FsyncPolicy;
import dbf0.kv.storage.wal.LogRotation;
import dbf0.kv.storage.wal.WalOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A delete looks its key up before the log's lock and, under it, confirms the answer. Here the
 * write path is driven as the log drives it (one call at a time), with the background work done by
 * hand, so every case is deterministic: whatever happened between probe and delete, the answer is
 * the one a lookup under the lock would give.
 */
class DeleteProbeTest {

    @TempDir Path dir;

    private static ByteArrayWrapper b(String s) {
        return new ByteArrayWrapper(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theAnswerFollowsEveryChangeBetweenProbeAndDelete() throws Exception {
        LsmOptions options =
                LsmOptions.defaults(dir)
                        .withMemtableBytes(LsmOptions.MIN_MEMTABLE_BYTES)
                        .withFsync(FsyncPolicy.NEVER);
        WalOptions walOptions =
                WalOptions.defaults(dir).withFsync(FsyncPolicy.NEVER).withRewrite(0, 0);
        try (FileChannelDirectory files = new FileChannelDirectory(dir)) {
            LsmRecovery.Opened opened = LsmRecovery.run(options, files, walOptions);
            WritePath w = opened.writes();
            ByteArrayWrapper value = b("v");

            w.probe(b("a")); // absent
            w.put(b("a"), value); // a put after the probe: the memtable tells
            assertThat(w.delete(b("a"))).isTrue();
            w.probe(b("a"));
            assertThat(w.delete(b("a"))).isFalse();

            w.put(b("b"), value);
            w.probe(b("b")); // there
            w.clear(); // a clear after the probe
            assertThat(w.delete(b("b"))).isFalse();

            w.probe(b("c")); // absent, in a memtable that then goes to a table
            w.put(b("c"), value);
            Memtable first = opened.core().state.active();
            for (int i = 0; first.bytes() < options.memtableBytes(); i++) {
                w.put(b("fill" + i), value);
            }
            LogRotation.Next next = w.next(0);
            assertThat(next).isNotNull();
            opened.background().flush(first, opened.core().state.active().logNumber);
            assertThat(opened.core().state.immutable()).isNull();
            // the probe's memtable is gone: it cannot tell, and the delete reads the table
            assertThat(w.delete(b("c"))).isTrue();

            w.probe(b("fill1")); // in a table, found by the probe
            assertThat(w.delete(b("fill1"))).isTrue();
            assertThat(w.delete(b("fill1"))).isFalse(); // no probe: a plain lookup

            next.file().close();
            for (Table t : opened.core().state.version().all()) {
                t.close();
            }
            opened.core().manifest.close();
        }
    }
}
