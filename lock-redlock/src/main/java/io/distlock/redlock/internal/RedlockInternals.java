package io.distlock.redlock.internal;

import io.distlock.redis.core.RedisKeys;

/**
 * What tests, benchmarks and fault suites read from a {@code RedlockLockProvider}, reached through
 * {@code provider.unwrap(RedlockInternals.class)}. Internal: not an API.
 */
public interface RedlockInternals {

    /** The key layout on every node, under the provider's prefix. */
    RedisKeys keys();
}
