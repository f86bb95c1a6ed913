package io.distlock.nemesis;

/**
 * One event logged by a {@link NemesisClientMain}, stamped with that JVM's {@code System.nanoTime}
 * (shared by all processes of one Linux host: {@code CLOCK_MONOTONIC}; see {@link ClockCheck}).
 *
 * @param client the client's id
 * @param type ACQUIRED, NOT_ACQUIRED, ACQUIRE_ERROR, WRITE_OK, WRITE_STALE, WRITE_ERROR, RELEASED,
 *     RELEASE_ERROR or LOST; or KILLED, recorded by the nemesis (not the client) at the SIGKILL
 * @param nanos when
 * @param hold the client's round number; events of one holding share it
 * @param token the fencing token, or -1
 * @param deadline for ACQUIRED: the validity deadline the client believed in, or {@link #NONE}
 * @param detail free text (an error, the balance read, the last accepted token)
 */
public record Event(String client, String type, long nanos, long hold, long token, long deadline, String detail) {
    /** No deadline. */
    public static final long NONE = Long.MIN_VALUE;

    /** Parses the part after {@code "E "} of a client's event line. */
    static Event parse(String client, String line) {
        String[] f = line.split(" ", 6);
        if (f.length < 5) {
            throw new IllegalArgumentException("event line must have at least 5 fields: '" + line + "'");
        }
        return new Event(
                client,
                f[0],
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                f[3].equals("-") ? -1 : Long.parseLong(f[3]),
                f[4].equals("-") ? NONE : Long.parseLong(f[4]),
                f.length > 5 ? f[5] : "");
    }

    /** The key of this event's holding: client and round. */
    String holdKey() {
        return client + "#" + hold;
    }
}
