package io.distlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

/**
 * A named lock on one backend. A handle is cheap (no I/O) and thread-safe; getting the same name
 * twice gives handles for the same lock.
 *
 * <p><b>Mutual exclusion.</b> While a lease is {@linkplain Lease#isValid() valid}, no other lease
 * for the same name is valid <em>on a correct backend under its stated assumptions</em> (see
 * {@link LockProvider#capabilities()} and the backend's documentation: what a failover or a
 * process pause does differs by backend). Locks are not reentrant unless the provider is wrapped
 * with {@link ReentrantLockProvider}: a thread that asks again for a lock it holds waits for
 * itself.
 *
 * <p><b>Waiting.</b> Methods that wait do so by notification where the backend can notify, never
 * by a fixed sleep, and are interruptible. A wait that ends without the lock (timeout, interrupt,
 * error) leaves nothing behind on the server.
 *
 * <pre>{@code
 * DistributedLock lock = provider.lock("invoice-42");
 * Optional<Lease> lease = lock.tryAcquire(Duration.ofSeconds(2));
 * if (lease.isPresent()) {
 *     try (Lease l = lease.get()) {
 *         // ... work, checking l.isValid() or l.fencingToken() before side effects
 *     }
 * }
 * }</pre>
 */
public interface DistributedLock {

    /** The lock name, as given to {@link LockProvider#lock(String)}. */
    String name();

    /**
     * The backend this lock belongs to (as {@link LockProvider#backend()}), for messages; {@code
     * null} if the implementation does not say.
     */
    default String backend() {
        return null;
    }

    /**
     * A handle on the same lock whose acquisitions use {@code leaseTime} instead of the provider's
     * {@link LockOptions#leaseTime()}: the time the lock stays taken for a holder that stops renewing
     * (a crash, a pause, {@link #withAutoRenew(boolean) withAutoRenew(false)}). Everything else (the
     * safety margin, renewal fraction, caps, observer) comes from the provider's options. No I/O;
     * the handle is as cheap and thread-safe as this one, and can be kept.
     *
     * <p>How firmly the time is held depends on {@link Capabilities#leaseTiming()}: the server
     * enforces it ({@code SERVER}), or the client does while it lives ({@code CLIENT}).
     *
     * @throws NullPointerException if {@code leaseTime} is null
     * @throws IllegalArgumentException unless {@code leaseTime} is between {@link
     *     LockOptions#MIN_LEASE_TIME} and {@link LockOptions#MAX_LEASE_TIME} and longer than its safety
     *     margin
     * @throws UnsupportedOperationException if this implementation cannot vary the lease time
     */
    default DistributedLock withLeaseTime(Duration leaseTime) {
        throw new UnsupportedOperationException(
                "withLeaseTime is not supported by " + getClass().getName());
    }

    /**
     * A handle on the same lock whose leases are ({@code true}) or are not ({@code false}) kept alive
     * automatically while held. Without renewal a lease ends when its lease time runs out (unless
     * {@link Lease#extend extended}): it is reported lost and the lock becomes free for others within
     * the lease time plus a small margin, on every backend. No I/O.
     *
     * @throws UnsupportedOperationException if this implementation cannot change renewal per handle
     */
    default DistributedLock withAutoRenew(boolean autoRenew) {
        throw new UnsupportedOperationException(
                "withAutoRenew is not supported by " + getClass().getName());
    }

    /**
     * One attempt that never waits.
     *
     * @return the lease if acquired; empty if another client holds the lock
     * @throws BackendUnavailableException if the backend could not be asked
     * @throws IllegalStateException if the provider is closed
     */
    Optional<Lease> tryAcquire();

    /**
     * Acquires the lock, waiting at most {@code maxWait}. {@code Duration.ZERO} behaves like
     * {@link #tryAcquire()}; a very large wait (beyond about 292 years) means "wait forever".
     *
     * @return the lease, or empty if the lock was still held when the wait ran out
     * @throws NullPointerException if {@code maxWait} is null
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws InterruptedException if interrupted while waiting (nothing is left held)
     * @throws BackendUnavailableException if the backend stayed unavailable until the wait ran out
     *     (a transient outage within the wait is retried with backoff)
     */
    Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException;

    /**
     * Acquires the lock, waiting as long as it takes.
     *
     * @throws InterruptedException if interrupted while waiting (nothing is left held)
     */
    Lease acquire() throws InterruptedException;

    /**
     * Runs {@code action} while holding the lock, then releases it.
     *
     * <p>If the lease is lost while the action runs, the action is not interrupted (register on
     * {@link Lease#lost()} for that); when it returns, {@code withLock} throws {@link
     * LeaseLostException} so the caller learns that the work was not protected to the end.
     *
     * @throws LockTimeoutException if the lock was not acquired within {@code maxWait}
     * @throws InterruptedException if interrupted while waiting
     * @throws X whatever the action throws (the lock is released first)
     */
    default <T, X extends Exception> T withLock(Duration maxWait, LockedAction<T, X> action)
            throws InterruptedException, X {
        java.util.Objects.requireNonNull(action, "action must not be null");
        Lease lease = tryAcquire(maxWait).orElseThrow(() -> new LockTimeoutException(name(), backend(), maxWait));
        T result;
        try {
            result = action.run(lease);
        } catch (Throwable t) {
            try {
                lease.release();
            } catch (RuntimeException e) {
                t.addSuppressed(e);
            }
            throw t;
        }
        boolean stillHeld = lease.release();
        if (!stillHeld) {
            throw new LeaseLostException("lease was lost while the action ran", name(), backend());
        }
        return result;
    }

    /**
     * A {@link Lock} view of this lock for code that expects one. The view is bound to threads like
     * {@link java.util.concurrent.locks.ReentrantLock}: {@code unlock()} must be called by the
     * thread that locked, and throws {@link IllegalMonitorStateException} otherwise. It is not
     * reentrant (a second {@code lock()} by the holding thread throws {@link IllegalStateException})
     * unless the provider is wrapped with {@link ReentrantLockProvider}. {@code newCondition()} is
     * unsupported. {@code lock()} waits uninterruptibly, as the {@code Lock} contract requires. A
     * lease lost while held is not visible through this view; use the lease API where that matters.
     */
    Lock asLock();
}
