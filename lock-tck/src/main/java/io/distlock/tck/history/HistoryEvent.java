package io.distlock.tck.history;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One recorded event of a lock history: an acquisition, a validity checkpoint, a release call, a
 * detected loss, a write to a guarded resource or the holder's process being killed.
 *
 * <p>Times are {@link System#nanoTime()} readings, so a history is only meaningful when every event
 * was read from the same monotonic clock (threads of one JVM, or processes on one Linux host, where
 * {@code nanoTime} is {@code CLOCK_MONOTONIC}).
 *
 * <p>Each event has a one-line text form, {@link #toLine()}, read back by {@link #parse(String)}, so
 * that child processes can log their events and a parent can check the merged history:
 *
 * <pre>{@code
 * ACQUIRED 81273648123 client-1 client-1%237 my-lock 42 81274148123
 * }</pre>
 *
 * <p>Fields: type, nanos, client, hold, lock, token ({@code -} when absent), deadline ({@code -} when
 * unknown). Client, hold and lock are URL-encoded (UTF-8), so they never contain spaces.
 *
 * @param type what happened
 * @param nanos when it happened ({@code System.nanoTime})
 * @param client the client (process, provider) that did it
 * @param hold identifies one holding of a lock by that client; events of one holding share it
 * @param lock the lock name (for {@link Type#WRITE}, the guarded resource's lock)
 * @param token the fencing token of the holding, if any
 * @param deadline for {@link Type#ACQUIRED} and {@link Type#VALID}: the validity deadline the client
 *     believed in at {@code nanos} ({@code nanos + lease.remainingValidity()}), if known
 */
public record HistoryEvent(
        Type type, long nanos, String client, String hold, String lock, OptionalLong token, OptionalLong deadline) {

    /** Event types. */
    public enum Type {
        /** An acquisition call returned a lease (recorded right after it returned). */
        ACQUIRED,
        /** The holder read its lease's remaining validity (a renewal may have moved the deadline). */
        VALID,
        /** The holder is about to call release (recorded just before the call). */
        RELEASED,
        /** The holder learned that its lease was lost. */
        LOST,
        /** The holder wrote to a guarded resource with its token, and the resource accepted it. */
        WRITE,
        /**
         * The holder's process was killed (SIGKILL, a crash), recorded by whoever killed it at the
         * moment of the signal: a dead process believes nothing, so its holding ends here. Its lock
         * may stay held on the server until the lease expires; that is not a belief of holding.
         */
        KILLED
    }

    public HistoryEvent {
        Objects.requireNonNull(type, "type must not be null");
        Objects.requireNonNull(client, "client must not be null");
        Objects.requireNonNull(hold, "hold must not be null");
        Objects.requireNonNull(lock, "lock must not be null");
        Objects.requireNonNull(token, "token must not be null");
        Objects.requireNonNull(deadline, "deadline must not be null");
    }

    /** The one-line text form (no line break). */
    public String toLine() {
        return type + " " + nanos + " " + enc(client) + " " + enc(hold) + " " + enc(lock) + " " + opt(token) + " "
                + opt(deadline);
    }

    /**
     * Reads a line written by {@link #toLine()}.
     *
     * @throws IllegalArgumentException if the line is not in that format
     */
    public static HistoryEvent parse(String line) {
        Objects.requireNonNull(line, "line must not be null");
        String[] f = line.strip().split(" ");
        if (f.length != 7) {
            throw new IllegalArgumentException(
                    "history line must have 7 space-separated fields (was " + f.length + "): '" + line + "'");
        }
        try {
            return new HistoryEvent(
                    Type.valueOf(f[0]),
                    Long.parseLong(f[1]),
                    dec(f[2]),
                    dec(f[3]),
                    dec(f[4]),
                    parseOpt(f[5]),
                    parseOpt(f[6]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("history line is malformed: '" + line + "' (" + e.getMessage() + ")", e);
        }
    }

    @Override
    public String toString() {
        return toLine();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static String opt(OptionalLong v) {
        return v.isPresent() ? Long.toString(v.getAsLong()) : "-";
    }

    private static OptionalLong parseOpt(String s) {
        return s.equals("-") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(s));
    }
}
