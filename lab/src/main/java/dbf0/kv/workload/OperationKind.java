package dbf0.kv.workload;

/** What one operation of a keyed workload does, in YCSB's terms. */
public enum OperationKind {
    /** A GET of an existing record. */
    READ,
    /** A SET of an existing record (the seed's SET, setFrac's share). */
    UPDATE,
    /** A SET of a new record, past every index so far: the key space grows. */
    INSERT,
    /** A GET and then a SET of the same record, counted as one operation (YCSB's workload F). */
    READ_MODIFY_WRITE
}
