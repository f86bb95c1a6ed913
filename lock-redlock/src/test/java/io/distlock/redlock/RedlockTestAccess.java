package io.distlock.redlock;

import io.distlock.LockProvider;
import io.distlock.redlock.internal.RedlockInternals;

/** What the tests read from a provider, through {@code unwrap(RedlockInternals.class)}. */
final class RedlockTestAccess {
    private RedlockTestAccess() {}

    /** The Redis key that holds lock {@code name} on every node. */
    static String lockKey(LockProvider p, String name) {
        return p.unwrap(RedlockInternals.class).orElseThrow().keys().lockKey(name);
    }

    /** The Redis key that holds the fencing counter of lock {@code name} on every node. */
    static String tokenKey(LockProvider p, String name) {
        return p.unwrap(RedlockInternals.class).orElseThrow().keys().tokenKey(name);
    }
}
