package io.distlock.redis.core;

import io.distlock.LockNames;

/**
 * Key layout. Lock {@code n} with prefix {@code p}: lock key {@code p:{e}:lock}, fencing counter
 * {@code p:{e}:token}, wake-up channel {@code p:{e}:released}, with {@code e = LockNames.encode(n)}.
 * The encoding contains no braces, so the hash tag is exactly {@code e}: lock key and counter share
 * a Redis Cluster hash slot whatever the name, and no name can choose another name's slot.
 */
public final class RedisKeys {
    private final String prefix;

    /** The keys under {@code prefix} (a valid key prefix, see {@link ConnectionChecks#keyPrefix}). */
    public RedisKeys(String prefix) {
        this.prefix = prefix;
    }

    /** The hash tag (without braces) of lock {@code name}. */
    public static String tag(String name) {
        return LockNames.encode(name);
    }

    /** The key that holds lock {@code name} (its owner value, with the lease as TTL). */
    public String lockKey(String name) {
        return lockKeyOfTag(tag(name));
    }

    /** The key that holds the fencing counter of lock {@code name}. */
    public String tokenKey(String name) {
        return tokenKeyOfTag(tag(name));
    }

    /** The FIFO waiter queue (ZSET owner → arrival sequence) of lock {@code name}. */
    public String queueKey(String name) {
        return queueKeyOfTag(tag(name));
    }

    /** The queued waiters' deadlines and lease TTLs (HASH owner → "deadlineMs ttlMs"). */
    public String waitersKey(String name) {
        return waitersKeyOfTag(tag(name));
    }

    /** The channel on which releases of lock {@code name} are published. */
    public String channel(String name) {
        return channelOfTag(tag(name));
    }

    // The same from a tag computed once (the acquisition path encodes each name once, not per key).

    public String lockKeyOfTag(String tag) {
        return lockKeyHead() + tag + LOCK_KEY_TAIL;
    }

    /** What every lock key ends with, after its tag. */
    public static final String LOCK_KEY_TAIL = "}:lock";

    /** What every lock key starts with, before its tag: the prefix and the hash tag's opening brace. */
    public String lockKeyHead() {
        return prefix + ":{";
    }

    public String tokenKeyOfTag(String tag) {
        return prefix + ":{" + tag + "}:token";
    }

    public String queueKeyOfTag(String tag) {
        return prefix + ":{" + tag + "}:queue";
    }

    public String waitersKeyOfTag(String tag) {
        return prefix + ":{" + tag + "}:waiters";
    }

    public String channelOfTag(String tag) {
        return prefix + ":{" + tag + "}:released";
    }

    /** The key prefix. */
    public String prefix() {
        return prefix;
    }
}
