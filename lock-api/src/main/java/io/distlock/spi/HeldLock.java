package io.distlock.spi;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * A driver's record of one acquired lock. The engine wraps it in the user-facing {@link
 * io.distlock.Lease}.
 */
public interface HeldLock {

    /** The fencing token, or empty if the backend has none. */
    OptionalLong fencingToken();

    /**
     * The ticker reading after which the client must no longer believe it holds the lock. The
     * engine polls this value; session-based drivers may move it forward (keepalive) or back
     * (connection suspended). Use {@link AcquireContext#validUntil(long)} to compute it.
     * The deadline must be finite (never {@link Deadlines#NEVER}): a lease the client cannot bound
     * in time cannot be checked against a fenced resource or a pause.
     */
    long validUntilNanos();

    /**
     * Extends the lock on the server if, and only if, this client still owns it ({@link
     * RenewalMode#WATCHDOG} drivers). On success the driver moves {@link #validUntilNanos()} to
     * {@code ctx.validUntil(t)} with {@code t} read before the request was sent.
     *
     * <p>Renewals of all leases of one provider run one after another on the provider's watchdog
     * thread, so a renewal must be bounded in time: use a request timeout well below the renewal
     * interval ({@code leaseTime * renewalFraction}) and throw when it passes. (Loss detection does
     * not depend on this: it runs on a separate timer thread.)
     *
     * @return {@code true} if extended; {@code false} if the lock is gone or owned by someone else
     * @throws io.distlock.BackendUnavailableException if the outcome is unknown
     */
    default boolean renew() {
        throw new UnsupportedOperationException("renewal is handled by the backend session");
    }

    /**
     * Sets the lock's time to live on the server to {@code leaseTime} if, and only if, this client
     * still owns it ({@link io.distlock.Lease#extend}). On success the driver moves {@link
     * #validUntilNanos()} to {@code ctx.validUntil(t, leaseTime)} with {@code t} read before the
     * request was sent. Drivers of backends whose locks live as long as a session or connection
     * ({@link io.distlock.Capabilities.LeaseTiming#CLIENT}) may leave it unsupported: the engine then
     * keeps the new deadline itself; implement it where the server has a timeout that must follow
     * (for example a connection timeout tied to the lease).
     *
     * @return {@code true} if extended; {@code false} if the lock is gone or owned by someone else
     * @throws io.distlock.BackendUnavailableException if the outcome is unknown
     * @throws UnsupportedOperationException if the driver leaves extension to the engine
     */
    default boolean extend(Duration leaseTime) {
        throw new UnsupportedOperationException("extend");
    }

    /**
     * Lets the lock expire on the server {@code delay} from now instead of deleting it, if this client
     * still owns it ({@link io.distlock.Lease#releaseAfter}); called at most once, instead of {@link
     * #release()}, and only by drivers whose backend declares {@link
     * io.distlock.Capabilities.LeaseTiming#SERVER}.
     *
     * @return {@code true} if it was still ours (it now expires after {@code delay}); {@code false} if
     *     it was gone or owned by someone else (nothing was changed then)
     * @throws io.distlock.BackendUnavailableException if the outcome is unknown
     */
    default boolean releaseAfter(Duration delay) {
        throw new UnsupportedOperationException("releaseAfter");
    }

    /**
     * Deletes the lock on the server if this client still owns it. Called at most once.
     *
     * @return {@code true} if it was still ours and is now deleted; {@code false} if it was gone or
     *     owned by someone else (nothing was changed then)
     * @throws io.distlock.BackendUnavailableException if the outcome is unknown
     */
    boolean release();
}
