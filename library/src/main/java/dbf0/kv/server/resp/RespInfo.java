package dbf0.kv.server.resp;

import dbf0.kv.storage.btree.BTreeStore;
import java.util.Locale;

/**
 * The text of Redis's INFO command ({@link Info}), with dbf0's own figures: server, clients,
 * memory, persistence, stats, replication (a server without replicas is a master with none; a
 * replicated node's section is the cluster package's), cluster, keyspace.
 */
final class RespInfo {

    /**
     * The Redis version dbf0 claims in INFO's redis_version and HELLO's version: tools and client
     * libraries check it before using a feature, and dbf0 speaks RESP2 and RESP3 as Redis 7 does.
     */
    static final String REDIS_VERSION = "7.0.0-dbf0";

    private RespInfo() {}

    static String render(RespContext context, String section) {
        boolean all =
                section.equals("default") || section.equals("all") || section.equals("everything");
        StringBuilder s = new StringBuilder();
        if (all || section.equals("server")) {
            s.append("# Server\r\n")
                    .append("dbf0_version:")
                    .append(version())
                    .append("\r\n")
                    .append("redis_version:")
                    .append(REDIS_VERSION)
                    .append("\r\n")
                    .append(
                            context.router() == null
                                    ? "redis_mode:standalone\r\n"
                                    : "redis_mode:cluster\r\n")
                    .append("server_model:")
                    .append(context.serverModel())
                    .append("\r\n")
                    .append("server_threads:")
                    .append(context.serverThreads())
                    .append("\r\n")
                    .append("java_version:")
                    .append(Runtime.version())
                    .append("\r\n")
                    .append("tcp_port:")
                    .append(context.port())
                    .append("\r\n")
                    .append("uptime_in_seconds:")
                    .append(context.uptimeSeconds())
                    .append("\r\n\r\n");
        }
        if (all || section.equals("clients")) {
            s.append("# Clients\r\n")
                    .append("connected_clients:")
                    .append(context.openConnections())
                    .append("\r\n")
                    .append("maxclients:")
                    .append(context.maxConnections())
                    .append("\r\n\r\n");
        }
        if (all || section.equals("memory")) {
            Runtime rt = Runtime.getRuntime();
            long used = rt.totalMemory() - rt.freeMemory();
            s.append("# Memory\r\n")
                    .append("used_memory:")
                    .append(used)
                    .append("\r\n")
                    .append("used_memory_human:")
                    .append(String.format(Locale.ROOT, "%.2fM", used / 1048576.0))
                    .append("\r\n")
                    .append("maxmemory:")
                    .append(rt.maxMemory())
                    .append("\r\n\r\n");
        }
        if (all || section.equals("persistence")) {
            persistence(context, s);
        }
        if (all || section.equals("stats")) {
            s.append("# Stats\r\n")
                    .append("total_connections_received:")
                    .append(context.totalConnectionsReceived())
                    .append("\r\n")
                    .append("total_commands_processed:")
                    .append(context.totalCommandsProcessed())
                    .append("\r\n\r\n");
        }
        if (all || section.equals("replication")) {
            String replication = context.replicationInfo();
            s.append("# Replication\r\n")
                    .append(
                            replication != null
                                    ? replication
                                    : "role:master\r\nconnected_slaves:0\r\n")
                    .append("\r\n");
        }
        if (section.equals("cluster") || (all && context.router() != null)) {
            // redis-cli --cluster asks for this section, and treats the node as a cluster node
            // only if it says 1.
            s.append("# Cluster\r\ncluster_enabled:")
                    .append(context.router() == null ? 0 : 1)
                    .append("\r\n\r\n");
        }
        if (all || section.equals("keyspace")) {
            s.append("# Keyspace\r\n");
            long keys = context.store().keyCount();
            if (keys > 0) {
                s.append("db0:keys=").append(keys).append(",expires=0,avg_ttl=0\r\n");
            }
            if (context.store().keyCountIsEstimate()) {
                // The LSM store's count: the db0 line stays as tools parse it, this one says so.
                s.append("dbf0_keys_estimated:1\r\n");
            }
        }
        return s.toString();
    }

    /**
     * Redis's field names where Redis has the same figure (aof_enabled, aof_rewrite_in_progress,
     * aof_last_bgrewrite_status, aof_current_size, aof_base_size), dbf0_ ones for the rest.
     */
    private static void persistence(RespContext context, StringBuilder s) {
        s.append("# Persistence\r\n");
        BTreeStore btree = context.btreeStore();
        if (context.walStore() == null && btree == null) {
            s.append("aof_enabled:0\r\n\r\n");
            return;
        }
        dbf0.kv.storage.wal.WalStats p =
                btree != null ? btree.persistenceStats() : context.walStore().stats();
        s.append("aof_enabled:1\r\n");
        if (btree != null) { // the vacuums take the rewrites' fields; the tree's own beside them
            var tree = btree.stats();
            s.append("dbf0_btree_file_bytes:").append(btree.fileBytes()).append("\r\n");
            s.append("dbf0_btree_checkpoints:").append(tree.checkpoints()).append("\r\n");
            s.append("dbf0_btree_evictions:").append(tree.evictions()).append("\r\n");
        }
        s.append("dbf0_fsync_policy:")
                .append(p.policy().cliName())
                .append("\r\n")
                .append("aof_current_size:")
                .append(p.logBytes())
                .append("\r\n")
                .append("aof_base_size:")
                .append(p.baseBytes())
                .append("\r\n")
                .append("dbf0_records_written:")
                .append(p.recordsWritten())
                .append("\r\n")
                .append("dbf0_fsyncs:")
                .append(p.fsyncs())
                .append("\r\n")
                .append("dbf0_records_per_fsync:")
                .append(String.format(Locale.ROOT, "%.2f", p.recordsPerFsync()))
                .append("\r\n")
                .append("dbf0_last_fsync_unix_ms:")
                .append(p.lastFsyncEpochMillis())
                .append("\r\n")
                .append("aof_rewrite_in_progress:")
                .append(p.rewriteInProgress() ? 1 : 0)
                .append("\r\n")
                .append("dbf0_rewrites:")
                .append(p.rewrites())
                .append("\r\n")
                .append("dbf0_last_rewrite_unix_ms:")
                .append(p.lastRewriteEpochMillis())
                .append("\r\n")
                .append("aof_last_bgrewrite_status:")
                .append(p.lastRewriteStatus().startsWith("failed") ? "err" : "ok")
                .append("\r\n")
                .append("dbf0_last_rewrite:")
                .append(p.lastRewriteStatus().replaceAll("[\\r\\n]", " "))
                .append("\r\n")
                .append("aof_last_write_status:")
                .append(p.failure() == null ? "ok" : "err")
                .append("\r\n\r\n");
    }

    private static String version() {
        String v = RespInfo.class.getPackage().getImplementationVersion();
        return v == null ? "development" : v;
    }
}
