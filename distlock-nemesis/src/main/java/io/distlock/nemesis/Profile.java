package io.distlock.nemesis;

import java.time.Duration;

/**
 * How big a run is.
 *
 * @param name smoke, long or soak
 * @param clients lock clients (child JVMs) per backend
 * @param leaseMs lease / session time of every backend
 * @param workMs time a holder "works" between acquiring and writing
 * @param settleWrites accepted writes to wait for before each fault (and as the baseline)
 * @param minGap least time between the end of one fault's recovery and the next fault
 * @param perBackend how long to keep cycling through the faults (0: each fault once)
 * @param recoveryTimeout longest wait for the next accepted write after a fault
 * @param soak the soak settings ({@link Soak#NONE} for the fault profiles)
 */
public record Profile(
        String name,
        int clients,
        long leaseMs,
        long workMs,
        int settleWrites,
        Duration minGap,
        Duration perBackend,
        Duration recoveryTimeout,
        Soak soak) {

    /** A fault profile: one lock thread per client JVM, no per-minute samples. */
    public Profile(
            String name,
            int clients,
            long leaseMs,
            long workMs,
            int settleWrites,
            Duration minGap,
            Duration perBackend,
            Duration recoveryTimeout) {
        this(name, clients, leaseMs, workMs, settleWrites, minGap, perBackend, recoveryTimeout, Soak.NONE);
    }

    /**
     * What a soak run adds to a fault profile.
     *
     * @param threadsPerClient lock threads in each client JVM, each its own lock client of one shared
     *     provider
     * @param keptClients client JVMs kept for the whole run (never the target of {@code kill-holder},
     *     so their heap and threads can be compared from the first minutes to the last); the others
     *     are killed and replaced
     * @param sampleEvery how often the servers and the client JVMs are sampled (0: never)
     */
    public record Soak(int threadsPerClient, int keptClients, Duration sampleEvery) {
        /** No soak: one thread per client, no samples. */
        public static final Soak NONE = new Soak(1, 0, Duration.ZERO);

        /** Whether this is a soak run. */
        public boolean on() {
            return !sampleEvery.isZero();
        }
    }

    /** Every backend, every applicable fault once, short leases: the CI profile. */
    public static Profile smoke() {
        return new Profile("smoke", 3, 1000, 50, 2, Duration.ZERO, Duration.ZERO, Duration.ofSeconds(20));
    }

    /** Several minutes per backend, faults every few seconds, thousands of operations. */
    public static Profile longRun() {
        return new Profile(
                "long", 4, 1000, 20, 20, Duration.ofSeconds(2), Duration.ofMinutes(4), Duration.ofSeconds(30));
    }

    /**
     * An hour per backend under sustained load: 5 client JVMs of 8 lock threads each (4 JVMs kept
     * for the whole run, 1 killed and replaced by {@code kill-holder}), the faults that keep the
     * servers' data cycled every 15 s, and every minute a sample of each client JVM and each server.
     */
    public static Profile soakRun() {
        return new Profile(
                "soak",
                5,
                1000,
                20,
                20,
                Duration.ofSeconds(15),
                Duration.ofMinutes(60),
                Duration.ofSeconds(30),
                new Soak(8, 4, Duration.ofMinutes(1)));
    }

    /** {@code smoke}, {@code long} or {@code soak}. */
    public static Profile named(String name) {
        return switch (name) {
            case "smoke" -> smoke();
            case "long" -> longRun();
            case "soak" -> soakRun();
            default -> throw new IllegalArgumentException("profile must be smoke, long or soak (was '" + name + "')");
        };
    }

    /** The same profile with another duration per backend. */
    public Profile withPerBackend(Duration d) {
        return new Profile(name, clients, leaseMs, workMs, settleWrites, minGap, d, recoveryTimeout, soak);
    }

    /** The same profile with another soak sample interval (for tests). */
    Profile withSampleEvery(Duration d) {
        return new Profile(
                name,
                clients,
                leaseMs,
                workMs,
                settleWrites,
                minGap,
                perBackend,
                recoveryTimeout,
                new Soak(soak.threadsPerClient(), soak.keptClients(), d));
    }
}
