package io.distlock.redlock.internal;

import io.distlock.redis.core.RedisKeys;

/**
 * What tests, benchmarks and fault suites read from a {@code RedlockLockProvider}, reached through
 * {@code provider.unwrap(RedlockInternals.class)}. Internal: not an API.
 */
public interface RedlockInternals {

    /** The key layout on every node, under the provider's prefix. */
    RedisKeys keys();

    /**
     * Pipelines the batched renewal has sent so far, summed over the nodes (one per node per
     * renewal tick with more than one due lock: one round trip per node), retries included; a single
     * due lock is renewed with its own round and not counted.
     */
    long renewalPipelines();
}
