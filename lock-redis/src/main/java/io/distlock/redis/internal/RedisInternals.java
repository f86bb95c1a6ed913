package io.distlock.redis.internal;

import io.distlock.redis.core.RedisKeys;

/**
 * What tests, benchmarks and fault suites read from a {@code RedisLockProvider}, reached through
 * {@code provider.unwrap(RedisInternals.class)}. Internal: not an API.
 */
public interface RedisInternals {

    /** The key layout (lock, counter and queue keys, release channels) under the provider's prefix. */
    RedisKeys keys();

    /** Number of lock channels the provider's subscriber listens to (0 when nobody waits). */
    int subscribedChannels();

    /**
     * Pipelines the batched renewal has sent so far (one per renewal tick with due locks: one round
     * trip per server), not counting locks renewed one by one after an error reply.
     */
    long renewalPipelines();
}
