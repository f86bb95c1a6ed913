package io.distlock;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * Hook for metrics and logs. Every method has an empty default; implement the ones you need.
 *
 * <p>Callbacks run on the thread that performed the operation (or on the provider's watchdog thread
 * for renewals and losses). They must be fast and must not throw: an exception from an observer is
 * logged and otherwise ignored, and never affects the lock.
 */
public interface LockObserver {

    /** A no-op observer. */
    LockObserver NONE = new LockObserver() {};

    /** An acquisition attempt starts ({@code maxWait} is zero for a single try). */
    default void attempt(String backend, String lockName, Duration maxWait) {}

    /** The lock was acquired after waiting {@code waited}. */
    default void acquired(String backend, String lockName, Duration waited, OptionalLong fencingToken) {}

    /** The lock was not acquired: held by another client until the wait budget ran out. */
    default void notAcquired(String backend, String lockName, Duration waited) {}

    /** The attempt failed with an error (backend unavailable, interrupted, closed provider). */
    default void failed(String backend, String lockName, Throwable error) {}

    /** The lease was released after being held for {@code held}; {@code wasValid} is false if lost. */
    default void released(String backend, String lockName, Duration held, boolean wasValid) {}

    /** A renewal extended the lease. */
    default void renewed(String backend, String lockName) {}

    /** A renewal failed; the lease may still be valid until its deadline. */
    default void renewalFailed(String backend, String lockName, Throwable error) {}

    /** The lease was lost. */
    default void lost(String backend, String lockName, LeaseLostException cause) {}
}
