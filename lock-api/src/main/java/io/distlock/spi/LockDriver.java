package io.distlock.spi;

import io.distlock.Capabilities;

/**
 * The backend-specific half of a provider: a handful of primitives that {@link LockEngine} drives.
 * The engine owns everything else: argument checks, wait budgets, leases, renewal scheduling,
 * validity tracking, loss notification, observers and clean shutdown.
 *
 * <p>Implementations must be thread-safe.
 */
public interface LockDriver extends AutoCloseable {

    /** Short backend name, for example {@code "redis"}. */
    String backend();

    /** What this driver guarantees. */
    Capabilities capabilities();

    /** How leases stay alive. */
    RenewalMode renewalMode();

    /**
     * How the engine renews the leases due in one renewal tick ({@link RenewalMode#WATCHDOG} only):
     * {@link BatchRenewal#ONE_BY_ONE} ({@link HeldLock#renew()} for each) unless the driver can renew
     * many locks with one request per server.
     */
    default BatchRenewal batchRenewal() {
        return BatchRenewal.ONE_BY_ONE;
    }

    /** Starts an acquisition attempt for {@code ctx.lockName()}. No I/O is required here. */
    Contender contender(AcquireContext ctx);

    /**
     * Closes connections the driver opened and wakes every thread blocked in {@link
     * Contender#awaitChange(long)}. Called once, after the engine released the leases it could.
     */
    @Override
    void close();
}
