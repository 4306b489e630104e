package dbf0.kv.storage.wal;

import java.util.Locale;

/** When the log forces its bytes to the disk, and so what an acknowledgement promises. */
public enum FsyncPolicy {
    /**
     * Every write is acknowledged only after a force that covers it: a crash loses no acknowledged
     * write.
     */
    ALWAYS,
    /**
     * A background force every interval: a crash of the machine loses at most the last interval of
     * writes.
     */
    INTERVAL,
    /**
     * The operating system decides when: a crash of the process loses nothing, a crash of the
     * machine may lose anything not yet written back.
     */
    NEVER;

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses always, interval or never (any case). */
    public static FsyncPolicy parse(String text) {
        for (FsyncPolicy p : values()) {
            if (p.cliName().equalsIgnoreCase(text.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException(
                "unknown fsync policy '" + text + "': use always, interval or never");
    }
}
