package io.distlock.etcd.internal;

import io.distlock.LockOptions;
import io.distlock.spi.Deadlines;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The terms of one etcd lease: the TTL it is granted with (whole seconds: etcd's unit), how long a
 * client may believe in it after the request that last started its TTL was sent ({@code leaseTime
 * - safetyMargin}), and how often it is kept alive (0: never, it runs out). Internal.
 *
 * @param ttlSeconds the TTL to grant: the lease time rounded up to whole seconds (the server raises
 *     a TTL below its minimum, about 1.5 × the election timeout, to that minimum)
 * @param validityNanos how long after a grant or keepalive was sent the lease is valid
 * @param keepaliveIntervalNanos how often a keepalive is sent; 0 for a lease nobody keeps alive
 * @param ttlValidityNanos how long after a grant or keepalive was sent the server surely still keeps
 *     the lease: the TTL less the safety margin of a lease that long (at least {@code
 *     validityNanos})
 */
record LeaseTerms(long ttlSeconds, long validityNanos, long keepaliveIntervalNanos, long ttlValidityNanos) {
    /** The largest TTL etcd grants (its {@code MaxLeaseTTL}, 9 × 10⁹ s). */
    private static final long MAX_TTL_SECONDS = 9_000_000_000L;

    /**
     * A lease of {@code options}' lease time, kept alive every {@code leaseTime * renewalFraction} if
     * {@code keepAlive}.
     */
    static LeaseTerms of(LockOptions options, boolean keepAlive) {
        Duration leaseTime = options.leaseTime();
        long validity = leaseTime.minus(options.safetyMargin()).toNanos();
        long interval = keepAlive ? Math.max(1_000_000L, (long) (leaseTime.toNanos() * options.renewalFraction())) : 0;
        long ttl = ttlSeconds(leaseTime);
        long ttlNanos = TimeUnit.SECONDS.toNanos(ttl);
        long ttlValidity = ttlNanos
                - (long) (ttlNanos * options.clockDriftFactor())
                - options.minimumSafetyMargin().toNanos();
        validity = Math.max(0, validity);
        return new LeaseTerms(ttl, validity, interval, Math.max(validity, ttlValidity));
    }

    /**
     * A lease that holds a released lock for {@code delay} and is never kept alive: its validity is
     * the whole delay (it is the time at which the client revokes it).
     */
    static LeaseTerms forDelay(Duration delay) {
        long nanos;
        try {
            nanos = delay.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = Long.MAX_VALUE;
        }
        return new LeaseTerms(ttlSeconds(delay), nanos, 0, nanos);
    }

    /** {@code d} in whole seconds, rounded up: at least 1, at most etcd's largest TTL. */
    static long ttlSeconds(Duration d) {
        long seconds = d.getSeconds() + (d.getNano() > 0 ? 1 : 0);
        return Math.min(MAX_TTL_SECONDS, Math.max(1, seconds));
    }

    /** Whether the lease is kept alive. */
    boolean keptAlive() {
        return keepaliveIntervalNanos > 0;
    }

    /** The validity deadline of a lease whose grant or keepalive was sent at {@code sentAt}. */
    long validUntil(long sentAt) {
        return Deadlines.after(sentAt, validityNanos);
    }
}
