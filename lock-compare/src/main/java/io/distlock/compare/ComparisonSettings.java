package io.distlock.compare;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Parameters of a comparison run, the same for every target.
 *
 * @param scenarios which scenarios to run
 * @param warmup uncontended iterations (and floor probes) before measuring, each target in turn,
 *     for at most 3 s: enough for the JIT to compile the measured path (C2 compiles a method after
 *     some thousands of calls), so that every target, ours and peers, is measured in its steady
 *     state, whatever ran before it in the same JVM; when not 0, the contended clients also contend
 *     unmeasured for a quarter of {@code contendedDuration} (at most 1 s) before the measured window
 * @param iterations measured uncontended iterations (and floor probes)
 * @param contendedClients K, the number of independent clients on one lock
 * @param contendedDuration how long the contended scenario runs
 * @param handoffRounds measured hand-offs per hand-off scenario (fewer if {@code handoffMaxDuration}
 *     runs out first, as it does for sleep-and-retry locks)
 * @param handoffMaxDuration time cap of one hand-off scenario
 * @param manyWaiters the number of waiters in {@link Scenario#HANDOFF_MANY}
 * @param holdBeforeRelease how long a holder keeps the lock in hand-off rounds, so that waiters are
 *     really waiting when it releases
 * @param distinctNames names used by {@link Scenario#MANY_NAMES}
 * @param renewalHold how long {@link Scenario#RENEWAL} holds its locks
 * @param renewalLocks how many locks {@link Scenario#RENEWAL} holds at once (it also holds one, to
 *     show whether traffic grows with the number of held locks)
 */
public record ComparisonSettings(
        Set<Scenario> scenarios,
        int warmup,
        int iterations,
        int contendedClients,
        Duration contendedDuration,
        int handoffRounds,
        Duration handoffMaxDuration,
        int manyWaiters,
        Duration holdBeforeRelease,
        int distinctNames,
        Duration renewalHold,
        int renewalLocks) {

    public ComparisonSettings {
        Objects.requireNonNull(scenarios, "scenarios must not be null");
        scenarios = Set.copyOf(scenarios);
        positive("warmup", warmup, true);
        positive("iterations", iterations, false);
        positive("contendedClients", contendedClients, false);
        positive("handoffRounds", handoffRounds, false);
        positive("manyWaiters", manyWaiters, false);
        positive("distinctNames", distinctNames, false);
        positive("renewalLocks", renewalLocks, false);
        Objects.requireNonNull(contendedDuration, "contendedDuration must not be null");
        Objects.requireNonNull(holdBeforeRelease, "holdBeforeRelease must not be null");
        Objects.requireNonNull(handoffMaxDuration, "handoffMaxDuration must not be null");
        Objects.requireNonNull(renewalHold, "renewalHold must not be null");
    }

    private static void positive(String name, int value, boolean zeroAllowed) {
        if (value < 0 || (!zeroAllowed && value == 0)) {
            throw new IllegalArgumentException(
                    name + " must be " + (zeroAllowed ? "at least 0" : "positive") + " (was " + value + ")");
        }
    }

    /** The default run: every scenario, sized to finish in a few minutes for every backend and peer. */
    public static ComparisonSettings defaults() {
        return new ComparisonSettings(
                EnumSet.allOf(Scenario.class),
                10_000,
                2_000,
                8,
                Duration.ofSeconds(4),
                200,
                Duration.ofSeconds(6),
                50,
                Duration.ofMillis(2),
                1_000,
                Duration.ofSeconds(5),
                10);
    }

    /** A very short run for smoke tests and CI. */
    public static ComparisonSettings quick() {
        return new ComparisonSettings(
                EnumSet.allOf(Scenario.class),
                20,
                200,
                4,
                Duration.ofSeconds(1),
                30,
                Duration.ofSeconds(3),
                10,
                Duration.ofMillis(2),
                100,
                Duration.ofSeconds(2),
                5);
    }

    public ComparisonSettings withScenarios(Set<Scenario> s) {
        return new ComparisonSettings(
                s,
                warmup,
                iterations,
                contendedClients,
                contendedDuration,
                handoffRounds,
                handoffMaxDuration,
                manyWaiters,
                holdBeforeRelease,
                distinctNames,
                renewalHold,
                renewalLocks);
    }

    public ComparisonSettings withContendedClients(int k) {
        return new ComparisonSettings(
                scenarios,
                warmup,
                iterations,
                k,
                contendedDuration,
                handoffRounds,
                handoffMaxDuration,
                manyWaiters,
                holdBeforeRelease,
                distinctNames,
                renewalHold,
                renewalLocks);
    }

    public ComparisonSettings withContendedDuration(Duration d) {
        return new ComparisonSettings(
                scenarios,
                warmup,
                iterations,
                contendedClients,
                d,
                handoffRounds,
                handoffMaxDuration,
                manyWaiters,
                holdBeforeRelease,
                distinctNames,
                renewalHold,
                renewalLocks);
    }

    /** Uncontended iterations (and floor probes) run before measuring, so that measured code is JIT-compiled. */
    public ComparisonSettings withWarmup(int n) {
        return new ComparisonSettings(
                scenarios,
                n,
                iterations,
                contendedClients,
                contendedDuration,
                handoffRounds,
                handoffMaxDuration,
                manyWaiters,
                holdBeforeRelease,
                distinctNames,
                renewalHold,
                renewalLocks);
    }

    public ComparisonSettings withIterations(int n) {
        return new ComparisonSettings(
                scenarios,
                warmup,
                n,
                contendedClients,
                contendedDuration,
                handoffRounds,
                handoffMaxDuration,
                manyWaiters,
                holdBeforeRelease,
                distinctNames,
                renewalHold,
                renewalLocks);
    }

    public ComparisonSettings withManyWaiters(int w) {
        return new ComparisonSettings(
                scenarios,
                warmup,
                iterations,
                contendedClients,
                contendedDuration,
                handoffRounds,
                handoffMaxDuration,
                w,
                holdBeforeRelease,
                distinctNames,
                renewalHold,
                renewalLocks);
    }

    public ComparisonSettings withHandoffMaxDuration(Duration d) {
        return new ComparisonSettings(
                scenarios,
                warmup,
                iterations,
                contendedClients,
                contendedDuration,
                handoffRounds,
                d,
                manyWaiters,
                holdBeforeRelease,
                distinctNames,
                renewalHold,
                renewalLocks);
    }

    public ComparisonSettings withRenewalHold(Duration d) {
        return new ComparisonSettings(
                scenarios,
                warmup,
                iterations,
                contendedClients,
                contendedDuration,
                handoffRounds,
                handoffMaxDuration,
                manyWaiters,
                holdBeforeRelease,
                distinctNames,
                d,
                renewalLocks);
    }
}
