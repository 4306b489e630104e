package dbf0.kv.bench.disk;

import dbf0.common.ByteSizes;
import dbf0.kv.storage.lsm.LsmOptions;
import dbf0.kv.storage.wal.FsyncPolicy;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Type {@code sqlite}: SQLite (through sqlite-jdbc) as a key/value store: one {@code WITHOUT ROWID}
 * table keyed by a BLOB, so the rows live in the primary key's B-tree itself, in WAL journal mode,
 * through prepared statements.
 *
 * <p>SQLite lets one transaction write at a time (the WAL's write lock). Writers that collide get
 * SQLITE_BUSY and retry after a sleep, so the writes go through one connection behind a Java lock
 * instead, as an application with many threads does; every read thread gets a connection of its own
 * and reads beside the writer, which is what WAL mode is for.
 *
 * <p>The fsync policies map onto {@code PRAGMA synchronous} (https://www.sqlite.org/pragma.html
 * #pragma_synchronous and https://www.sqlite.org/wal.html):
 *
 * <ul>
 *   <li>{@code always}: FULL. In WAL mode every commit syncs the WAL before it returns. SQLite has
 *       no group commit: writers take turns, each with its own sync.
 *   <li>{@code interval}: NORMAL, and a timer that forces the WAL file every --fsync-interval.
 *       Under NORMAL a commit syncs nothing; the WAL is synced before each checkpoint and the
 *       database file after it, so the database stays consistent through a power loss, but commits
 *       since the last sync may roll back. A periodic {@code PRAGMA wal_checkpoint(PASSIVE)} would
 *       not bound that: it syncs only when it copies frames back, which readers or the writer may
 *       prevent (SQLite forum, "Switching pragma synchronous to upgrade durability",
 *       https://sqlite.org/forum/forumpost/d1a6bc7c4cd2baca, which names a sync of the WAL file as
 *       the cheap way). sqlite-jdbc cannot reach SQLite's file handle, so the timer calls fdatasync
 *       on its own handle of the {@code -wal} file: fsync works on the file, not the handle, so
 *       every frame written before it starts is on disk when it returns.
 *   <li>{@code never}: NORMAL without the timer: the WAL is synced only before a checkpoint (every
 *       1,000 pages of WAL by default). Not OFF: OFF never syncs, not even around a checkpoint, and
 *       SQLite then warns that a power loss may corrupt the database; every other engine here stays
 *       consistent under {@code never} and only loses its newest writes.
 * </ul>
 *
 * SQLite counts neither the bytes it writes nor its page reads where sqlite-jdbc can see them, so
 * those figures are null. Its fsyncs are counted from the outside: one per commit that changed a
 * row under FULL, as the documentation promises, plus the timer's; the syncs around checkpoints are
 * not counted.
 */
final class SqliteEngine implements DiskEngine {

    /** The database file in the data directory; SQLite adds {@code -wal} and {@code -shm}. */
    static final String FILE = "kv.sqlite";

    private static final String CREATE =
            "CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID";
    private static final String UPSERT =
            "INSERT INTO kv (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v";
    private static final String REMOVE = "DELETE FROM kv WHERE k = ?";
    private static final String SELECT = "SELECT v FROM kv WHERE k = ?";

    /** A reading thread's own connection and statement. */
    private record Reader(Connection connection, PreparedStatement select) {}

    private final String url;
    private final long cacheKib;
    private final FsyncPolicy fsync;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Connection writer;
    private final PreparedStatement upsert;
    private final PreparedStatement remove;
    private final ThreadLocal<Reader> reader = new ThreadLocal<>();
    private final Queue<Reader> readers = new ConcurrentLinkedQueue<>();
    private final LongAdder syncedCommits = new LongAdder();
    private final FileChannel wal;
    private final ForceTimer timer;
    private final String description;

    private SqliteEngine(LsmOptions o, int pageSize) throws SQLException, IOException {
        Path file = o.dataDir().resolve(FILE);
        url = "jdbc:sqlite:" + file;
        fsync = o.fsync();
        // cache_size in KiB when negative: SQLite's page cache is per connection.
        cacheKib = Math.max(o.blockCacheBytes() >> 10, 1);
        writer = connect();
        String version;
        int actualPageSize;
        try (Statement s = writer.createStatement()) {
            // Takes effect only on a new, empty database: an existing one keeps its page size.
            s.execute("PRAGMA page_size = " + pageSize);
            String mode = text(s, "PRAGMA journal_mode = WAL");
            if (!"wal".equalsIgnoreCase(mode)) {
                throw new IOException(
                        "sqlite: " + file + " refused WAL journal mode (got " + mode + ")");
            }
            s.execute("PRAGMA synchronous = " + (fsync == FsyncPolicy.ALWAYS ? "FULL" : "NORMAL"));
            s.execute(CREATE);
            version = text(s, "SELECT sqlite_version()");
            actualPageSize = Integer.parseInt(text(s, "PRAGMA page_size"));
        }
        upsert = writer.prepareStatement(UPSERT);
        remove = writer.prepareStatement(REMOVE);
        if (fsync == FsyncPolicy.INTERVAL) {
            // The writer's first read transaction created the -wal file; force its name into the
            // directory once, as SQLite does on its own first sync of a new WAL.
            wal = FileChannel.open(Path.of(file + "-wal"), StandardOpenOption.READ);
            wal.force(true);
            try (FileChannel dir = FileChannel.open(o.dataDir(), StandardOpenOption.READ)) {
                dir.force(true);
            }
            timer = new ForceTimer("sqlite-force-wal", o.fsyncInterval(), () -> wal.force(false));
        } else {
            wal = null;
            timer = null;
        }
        description =
                String.format(
                        Locale.ROOT,
                        "sqlite %s: WITHOUT ROWID table, BLOB keys, %s pages, WAL journal"
                                + " (checkpoint every 1000 pages), page cache %s per connection,"
                                + " one writer connection behind a lock and one reader per thread,"
                                + " fsync %s: %s",
                        version,
                        ByteSizes.format(actualPageSize),
                        ByteSizes.format(cacheKib << 10),
                        fsync.cliName(),
                        switch (fsync) {
                            case ALWAYS -> "synchronous=FULL (every commit syncs the WAL)";
                            case INTERVAL ->
                                    "synchronous=NORMAL and an fdatasync of the WAL every "
                                            + o.fsyncInterval().toMillis()
                                            + " ms";
                            case NEVER ->
                                    "synchronous=NORMAL (the WAL is synced only before a"
                                            + " checkpoint)";
                        });
    }

    /** Opens (or creates) the database in the options' data directory. */
    static SqliteEngine open(LsmOptions options, int pageSize) throws IOException {
        try {
            return new SqliteEngine(options, pageSize);
        } catch (SQLException e) {
            throw new IOException("sqlite: " + e.getMessage(), e);
        }
    }

    private Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(url);
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA cache_size = -" + cacheKib);
            // A reader can meet SQLITE_BUSY for a moment while the WAL index is rebuilt.
            s.execute("PRAGMA busy_timeout = 10000");
        }
        return c;
    }

    private static String text(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Override
    public void put(byte[] key, byte[] value) throws IOException {
        if (timer != null) {
            timer.check();
        }
        writeLock.lock();
        try {
            upsert.setBytes(1, key);
            upsert.setBytes(2, value);
            upsert.executeUpdate();
            if (fsync == FsyncPolicy.ALWAYS) {
                syncedCommits.increment();
            }
        } catch (SQLException e) {
            throw new IOException("sqlite put: " + e.getMessage(), e);
        } finally {
            writeLock.unlock();
        }
    }

    /** One statement: the count of deleted rows says whether the key was there. */
    @Override
    public boolean delete(byte[] key) throws IOException {
        if (timer != null) {
            timer.check();
        }
        writeLock.lock();
        try {
            remove.setBytes(1, key);
            boolean found = remove.executeUpdate() > 0;
            // A transaction that changed no page writes no frame, and so syncs nothing.
            if (found && fsync == FsyncPolicy.ALWAYS) {
                syncedCommits.increment();
            }
            return found;
        } catch (SQLException e) {
            throw new IOException("sqlite delete: " + e.getMessage(), e);
        } finally {
            writeLock.unlock();
        }
    }

    /** Reads the value too, as the other engines' gets do. */
    @Override
    public boolean get(byte[] key) throws IOException {
        try {
            Reader r = reader.get();
            if (r == null) {
                Connection c = connect();
                r = new Reader(c, c.prepareStatement(SELECT));
                readers.add(r);
                reader.set(r);
            }
            r.select().setBytes(1, key);
            // Closing the result ends the read transaction: an open one would hold the
            // checkpoint back and let the WAL grow without bound.
            try (ResultSet rs = r.select().executeQuery()) {
                return rs.next() && rs.getBytes(1) != null;
            }
        } catch (SQLException e) {
            throw new IOException("sqlite get: " + e.getMessage(), e);
        }
    }

    @Override
    public EngineCounters counters() {
        long forces = syncedCommits.sum() + (timer == null ? 0 : timer.forces());
        return new EngineCounters(-1, -1, 0, forces);
    }

    @Override
    public String describe() {
        return description;
    }

    /**
     * Readers first, the writer last: the last connection to close checkpoints the WAL into the
     * database and removes it. The WAL handle closes after that, never while SQLite has the file
     * open (closing any handle drops the process's POSIX locks on the file, though SQLite keeps its
     * WAL-mode locks on the database and {@code -shm} files).
     */
    @Override
    public void close() throws IOException {
        if (timer != null) {
            timer.close();
        }
        try {
            for (Reader r : readers) {
                r.connection().close();
            }
            upsert.close();
            remove.close();
            writer.close();
        } catch (SQLException e) {
            throw new IOException("sqlite close: " + e.getMessage(), e);
        } finally {
            if (wal != null) {
                wal.close();
            }
        }
    }
}
