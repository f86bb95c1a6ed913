package io.distlock.spi;

import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.Ticker;
import java.time.Duration;
import java.util.Objects;

/**
 * What the engine tells a driver about one acquisition attempt, and the channel through which the
 * driver reports, later, that the resulting lease was lost (session expired, connection died, key
 * deleted by someone else).
 */
public final class AcquireContext {
    private final String lockName;
    private final String backend;
    private final LockOptions options;
    private final LockEngine.LossRelay lossSink;
    /** {@code leaseTime - safetyMargin} in nanoseconds, computed once per engine. */
    private final long validityNanos;
    /** The ticker reading at which the attempt's wait budget ends ({@link Deadlines#NEVER} for none). */
    private final long waitDeadlineNanos;

    AcquireContext(
            String lockName,
            String backend,
            LockOptions options,
            LockEngine.LossRelay lossSink,
            long validityNanos,
            long waitDeadlineNanos) {
        this.lockName = Objects.requireNonNull(lockName);
        this.backend = backend;
        this.options = Objects.requireNonNull(options);
        this.lossSink = Objects.requireNonNull(lossSink);
        this.validityNanos = validityNanos;
        this.waitDeadlineNanos = waitDeadlineNanos;
    }

    /** {@code leaseTime - safetyMargin} of {@code options} in nanoseconds (saturated). */
    static long validityNanos(LockOptions options) {
        try {
            return options.leaseTime().minus(options.safetyMargin()).toNanos();
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    /** The validated lock name. */
    public String lockName() {
        return lockName;
    }

    public String backend() {
        return backend;
    }

    public LockOptions options() {
        return options;
    }

    /** The lease time (server-side TTL) to request. */
    public Duration leaseTime() {
        return options.leaseTime();
    }

    public Ticker ticker() {
        return options.ticker();
    }

    /**
     * The ticker reading at which the caller's wait ends: the attempt's start for a single try
     * ({@code tryAcquire()}), {@link Deadlines#NEVER} for {@code acquire()}. A driver that must wait
     * for a local resource before it can even ask the server (a pooled connection) waits at most
     * until then.
     */
    public long waitDeadlineNanos() {
        return waitDeadlineNanos;
    }

    /**
     * The validity deadline for a lease whose acquiring or renewing request was sent at ticker
     * reading {@code sentAtNanos}: {@code sentAt + leaseTime - safetyMargin}.
     */
    public long validUntil(long sentAtNanos) {
        return Deadlines.after(sentAtNanos, validityNanos);
    }

    /**
     * The validity deadline for a lease extended to {@code leaseTime} by a request sent at ticker
     * reading {@code sentAtNanos}: {@code sentAt + leaseTime - safetyMargin(leaseTime)}, with the
     * safety margin of these options computed for that lease time.
     */
    public long validUntil(long sentAtNanos, Duration leaseTime) {
        long validity;
        try {
            Duration margin = Duration.ofNanos((long) (leaseTime.toNanos() * options.clockDriftFactor()))
                    .plus(options.minimumSafetyMargin());
            validity = leaseTime.minus(margin).toNanos();
        } catch (ArithmeticException overflow) {
            validity = Long.MAX_VALUE;
        }
        return Deadlines.after(sentAtNanos, Math.max(0, validity));
    }

    /**
     * Reports that the lease acquired through this context is lost. Safe to call from any thread,
     * more than once, and before or after the engine has seen the acquisition; only the first
     * report counts.
     */
    public void reportLost(String reason, Throwable cause) {
        lossSink.accept(new LeaseLostException(reason, lockName, backend, cause));
    }

    /**
     * Tells the engine that {@link HeldLock#validUntilNanos()} moved <em>earlier</em> (for example
     * a session was suspended), so the loss signal fires at the new deadline rather than the old.
     * Moving it later needs no call.
     */
    public void validityChanged() {
        lossSink.validityChanged();
    }
}
