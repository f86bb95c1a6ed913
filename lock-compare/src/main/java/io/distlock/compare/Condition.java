package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Under what a measurement was taken, beyond its scenario: the machine mode forced for it, the
 * network delay between the clients and the server, and the point of a scale curve.
 *
 * @param mode the machine mode forced for the measurement, or null when the scenario is not run per
 *     mode (it ran with nothing added to the machine)
 * @param oneWayDelay the delay added in each direction between every client and its server (through
 *     a delay line such as lock-testing's {@code TcpProxy}); zero for a direct connection
 * @param point the point of a scale curve: contending clients ({@link Scenario#CONTENDED}), held
 *     locks ({@link Scenario#RENEWAL}) or waiters ({@link Scenario#HANDOFF_MANY}); 0 for the
 *     scenario's own measurement
 */
public record Condition(MachineMode mode, Duration oneWayDelay, int point) {
    /** The scenario's own measurement: no mode forced, direct connections, not a scale point. */
    public static final Condition BASE = new Condition(null, Duration.ZERO, 0);

    public Condition {
        Objects.requireNonNull(oneWayDelay, "oneWayDelay must not be null");
        if (oneWayDelay.isNegative()) {
            throw new IllegalArgumentException("oneWayDelay must not be negative (was " + oneWayDelay + ")");
        }
        if (point < 0) {
            throw new IllegalArgumentException("point must be at least 0 (was " + point + ")");
        }
    }

    /** The base condition in {@code mode}. */
    public static Condition of(MachineMode mode) {
        return new Condition(mode, Duration.ZERO, 0);
    }

    /** Direct connections, no scale point, no mode forced. */
    public static Condition delayed(Duration oneWay) {
        return new Condition(null, oneWay, 0);
    }

    /** The scale point {@code n} (direct connections, no mode forced). */
    public static Condition point(int n) {
        return new Condition(null, Duration.ZERO, n);
    }

    /** Whether this is a scenario's own measurement at no delay in whatever mode (not a delay or scale point). */
    public boolean main() {
        return oneWayDelay.isZero() && point == 0;
    }

    /** The one-way delay in µs. */
    public long oneWayDelayMicros() {
        return oneWayDelay.toNanos() / 1_000;
    }

    /** "idle", "1 ms each way", "64": what differs from {@link #BASE}; empty for it. */
    public String label() {
        List<String> parts = new ArrayList<>();
        if (mode != null) {
            parts.add(mode.label());
        }
        if (!oneWayDelay.isZero()) {
            parts.add(Figures.micros(oneWayDelayMicros()) + " each way");
        }
        if (point > 0) {
            parts.add(String.valueOf(point));
        }
        return String.join(", ", parts);
    }
}
