package io.distlock.compare;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A network delay that the comparison can set between targets' clients and their servers, such as
 * lock-testing's {@code TcpProxy} in front of a server: every connection of a target's delayed
 * variant (see {@link ComparisonTarget#withDelayed}) goes through it.
 */
public interface DelayLine {

    /** Sets the delay added to every chunk in each direction (zero: none), for new and open connections. */
    void setOneWayDelay(Duration oneWay);

    /**
     * How much later than the delay set the line delivered, at the median, since the last {@link
     * #setOneWayDelay}; empty if the line does not know.
     */
    default Optional<Duration> medianLateness() {
        return Optional.empty();
    }

    /**
     * The round trips the line has seen so far, over all its connections (each wait of a client for
     * its server: requests written together count once); empty if the line does not count them.
     */
    default OptionalLong roundTrips() {
        return OptionalLong.empty();
    }
}
