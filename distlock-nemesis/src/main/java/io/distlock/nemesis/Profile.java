package io.distlock.nemesis;

import java.time.Duration;

/**
 * How big a run is.
 *
 * @param name smoke or long
 * @param clients lock clients (child JVMs) per backend
 * @param leaseMs lease / session time of every backend
 * @param workMs time a holder "works" between acquiring and writing
 * @param settleWrites accepted writes to wait for before each fault (and as the baseline)
 * @param minGap least time between the end of one fault's recovery and the next fault
 * @param perBackend how long to keep cycling through the faults (0: each fault once)
 * @param recoveryTimeout longest wait for the next accepted write after a fault
 */
public record Profile(
        String name,
        int clients,
        long leaseMs,
        long workMs,
        int settleWrites,
        Duration minGap,
        Duration perBackend,
        Duration recoveryTimeout) {

    /** Every backend, every applicable fault once, short leases: the CI profile. */
    public static Profile smoke() {
        return new Profile("smoke", 3, 1000, 50, 2, Duration.ZERO, Duration.ZERO, Duration.ofSeconds(20));
    }

    /** Several minutes per backend, faults every few seconds, thousands of operations. */
    public static Profile longRun() {
        return new Profile(
                "long", 4, 1000, 20, 20, Duration.ofSeconds(2), Duration.ofMinutes(4), Duration.ofSeconds(30));
    }

    /** {@code smoke} or {@code long}. */
    public static Profile named(String name) {
        return switch (name) {
            case "smoke" -> smoke();
            case "long" -> longRun();
            default -> throw new IllegalArgumentException("profile must be smoke or long (was '" + name + "')");
        };
    }

    /** The same profile with another duration per backend. */
    public Profile withPerBackend(Duration d) {
        return new Profile(name, clients, leaseMs, workMs, settleWrites, minGap, d, recoveryTimeout);
    }
}
