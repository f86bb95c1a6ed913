package io.distlock;

import java.util.OptionalInt;

/**
 * How a provider whose locks each keep a pooled connection uses its pool, so that a service that
 * holds many locks sees the limit before it reaches it ({@link PoolExhaustedException}). Offered by
 * the SQL backends through {@link LockProvider#unwrap(Class) unwrap(ConnectionPoolMetrics.class)};
 * lock-micrometer turns it into gauges. Values are read live; each call may differ.
 *
 * <pre>{@code
 * provider.unwrap(ConnectionPoolMetrics.class).ifPresent(pool ->
 *         log.info("{} of {} connections hold locks", pool.heldLockConnections(), pool.poolSize()));
 * }</pre>
 */
public interface ConnectionPoolMetrics {

    /** Connections that hold a lock now (one per held lease, and per lease released with a delay). */
    int heldLockConnections();

    /** Connections borrowed from the pool now (held locks, waiters, claims, tokens), if the pool says. */
    OptionalInt connectionsInUse();

    /** The pool's maximum size, if known (the provider's own pool, or a caller's HikariCP pool). */
    OptionalInt poolSize();

    /** Threads waiting for a connection of the pool now, if the pool says. */
    OptionalInt threadsWaiting();
}
