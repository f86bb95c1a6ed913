package io.distlock.redis.core;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One {@link Scripts#RENEW_PACKED} call: the renewals of up to {@link #MAX_LOCKS} locks on one
 * server, packed into one argument. The server reads a request of many small arguments in one
 * socket read per 16 KB, but a single argument larger than 32 KB in one or two: a call of 1,000 locks
 * (about 65 KB) in one read instead of four or five. Each lock keeps its own owner check and lease
 * time, and gets its own answer.
 *
 * <p>Not thread-safe; one instance per call.
 */
public final class PackedRenewals {
    /**
     * Most locks per call. A call blocks every other client of the server while it runs, about 2 µs
     * per lock on Redis 7.0: a call of 1,000 locks stops the server for about 2 ms, and the server
     * serves other clients between the calls of a tick. Larger calls would save socket reads, not
     * round trips (docs/decisions.md has the measurements).
     */
    public static final int MAX_LOCKS = 1_000;

    private final RedisKeys keys;
    private final StringBuilder packed;
    private int size;

    /** An empty call for lock keys of {@code keys}, sized for about {@code expected} locks. */
    public PackedRenewals(RedisKeys keys, int expected) {
        this.keys = keys;
        this.packed = new StringBuilder(Math.max(16, expected) * 64);
    }

    /**
     * Adds the renewal of the lock with hash tag {@code tag} ({@link RedisKeys#tag}) to {@code
     * leaseMillis}, if it holds {@code owner}.
     *
     * @throws IllegalStateException if the call already holds {@link #MAX_LOCKS} locks
     */
    public void add(String tag, String owner, long leaseMillis) {
        if (size == MAX_LOCKS) {
            throw new IllegalStateException("a packed renewal holds at most " + MAX_LOCKS + " locks");
        }
        packed.append(tag)
                .append(' ')
                .append(owner)
                .append(' ')
                .append(leaseMillis)
                .append('\n');
        size++;
    }

    /** Locks added so far. */
    public int size() {
        return size;
    }

    /** Whether {@link #MAX_LOCKS} locks were added. */
    public boolean isFull() {
        return size == MAX_LOCKS;
    }

    /** The script call: no keys; the lock keys' head and tail, and the packed renewals. */
    public ScriptRunner.Call call() {
        return new ScriptRunner.Call(
                List.of(), List.of(keys.lockKeyHead(), RedisKeys.LOCK_KEY_TAIL, packed.toString()));
    }

    /**
     * The tag of {@code lockKey}, a lock key of {@code keys} ({@link RedisKeys#lockKeyOfTag}).
     *
     * @throws IllegalArgumentException if {@code lockKey} is not one of its lock keys
     */
    public static String tagOf(RedisKeys keys, String lockKey) {
        String head = keys.lockKeyHead();
        if (!lockKey.startsWith(head)
                || !lockKey.endsWith(RedisKeys.LOCK_KEY_TAIL)
                || lockKey.length() < head.length() + RedisKeys.LOCK_KEY_TAIL.length()) {
            throw new IllegalArgumentException("lockKey must be a lock key under prefix '" + keys.prefix() + "'");
        }
        return lockKey.substring(head.length(), lockKey.length() - RedisKeys.LOCK_KEY_TAIL.length());
    }

    /**
     * A call's reply ({@link Scripts#RENEW_PACKED}): one character per lock of the call, in order,
     * {@code '1'} if it was renewed.
     *
     * @throws IllegalStateException if the reply is not a string of {@code locks} answers
     */
    public static String answers(Object reply, int locks) {
        String answers = answers(reply);
        if (answers.length() != locks) {
            throw new IllegalStateException("a packed renewal of " + locks + " locks answered for " + answers.length());
        }
        return answers;
    }

    private static String answers(Object reply) {
        if (reply instanceof String s) {
            return s;
        }
        if (reply instanceof byte[] b) {
            return new String(b, StandardCharsets.US_ASCII);
        }
        throw new IllegalStateException("a packed renewal answered " + reply);
    }
}
