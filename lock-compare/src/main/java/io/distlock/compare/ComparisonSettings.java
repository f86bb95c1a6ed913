package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
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
 * @param modes the machine modes the latency and hand-off scenarios ({@link #MODE_SCENARIOS}) run
 *     in, in this order (see {@link MachineMode}); the other scenarios run once, with nothing added
 *     to the machine
 * @param oneWayDelays the network delays at which {@link #DELAY_SCENARIOS} run again, through each
 *     target's delay line (see {@link ComparisonTarget#withDelayed}); 0 stands for the direct
 *     measurement; empty for none
 * @param scale the points of the scale curves ({@link ScalePoints#NONE} for none)
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
        int renewalLocks,
        List<MachineMode> modes,
        List<Duration> oneWayDelays,
        ScalePoints scale) {

    /** The scenarios run once per machine mode: the raw round trip, latency and hand-off. */
    public static final Set<Scenario> MODE_SCENARIOS =
            Set.copyOf(EnumSet.of(Scenario.FLOOR, Scenario.UNCONTENDED, Scenario.HANDOFF_1, Scenario.HANDOFF_MANY));

    /** The scenarios run again at each network delay: latency, throughput and hand-off to one waiter. */
    public static final Set<Scenario> DELAY_SCENARIOS =
            Set.copyOf(EnumSet.of(Scenario.UNCONTENDED, Scenario.CONTENDED, Scenario.HANDOFF_1));

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
        Objects.requireNonNull(modes, "modes must not be null");
        if (modes.isEmpty()
                || modes.stream().anyMatch(Objects::isNull)
                || new java.util.HashSet<>(modes).size() != modes.size()) {
            throw new IllegalArgumentException(
                    "modes must name each machine mode at most once, at least one (was " + modes + ")");
        }
        modes = List.copyOf(modes);
        Objects.requireNonNull(oneWayDelays, "oneWayDelays must not be null");
        List<Duration> delays = new ArrayList<>();
        for (Duration d : oneWayDelays) {
            if (d == null || d.isNegative() || delays.contains(d)) {
                throw new IllegalArgumentException(
                        "oneWayDelays must be distinct and not negative (was " + oneWayDelays + ")");
            }
            delays.add(d);
        }
        delays.sort(Duration::compareTo);
        oneWayDelays = List.copyOf(delays);
        Objects.requireNonNull(scale, "scale must not be null");
    }

    /**
     * The settings without modes, delays and scale curves: the scenarios once each, with nothing
     * added to the machine ({@link MachineMode#IDLE}).
     */
    public ComparisonSettings(
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
        this(
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
                renewalHold,
                renewalLocks,
                List.of(MachineMode.IDLE),
                List.of(),
                ScalePoints.NONE);
    }

    private static void positive(String name, int value, boolean zeroAllowed) {
        if (value < 0 || (!zeroAllowed && value == 0)) {
            throw new IllegalArgumentException(
                    name + " must be " + (zeroAllowed ? "at least 0" : "positive") + " (was " + value + ")");
        }
    }

    /**
     * The default run: every scenario, in both machine modes, sized to finish in a few minutes for
     * every backend and peer; no delays and no scale curves (add them with {@link #withOneWayDelays}
     * and {@link #withScale}).
     */
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
                // held 10 s, 8 s counted: more than two renewal intervals of the comparison's 10 s leases
                Duration.ofSeconds(10),
                10,
                List.of(MachineMode.IDLE, MachineMode.FAST),
                List.of(),
                ScalePoints.NONE);
    }

    /** A very short run for smoke tests and CI: one machine mode, no delays, no scale curves. */
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
                5,
                List.of(MachineMode.IDLE),
                List.of(),
                ScalePoints.NONE);
    }

    /** A copy of these settings with what {@code change} sets. */
    private ComparisonSettings with(java.util.function.Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return c.build();
    }

    public ComparisonSettings withScenarios(Set<Scenario> s) {
        return with(c -> c.scenarios = s);
    }

    public ComparisonSettings withContendedClients(int k) {
        return with(c -> c.contendedClients = k);
    }

    public ComparisonSettings withContendedDuration(Duration d) {
        return with(c -> c.contendedDuration = d);
    }

    /** Uncontended iterations (and floor probes) run before measuring, so that measured code is JIT-compiled. */
    public ComparisonSettings withWarmup(int n) {
        return with(c -> c.warmup = n);
    }

    public ComparisonSettings withIterations(int n) {
        return with(c -> c.iterations = n);
    }

    public ComparisonSettings withManyWaiters(int w) {
        return with(c -> c.manyWaiters = w);
    }

    public ComparisonSettings withHandoffRounds(int n) {
        return with(c -> c.handoffRounds = n);
    }

    public ComparisonSettings withHandoffMaxDuration(Duration d) {
        return with(c -> c.handoffMaxDuration = d);
    }

    public ComparisonSettings withRenewalHold(Duration d) {
        return with(c -> c.renewalHold = d);
    }

    /** The machine modes the latency and hand-off scenarios run in, in this order. */
    public ComparisonSettings withModes(List<MachineMode> m) {
        return with(c -> c.modes = m);
    }

    /** The one-way network delays at which {@link #DELAY_SCENARIOS} run again (0: the direct figures). */
    public ComparisonSettings withOneWayDelays(List<Duration> d) {
        return with(c -> c.oneWayDelays = d);
    }

    public ComparisonSettings withScale(ScalePoints points) {
        return with(c -> c.scale = points);
    }

    /** The delays above zero: those that run through the targets' delay lines. */
    public List<Duration> addedDelays() {
        return oneWayDelays.stream().filter(d -> !d.isZero()).toList();
    }

    /** The mutable copy {@link #with} changes. */
    private static final class Copy {
        Set<Scenario> scenarios;
        int warmup;
        int iterations;
        int contendedClients;
        Duration contendedDuration;
        int handoffRounds;
        Duration handoffMaxDuration;
        int manyWaiters;
        Duration holdBeforeRelease;
        int distinctNames;
        Duration renewalHold;
        int renewalLocks;
        List<MachineMode> modes;
        List<Duration> oneWayDelays;
        ScalePoints scale;

        Copy(ComparisonSettings s) {
            scenarios = s.scenarios;
            warmup = s.warmup;
            iterations = s.iterations;
            contendedClients = s.contendedClients;
            contendedDuration = s.contendedDuration;
            handoffRounds = s.handoffRounds;
            handoffMaxDuration = s.handoffMaxDuration;
            manyWaiters = s.manyWaiters;
            holdBeforeRelease = s.holdBeforeRelease;
            distinctNames = s.distinctNames;
            renewalHold = s.renewalHold;
            renewalLocks = s.renewalLocks;
            modes = s.modes;
            oneWayDelays = s.oneWayDelays;
            scale = s.scale;
        }

        ComparisonSettings build() {
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
                    renewalHold,
                    renewalLocks,
                    modes,
                    oneWayDelays,
                    scale);
        }
    }
}
