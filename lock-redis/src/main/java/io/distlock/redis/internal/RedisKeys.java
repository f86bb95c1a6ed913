package io.distlock.redis.internal;

import io.distlock.LockNames;

/**
 * Key layout. Lock {@code n} with prefix {@code p}: lock key {@code p:{e}:lock}, fencing counter
 * {@code p:{e}:token}, wake-up channel {@code p:{e}:released}, with {@code e = LockNames.encode(n)}.
 * The encoding contains no braces, so the hash tag is exactly {@code e}: lock key and counter share
 * a Redis Cluster hash slot whatever the name, and no name can choose another name's slot.
 */
public final class RedisKeys {
    private final String prefix;

    public RedisKeys(String prefix) {
        this.prefix = prefix;
    }

    /** The hash tag (without braces) of lock {@code name}. */
    public static String tag(String name) {
        return LockNames.encode(name);
    }

    public String lockKey(String name) {
        return prefix + ":{" + tag(name) + "}:lock";
    }

    public String tokenKey(String name) {
        return prefix + ":{" + tag(name) + "}:token";
    }

    /** The FIFO waiter queue (ZSET owner → arrival sequence) of lock {@code name}. */
    public String queueKey(String name) {
        return prefix + ":{" + tag(name) + "}:queue";
    }

    /** The queued waiters' deadlines and lease TTLs (HASH owner → "deadlineMs ttlMs"). */
    public String waitersKey(String name) {
        return prefix + ":{" + tag(name) + "}:waiters";
    }

    public String channel(String name) {
        return prefix + ":{" + tag(name) + "}:released";
    }

    public String prefix() {
        return prefix;
    }
}
