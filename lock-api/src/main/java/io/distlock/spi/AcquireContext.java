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
    /** The latest {@link #acquiringRequestSent} reading; meaningful once {@link #requestReported}. */
    private volatile long acquiringRequestSentAt;

    private volatile boolean requestReported;

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
     * For a driver whose try sends other requests before the one that takes the lock (etcd grants
     * a lease, then creates the key on it): the ticker reading just before the request that takes
     * the lock was sent. The engine counts a lease time it keeps itself (a session backend's lock
     * without renewal) and the hold time from the latest such reading of the try that got the
     * lock, instead of from before the whole try. Never earlier than the try: a reading from an
     * earlier try of the same attempt is ignored. Drivers that take the lock with their first
     * request need not call it.
     */
    public void acquiringRequestSent(long sentAtNanos) {
        acquiringRequestSentAt = sentAtNanos;
        requestReported = true;
    }

    /**
     * When the lock was asked for by a try that started at {@code triedAt}: the latest {@link
     * #acquiringRequestSent} reading if it is later, else {@code triedAt}.
     */
    long acquiringRequestSentAt(long triedAt) {
        if (!requestReported) {
            return triedAt;
        }
        long sent = acquiringRequestSentAt;
        return sent - triedAt > 0 ? sent : triedAt;
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
