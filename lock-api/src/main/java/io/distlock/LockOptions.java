package io.distlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Lease settings shared by every backend: how long a lease lasts, whether and how often it is
 * renewed, the safety margin taken off its validity, and the hooks (observer, ticker). Immutable;
 * build with {@link #builder()}, derive with {@link #mutate()}.
 *
 * <p>A lease is reported valid until {@code start + leaseTime - safetyMargin}, where {@code start}
 * is read from the {@linkplain Ticker monotonic ticker} <em>before</em> the acquiring (or renewing)
 * request is sent and {@code safetyMargin = leaseTime * clockDriftFactor + minimumSafetyMargin}.
 * With {@linkplain #autoRenew() automatic renewal} (the default), a watchdog renews the lease every
 * {@code leaseTime * renewalFraction} for as long as it is held, at most until {@link
 * #maxHoldTime()} or {@link #maxRenewals()} if one is set: when a cap is reached the lease ends
 * (it is reported lost, {@link Lease#lost()} completes with a {@link LeaseLostException} naming the
 * cap, and the lock is deleted on the server).
 */
public final class LockOptions {

    /** Default lease time: 30 seconds. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);
    /** Smallest lease time accepted: 10 ms. */
    public static final Duration MIN_LEASE_TIME = Duration.ofMillis(10);
    /** Largest lease time accepted: 7 days. */
    public static final Duration MAX_LEASE_TIME = Duration.ofDays(7);
    /** Default renewal fraction: renew after a third of the lease. */
    public static final double DEFAULT_RENEWAL_FRACTION = 1.0 / 3.0;
    /** Default clock drift factor: 1% of the lease (as in the Redlock specification). */
    public static final double DEFAULT_CLOCK_DRIFT_FACTOR = 0.01;
    /** Default fixed part of the safety margin: 2 ms (as in the Redlock specification). */
    public static final Duration DEFAULT_MINIMUM_SAFETY_MARGIN = Duration.ofMillis(2);

    private static final LockOptions DEFAULTS = builder().build();

    private final Duration leaseTime;
    private final boolean autoRenew;
    private final double renewalFraction;
    private final double clockDriftFactor;
    private final Duration minimumSafetyMargin;
    private final Duration maxHoldTime;
    private final int maxRenewals; // -1: no cap
    private final LockObserver observer;
    private final Ticker ticker;

    private LockOptions(Builder b) {
        this.leaseTime = b.leaseTime;
        this.autoRenew = b.autoRenew;
        this.renewalFraction = b.renewalFraction;
        this.clockDriftFactor = b.clockDriftFactor;
        this.minimumSafetyMargin = b.minimumSafetyMargin;
        this.maxHoldTime = b.maxHoldTime;
        this.maxRenewals = b.maxRenewals;
        this.observer = b.observer;
        this.ticker = b.ticker;
    }

    /** The default options. */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised with these options. */
    public Builder mutate() {
        Builder b = new Builder();
        b.leaseTime = leaseTime;
        b.autoRenew = autoRenew;
        b.renewalFraction = renewalFraction;
        b.clockDriftFactor = clockDriftFactor;
        b.minimumSafetyMargin = minimumSafetyMargin;
        b.maxHoldTime = maxHoldTime;
        b.maxRenewals = maxRenewals;
        b.observer = observer;
        b.ticker = ticker;
        return b;
    }

    /** How long the server keeps a lock for a holder that stops renewing (the TTL). */
    public Duration leaseTime() {
        return leaseTime;
    }

    /**
     * Whether held leases are renewed automatically (by a watchdog, or by the backend's session).
     * {@code false} means the same on every backend: nothing renews a lease, which ends at its
     * lease time (or at the time of its last {@link Lease#extend extension}): it is reported lost,
     * and the lock is freed — by the server where it keeps each lock's time ({@link
     * Capabilities.LeaseTiming#SERVER}), by the provider otherwise (a session-based backend deletes
     * the lock when the lease ends, though its session lives on). A provider opened with {@code
     * false} reports {@link Capabilities#automaticRenewal()} {@code false}. A lock handle can choose
     * otherwise with {@link DistributedLock#withAutoRenew(boolean)}.
     */
    public boolean autoRenew() {
        return autoRenew;
    }

    /** Renewal interval as a fraction of the lease time. */
    public double renewalFraction() {
        return renewalFraction;
    }

    /** Part of the lease time assumed lost to clock-rate differences between client and server. */
    public double clockDriftFactor() {
        return clockDriftFactor;
    }

    /** Fixed part of the safety margin. */
    public Duration minimumSafetyMargin() {
        return minimumSafetyMargin;
    }

    /** The whole margin taken off a lease's validity: {@code leaseTime * drift + minimum}. */
    public Duration safetyMargin() {
        return Duration.ofNanos((long) (leaseTime.toNanos() * clockDriftFactor)).plus(minimumSafetyMargin);
    }

    /** Cap on the total time a lease may be held through renewals; empty for no cap. */
    public Optional<Duration> maxHoldTime() {
        return Optional.ofNullable(maxHoldTime);
    }

    /**
     * Cap on the number of renewals of one lease; empty for no cap. With a cap of {@code n} the lease
     * ends (reported lost, deleted on the server) when renewal number {@code n + 1} would be due, that
     * is about {@code (n + 1) * leaseTime * renewalFraction} after it was acquired. Backends whose
     * session keeps leases alive (ZooKeeper, etcd) do not renew lease by lease; there the lease ends
     * at that same point in time. Without {@link #autoRenew()} on a watchdog backend no renewal
     * happens and the cap never matters.
     */
    public OptionalInt maxRenewals() {
        return maxRenewals < 0 ? OptionalInt.empty() : OptionalInt.of(maxRenewals);
    }

    public LockObserver observer() {
        return observer;
    }

    public Ticker ticker() {
        return ticker;
    }

    @Override
    public String toString() {
        return "LockOptions{leaseTime=" + leaseTime + ", autoRenew=" + autoRenew + ", renewalFraction="
                + renewalFraction + ", clockDriftFactor=" + clockDriftFactor + ", minimumSafetyMargin="
                + minimumSafetyMargin + ", maxHoldTime=" + maxHoldTime
                + (maxRenewals < 0 ? "" : ", maxRenewals=" + maxRenewals) + '}';
    }

    /** Builder for {@link LockOptions}; every setter checks its argument at once. */
    public static final class Builder {
        private Duration leaseTime = DEFAULT_LEASE_TIME;
        private boolean autoRenew = true;
        private double renewalFraction = DEFAULT_RENEWAL_FRACTION;
        private double clockDriftFactor = DEFAULT_CLOCK_DRIFT_FACTOR;
        private Duration minimumSafetyMargin = DEFAULT_MINIMUM_SAFETY_MARGIN;
        private Duration maxHoldTime;
        private int maxRenewals = -1;
        private LockObserver observer = LockObserver.NONE;
        private Ticker ticker = Ticker.system();

        private Builder() {}

        /**
         * @throws IllegalArgumentException unless {@code leaseTime} is between {@link #MIN_LEASE_TIME}
         *     and {@link #MAX_LEASE_TIME}
         */
        public Builder leaseTime(Duration leaseTime) {
            Objects.requireNonNull(leaseTime, "leaseTime must not be null");
            if (leaseTime.compareTo(MIN_LEASE_TIME) < 0 || leaseTime.compareTo(MAX_LEASE_TIME) > 0) {
                throw new IllegalArgumentException("leaseTime must be between " + MIN_LEASE_TIME + " and "
                        + MAX_LEASE_TIME + " (was " + leaseTime + ")");
            }
            this.leaseTime = leaseTime;
            return this;
        }

        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        /** @throws IllegalArgumentException unless {@code 0 < fraction <= 0.9} */
        public Builder renewalFraction(double fraction) {
            if (!(fraction > 0.0 && fraction <= 0.9)) {
                throw new IllegalArgumentException(
                        "renewalFraction must be greater than 0 and at most 0.9 (was " + fraction + ")");
            }
            this.renewalFraction = fraction;
            return this;
        }

        /** @throws IllegalArgumentException unless {@code 0 <= factor < 0.5} */
        public Builder clockDriftFactor(double factor) {
            if (!(factor >= 0.0 && factor < 0.5)) {
                throw new IllegalArgumentException(
                        "clockDriftFactor must be at least 0 and below 0.5 (was " + factor + ")");
            }
            this.clockDriftFactor = factor;
            return this;
        }

        /** @throws IllegalArgumentException if negative */
        public Builder minimumSafetyMargin(Duration margin) {
            Objects.requireNonNull(margin, "minimumSafetyMargin must not be null");
            if (margin.isNegative()) {
                throw new IllegalArgumentException("minimumSafetyMargin must not be negative (was " + margin + ")");
            }
            this.minimumSafetyMargin = margin;
            return this;
        }

        /**
         * Ends a lease (it is released and reported lost) once it has been held this long, however
         * often it was renewed. {@code null} removes the cap.
         *
         * @throws IllegalArgumentException if zero or negative
         */
        public Builder maxHoldTime(Duration maxHoldTime) {
            if (maxHoldTime != null && (maxHoldTime.isZero() || maxHoldTime.isNegative())) {
                throw new IllegalArgumentException("maxHoldTime must be positive (was " + maxHoldTime + ")");
            }
            this.maxHoldTime = maxHoldTime;
            return this;
        }

        /**
         * Ends a lease (it is reported lost and released) instead of renewing it for the {@code
         * (maxRenewals + 1)}-th time; see {@link LockOptions#maxRenewals()}. Remove the cap with
         * {@link #unlimitedRenewals()} (the default).
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder maxRenewals(int maxRenewals) {
            if (maxRenewals < 0) {
                throw new IllegalArgumentException("maxRenewals must not be negative (was " + maxRenewals + ")");
            }
            this.maxRenewals = maxRenewals;
            return this;
        }

        /** Removes a cap set with {@link #maxRenewals(int)}. */
        public Builder unlimitedRenewals() {
            this.maxRenewals = -1;
            return this;
        }

        public Builder observer(LockObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer must not be null");
            return this;
        }

        /** The monotonic time source; tests may inject their own. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the safety margin leaves no validity (margin at least
         *     the lease time)
         */
        public LockOptions build() {
            LockOptions o = new LockOptions(this);
            if (o.safetyMargin().compareTo(leaseTime) >= 0) {
                throw new IllegalArgumentException(
                        "safety margin " + o.safetyMargin() + " must be shorter than leaseTime " + leaseTime);
            }
            return o;
        }
    }
}
