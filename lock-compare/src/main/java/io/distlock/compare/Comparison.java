package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Runs the same scenarios through several lock backends and peers, side by side, and returns the
 * figures as objects. Use it from the command line ({@code ./distlock compare}) or from a JUnit test
 * to hold your own backend against ours:
 *
 * <pre>{@code
 * ComparisonResult r = Comparison.of(ComparisonSettings.quick())
 *         .target(ComparisonTarget.of("mine", "mine", () -> LockClient.of(myProvider())))
 *         .target(ComparisonTarget.of("mem", "mem", () -> LockClient.of(MemoryLockProvider.create())))
 *         .run();
 * assertThat(r.value("mine", Scenario.HANDOFF_1, "p50_us")).isLessThan(2 * r.value("mem", Scenario.HANDOFF_1, "p50_us"));
 * }</pre>
 *
 * A run has three parts, each target after another (never concurrently, so they do not disturb
 * each other):
 *
 * <ol>
 *   <li>every scenario, the latency and hand-off ones ({@link ComparisonSettings#MODE_SCENARIOS})
 *       once in each of the settings' {@linkplain MachineMode machine modes}; the uncontended
 *       scenario measures every target of one backend (ours and the peers on the same server) in
 *       alternating blocks, so that their latencies are taken under the same load;
 *   <li>at each one-way delay above zero, {@link ComparisonSettings#DELAY_SCENARIOS} again through
 *       each target's delay line (targets without one are left out);
 *   <li>the scale curves: each point of {@link ScalePoints} for each target, up to the target's
 *       {@linkplain ComparisonTarget#withLimit limit}.
 * </ol>
 *
 * Every scenario of a target uses fresh clients, closed before the next scenario. Every measurement
 * records its {@link Condition} and the wake-up probe's reading just before and just after it, from
 * which the reports tell the machine mode it actually ran in.
 */
public final class Comparison {
    /**
     * Uncontended operations measured at a delay, at most: each takes milliseconds, and the median
     * settles quickly. A quarter of the direct run's iterations when that is fewer (a smoke run), at
     * least one interleaved block.
     */
    static final int DELAY_ITERATIONS = 200;
    /** Uncontended warm-up at a delay: the path was compiled by the direct run. */
    static final int DELAY_WARMUP = 20;

    private final ComparisonSettings settings;
    private final List<ComparisonTarget> targets = new ArrayList<>();
    private Consumer<String> progress = s -> {};

    private Comparison(ComparisonSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings must not be null");
    }

    public static Comparison of(ComparisonSettings settings) {
        return new Comparison(settings);
    }

    public Comparison target(ComparisonTarget target) {
        targets.add(Objects.requireNonNull(target, "target must not be null"));
        return this;
    }

    /** Receives one line per step ("[2/12] redis: contended throughput (3/7)"). */
    public Comparison progress(Consumer<String> progress) {
        this.progress = Objects.requireNonNull(progress, "progress must not be null");
        return this;
    }

    /** Runs every scenario for every target. A failing scenario is recorded with its error, not thrown. */
    public ComparisonResult run() {
        List<Measurement> out = new ArrayList<>();
        Map<String, String> environment = new LinkedHashMap<>();
        long start = System.nanoTime();
        try (MachineModes machine = MachineModes.start()) {
            machine.calibrate(environment);
            Steps steps = new Steps(machine, out);
            direct(steps);
            delayed(steps);
            scale(steps);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("comparison interrupted", e);
        }
        ComparisonResult r =
                new ComparisonResult(settings, List.copyOf(targets), out, Duration.ofNanos(System.nanoTime() - start));
        r.environment().putAll(environment);
        return r;
    }

    /** Every scenario, those of {@link ComparisonSettings#MODE_SCENARIOS} in each mode. */
    private void direct(Steps steps) throws InterruptedException {
        Map<MachineMode, Map<String, Measurement>> uncontended = new EnumMap<>(MachineMode.class);
        int count = 0;
        for (Scenario s : settings.scenarios()) {
            count += ComparisonSettings.MODE_SCENARIOS.contains(s)
                    ? settings.modes().size()
                    : 1;
        }
        for (int t = 0; t < targets.size(); t++) {
            ComparisonTarget target = targets.get(t);
            int step = 0;
            for (Scenario s : Scenario.values()) {
                if (!settings.scenarios().contains(s)) {
                    continue;
                }
                List<MachineMode> modes = ComparisonSettings.MODE_SCENARIOS.contains(s)
                        ? settings.modes()
                        : java.util.Collections.singletonList(null);
                for (MachineMode mode : modes) {
                    step++;
                    progress.accept(String.format(
                            "[%d/%d] %s: %s%s (%d/%d)",
                            t + 1,
                            targets.size(),
                            target.name(),
                            s.title(),
                            mode == null ? "" : ", " + mode.label() + " mode",
                            step,
                            count));
                    Condition c = mode == null ? Condition.BASE : Condition.of(mode);
                    steps.machine.enter(mode);
                    if (s == Scenario.UNCONTENDED) {
                        steps.add(
                                target,
                                s,
                                c,
                                () -> new UncontendedScenario(settings, targets, c, steps.machine::probe)
                                        .measure(target, uncontended.computeIfAbsent(mode, m -> new HashMap<>())));
                    } else {
                        steps.measure(target, s, c, () -> scenario(target, s));
                    }
                }
            }
        }
        steps.machine.enter(MachineMode.IDLE);
    }

    private Measurement scenario(ComparisonTarget target, Scenario s) throws InterruptedException {
        OneClientScenarios oneClient = new OneClientScenarios(settings);
        switch (s) {
            case FLOOR:
                return oneClient.floor(target);
            case CONTENDED:
                return new ContendedScenario(settings).measure(target);
            case HANDOFF_1:
                return new HandoffScenario(settings).measure(target, s, 1);
            case HANDOFF_MANY:
                return new HandoffScenario(settings).measure(target, s, settings.manyWaiters());
            case MANY_NAMES:
                return oneClient.manyNames(target);
            case RENEWAL:
                return oneClient.renewal(target);
            default:
                throw new IllegalArgumentException("scenario " + s + " is not run one target at a time");
        }
    }

    /**
     * {@link ComparisonSettings#DELAY_SCENARIOS} at each delay above zero, on the targets' delayed
     * variants, with fewer uncontended operations ({@value #DELAY_ITERATIONS} at most).
     */
    private void delayed(Steps steps) throws InterruptedException {
        List<ComparisonTarget.Delayed> delayed = targets.stream()
                .map(ComparisonTarget::delayed)
                .filter(Objects::nonNull)
                .toList();
        if (delayed.isEmpty() || settings.addedDelays().isEmpty()) {
            return;
        }
        List<ComparisonTarget> variants =
                delayed.stream().map(ComparisonTarget.Delayed::target).toList();
        Set<DelayLine> lines = new LinkedHashSet<>();
        delayed.forEach(d -> lines.add(d.line()));
        int iterations = Math.min(
                settings.iterations(),
                Math.max(UncontendedScenario.INTERLEAVE_BLOCK, Math.min(settings.iterations() / 4, DELAY_ITERATIONS)));
        ComparisonSettings atDelay =
                settings.withIterations(iterations).withWarmup(Math.min(settings.warmup(), DELAY_WARMUP));
        try {
            for (Duration d : settings.addedDelays()) {
                Condition c = Condition.delayed(d);
                Map<String, Measurement> uncontended = new HashMap<>();
                for (int t = 0; t < delayed.size(); t++) {
                    ComparisonTarget target = delayed.get(t).target();
                    DelayLine line = delayed.get(t).line();
                    for (Scenario s : Scenario.values()) {
                        if (!ComparisonSettings.DELAY_SCENARIOS.contains(s)
                                || !settings.scenarios().contains(s)) {
                            continue;
                        }
                        progress.accept(String.format(
                                "[%d/%d] %s: %s, %s each way",
                                t + 1, delayed.size(), target.name(), s.title(), Figures.micros(d.toNanos() / 1e3)));
                        lines.forEach(l -> l.setOneWayDelay(d)); // also forgets the lateness so far
                        if (s == Scenario.UNCONTENDED) {
                            boolean first = !uncontended.containsKey(target.name());
                            steps.add(target, s, c, () -> {
                                Measurement m = new UncontendedScenario(atDelay, variants, c, steps.machine::probe)
                                        .measure(target, uncontended);
                                if (first) { // the backend's targets were measured together, on one line
                                    for (ComparisonTarget v : variants) {
                                        if (v.backend().equals(target.backend()) && uncontended.containsKey(v.name())) {
                                            uncontended.put(v.name(), withLateness(uncontended.get(v.name()), line));
                                        }
                                    }
                                }
                                return uncontended.getOrDefault(target.name(), m);
                            });
                        } else {
                            steps.measure(
                                    target,
                                    s,
                                    c,
                                    () -> withLateness(
                                            s == Scenario.CONTENDED
                                                    ? new ContendedScenario(atDelay).measure(target)
                                                    : new HandoffScenario(atDelay).measure(target, s, 1),
                                            line));
                        }
                    }
                }
            }
        } finally {
            lines.forEach(l -> l.setOneWayDelay(Duration.ZERO));
        }
    }

    private static Measurement withLateness(Measurement m, DelayLine line) {
        return line.medianLateness()
                .map(l -> m.with(Map.of("delay_lateness_p50_us", l.toNanos() / 1e3)))
                .orElse(m);
    }

    /** The scale curves, point by point; after a failed point, a target's larger points are not run. */
    private void scale(Steps steps) throws InterruptedException {
        ScalePoints points = settings.scale();
        for (Scenario s : List.of(Scenario.CONTENDED, Scenario.RENEWAL, Scenario.HANDOFF_MANY)) {
            for (int t = 0; t < targets.size(); t++) {
                ComparisonTarget target = targets.get(t);
                boolean failed = false;
                for (int p : points.points(s)) {
                    Condition c = Condition.point(p);
                    ComparisonTarget.Limit limit = target.limits().get(s);
                    if (limit != null && p > limit.max()) {
                        steps.out.add(new Measurement(
                                target.name(), s, c, Map.of(), null, "not measured: " + limit.reason()));
                        continue;
                    }
                    if (failed) {
                        steps.out.add(new Measurement(
                                target.name(), s, c, Map.of(), null, "not measured: a smaller point failed"));
                        continue;
                    }
                    progress.accept(String.format(
                            "[%d/%d] %s: %s, %d %s", t + 1, targets.size(), target.name(), s.title(), p, unit(s)));
                    steps.measure(target, s, c, () -> {
                        long t0 = System.nanoTime();
                        Measurement m = scalePoint(target, s, p);
                        return m.with(Map.of("point_s", (System.nanoTime() - t0) / 1e9));
                    });
                    String note = steps.out.get(steps.out.size() - 1).note();
                    failed = note != null && note.startsWith("failed");
                }
            }
        }
    }

    private Measurement scalePoint(ComparisonTarget target, Scenario s, int p) throws InterruptedException {
        ScalePoints points = settings.scale();
        switch (s) {
            case CONTENDED:
                return new ContendedScenario(settings).measure(target, p, points.contendedDuration());
            case RENEWAL:
                return new HeldLocksScenario(settings).measure(target, p);
            case HANDOFF_MANY:
                return new HandoffScenario(settings).measure(target, s, p, points.maxWaiterClients());
            default:
                throw new IllegalArgumentException("scenario " + s + " has no scale curve");
        }
    }

    /** What a point of {@code s}'s curve counts: "clients", "held locks", "waiters". */
    static String unit(Scenario s) {
        return switch (s) {
            case CONTENDED -> "clients";
            case RENEWAL -> "held locks";
            case HANDOFF_MANY -> "waiters";
            default -> "";
        };
    }

    /** A measurement that may be interrupted. */
    @FunctionalInterface
    private interface Run {
        Measurement run() throws InterruptedException;
    }

    /** Runs measurements into {@code out}: a failure is recorded, not thrown; each is probed for the mode. */
    private static final class Steps {
        final MachineModes machine;
        final List<Measurement> out;

        Steps(MachineModes machine, List<Measurement> out) {
            this.machine = machine;
            this.out = out;
        }

        /** Runs {@code run} between two wake-up probes, under {@code c}. */
        void measure(ComparisonTarget target, Scenario s, Condition c, Run run) throws InterruptedException {
            double before = machine.probe();
            Measurement m = attempt(target, s, run);
            out.add(m.under(c).with(Map.of(MachineModes.BEFORE, before, MachineModes.AFTER, machine.probe())));
        }

        /** Adds what {@code run} returns, which is probed and under {@code c} already (a failure is put under it). */
        void add(ComparisonTarget target, Scenario s, Condition c, Run run) throws InterruptedException {
            Measurement m = attempt(target, s, run);
            out.add(m.condition().equals(c) ? m : m.under(c));
        }

        private static Measurement attempt(ComparisonTarget target, Scenario s, Run run) throws InterruptedException {
            try {
                return run.run();
            } catch (RuntimeException | AssertionError e) {
                return ScenarioSupport.failed(target, s, e);
            }
        }
    }
}
