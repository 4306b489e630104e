package dbf0.kv.storage.wal;

import java.util.concurrent.CompletableFuture;

/** What the writer thread's queue holds: writes under always, and control tasks. */
sealed interface WriterTask {

    /** A write under always, to be committed with the writes queued beside it. */
    record Write(WalRecord record, CompletableFuture<Boolean> done) implements WriterTask {}

    record StartRewrite(CompletableFuture<Void> done) implements WriterTask {}

    /** Posted by the rewrite thread when its snapshot is in the new file. */
    record FinishRewrite(RewriteJob job) implements WriterTask {}

    /** Flush, then force, whatever the policy. */
    record Sync(CompletableFuture<Void> done) implements WriterTask {}

    record Stop() implements WriterTask {}
}
