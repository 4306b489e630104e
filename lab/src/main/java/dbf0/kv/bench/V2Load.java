package dbf0.kv.bench;

/**
 * What a v2 connector keeps sending on each connection: the share of SETs, and up to {@code window}
 * frames in flight of {@code batchSize} operations each.
 */
record V2Load(double setFraction, int window, int batchSize) {}
