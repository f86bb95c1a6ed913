package io.distlock.tck;

import java.time.Duration;
import java.util.Objects;

/**
 * The time scales the TCK works with; override {@link LockProviderTck#timing()} for a backend that
 * needs longer ones (a session timeout with a large minimum, a slow CI host).
 *
 * @param shortLease lease time of clients whose leases the rules let expire, renew or lose; short
 *     so that the suite is fast, long enough for several renewals on a loaded machine
 * @param slack how much later than ideal an event may happen before a rule fails (hand-off to a
 *     waiter, a loss signal, a wait running out); generous for a loaded 2-core CI host, yet far
 *     below what a missing mechanism (no notification, no TTL, no loss signal) would take
 */
public record TckTiming(Duration shortLease, Duration slack) {

    /**
     * 1 s leases and 1 s of slack. A renewed lease then survives a renewal thread that stalls for up
     * to about two thirds of a second (with the default renewal every third of the lease), which a
     * loaded 2-core CI host needs.
     */
    public static TckTiming defaults() {
        return new TckTiming(Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    public TckTiming {
        Objects.requireNonNull(shortLease, "shortLease must not be null");
        Objects.requireNonNull(slack, "slack must not be null");
        if (shortLease.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("shortLease must be at least 100 ms (was " + shortLease + ")");
        }
        if (slack.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("slack must be at least 100 ms (was " + slack + ")");
        }
    }

    /** A copy with another short lease time. */
    public TckTiming withShortLease(Duration value) {
        return new TckTiming(value, slack);
    }

    /** A copy with another slack. */
    public TckTiming withSlack(Duration value) {
        return new TckTiming(shortLease, value);
    }
}
