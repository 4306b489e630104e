package dbf0.kv.storage.lsm;

/**
 * Everything a read looks at, swapped whole: the memtable taking writes, the one being flushed (or
 * null) and the tables. A reader takes one state and reads only it, so a flush that moves a
 * memtable into a table never makes its keys vanish in between.
 *
 * @param active the memtable taking writes
 * @param immutable the full memtable being written to a table, or null
 * @param version the tables
 */
record LsmState(Memtable active, Memtable immutable, Version version) {}
