package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Acquire+release of a free lock, for every target of a backend at once: ours and the peer
 * libraries on the same server take turns in blocks of {@value #INTERLEAVE_BLOCK}, and when a
 * target has a floor probe its operation blocks alternate with blocks of raw round trips. So
 * "× floor" and "ours ÷ peer" compare figures taken under the same machine load (targets measured
 * one after another, a minute apart, can differ by a fifth on a shared machine). Server requests
 * are counted around each target's operation blocks only. Measured once per backend, when its
 * first target comes up; the others take their result from the {@code done} map.
 */
final class UncontendedScenario {
    /** Uncontended operations and floor probes alternate in blocks of this many. */
    static final int INTERLEAVE_BLOCK = 50;

    private final ComparisonSettings settings;
    private final List<ComparisonTarget> targets;
    private final Condition condition;
    private final Probe probe;

    /** The wake-up probe of the machine mode, run before and after each backend's interleaved run. */
    @FunctionalInterface
    interface Probe {
        double p50Micros();
    }

    UncontendedScenario(ComparisonSettings settings, List<ComparisonTarget> targets) {
        this(settings, targets, Condition.BASE, null);
    }

    /**
     * Measures {@code targets} under {@code condition}; {@code probe} (may be null) is run before and
     * after each backend's run and recorded in each of its measurements.
     */
    UncontendedScenario(ComparisonSettings settings, List<ComparisonTarget> targets, Condition condition, Probe probe) {
        this.settings = settings;
        this.targets = targets;
        this.condition = condition;
        this.probe = probe;
    }

    /**
     * {@code target}'s measurement: from {@code done}, or measured now with every target of its
     * backend that is not yet in {@code done} (their results are added to it).
     */
    Measurement measure(ComparisonTarget target, Map<String, Measurement> done) {
        Measurement m = done.get(target.name());
        if (m != null) {
            return m;
        }
        List<Run> runs = new ArrayList<>();
        double before = probe == null ? Double.NaN : probe.p50Micros();
        try {
            for (ComparisonTarget t : targets) {
                if (t.backend().equals(target.backend()) && !done.containsKey(t.name())) {
                    try {
                        runs.add(new Run(t));
                    } catch (RuntimeException | AssertionError e) {
                        done.put(t.name(), ScenarioSupport.failed(t, Scenario.UNCONTENDED, e));
                    }
                }
            }
            for (Run r : runs) {
                r.step(done, r::warmUp);
            }
            for (int from = 0; from < settings.iterations(); from += INTERLEAVE_BLOCK) {
                int first = from;
                int to = Math.min(settings.iterations(), from + INTERLEAVE_BLOCK);
                for (Run r : runs) {
                    r.step(done, () -> r.block(first, to));
                }
            }
            Optional<Run> ours = runs.stream()
                    .filter(r -> !r.target.peer() && !done.containsKey(r.target.name()))
                    .findFirst();
            for (Run r : runs) {
                if (!done.containsKey(r.target.name())) {
                    done.put(r.target.name(), r.measurement(ours.filter(o -> o != r)));
                }
            }
        } finally {
            runs.forEach(Run::close);
        }
        Map<String, Double> probes = new LinkedHashMap<>();
        if (probe != null) {
            probes.put(MachineModes.BEFORE, before);
            probes.put(MachineModes.AFTER, probe.p50Micros());
        }
        for (ComparisonTarget t : targets) {
            Measurement measured = done.get(t.name());
            if (t.backend().equals(target.backend())
                    && measured != null
                    && !measured.condition().equals(condition)) {
                done.put(t.name(), measured.under(condition).with(probes));
            }
        }
        return done.get(target.name());
    }

    /** A part of a run that may be interrupted. */
    @FunctionalInterface
    private interface Part {
        void run() throws InterruptedException;
    }

    /** One target's part of the scenario: its client, its floor probes, its samples. */
    private final class Run {
        final ComparisonTarget target;
        final String name;
        final Optional<Runnable> probe;
        final LockClient client;
        final long[] nanos;
        final long[] floorNanos;
        final Map<String, long[]> extraNanos = new LinkedHashMap<>();
        long requests;
        boolean counted = true;

        Run(ComparisonTarget target) {
            this.target = target;
            this.name = ScenarioSupport.lockName("uncontended");
            this.probe = target.floorProbe();
            this.nanos = new long[settings.iterations()];
            this.floorNanos = new long[probe.isPresent() ? settings.iterations() : 0];
            target.extraFloors().keySet().forEach(k -> extraNanos.put(k, new long[settings.iterations()]));
            this.client = target.clients().get();
        }

        /** Runs {@code part}; a failure ends this target's measurement (recorded in {@code done}), not the others'. */
        void step(Map<String, Measurement> done, Part part) {
            if (done.containsKey(target.name())) {
                return;
            }
            try {
                part.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("comparison interrupted", e);
            } catch (RuntimeException | AssertionError e) {
                done.put(target.name(), ScenarioSupport.failed(target, Scenario.UNCONTENDED, e));
            }
        }

        void warmUp() throws InterruptedException {
            long warmEnd = System.nanoTime() + ScenarioSupport.WARMUP_LIMIT_NANOS;
            for (int i = 0; i < settings.warmup() && System.nanoTime() - warmEnd < 0; i++) {
                client.acquire(name, Duration.ZERO).orElseThrow().release();
                probe.ifPresent(Runnable::run);
                target.extraFloors().values().forEach(Runnable::run);
            }
        }

        void block(int from, int to) throws InterruptedException {
            OptionalLong before = target.requestsNow();
            for (int i = from; i < to; i++) {
                long t0 = System.nanoTime();
                LockClient.Hold h = client.acquire(name, Duration.ZERO)
                        .orElseThrow(() -> new IllegalStateException("uncontended lock was not free"));
                h.release();
                nanos[i] = System.nanoTime() - t0;
            }
            OptionalLong after = target.requestsNow();
            if (before.isPresent() && after.isPresent()) {
                requests += after.getAsLong() - before.getAsLong();
            } else {
                counted = false;
            }
            if (probe.isPresent()) {
                time(probe.get(), floorNanos, from, to);
            }
            target.extraFloors().forEach((metric, extra) -> time(extra, extraNanos.get(metric), from, to));
        }

        /** Runs {@code r} for samples {@code from} to {@code to}, each timed into {@code into}. */
        private void time(Runnable r, long[] into, int from, int to) {
            for (int i = from; i < to; i++) {
                long t0 = System.nanoTime();
                r.run();
                into[i] = System.nanoTime() - t0;
            }
        }

        /** {@code ours}: distlock's run on the same backend, for a peer's {@code distlock_over_this_p50}. */
        Measurement measurement(Optional<Run> ours) {
            Map<String, Double> v = Latencies.of(nanos);
            if (counted) {
                v.put("round_trips_per_op", requests / (double) nanos.length);
            }
            if (target.floorRequestsPerOperation() > 0) {
                v.put("protocol_floor_round_trips", (double) target.floorRequestsPerOperation());
            }
            if (floorNanos.length > 0) {
                v.put("floor_p50_us", Latencies.p50(floorNanos));
                if (target.floorRequestsPerOperation() > 0) {
                    v.put(
                            "over_floor_by_blocks",
                            Latencies.medianBlockRatio(nanos, floorNanos, INTERLEAVE_BLOCK)
                                    / target.floorRequestsPerOperation());
                }
            }
            extraNanos.forEach((k, n) -> {
                v.put(k + "_p50_us", Latencies.p50(n));
                v.put("over_" + k + "_by_blocks", Latencies.medianBlockRatio(nanos, n, INTERLEAVE_BLOCK));
            });
            if (target.peer() && ours.isPresent()) {
                v.put("distlock_over_this_p50", Latencies.p50(ours.get().nanos) / v.get("p50_us"));
            }
            return new Measurement(target.name(), Scenario.UNCONTENDED, v, Latencies.samples(nanos), null);
        }

        void close() {
            client.close();
        }
    }
}
