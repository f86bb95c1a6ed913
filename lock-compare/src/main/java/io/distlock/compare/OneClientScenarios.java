package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The scenarios that need one client: the server's raw round trip (the floor), acquire+release of
 * many never-used names, and the server traffic caused by holding locks (renewal).
 */
final class OneClientScenarios {
    private final ComparisonSettings settings;

    OneClientScenarios(ComparisonSettings settings) {
        this.settings = settings;
    }

    /** The floor probe alone, after a warm-up: one raw round trip per sample. */
    Measurement floor(ComparisonTarget target) {
        Optional<Runnable> probe = target.floorProbe();
        if (probe.isEmpty()) {
            return new Measurement(target.name(), Scenario.FLOOR, Map.of(), null, "no raw round-trip probe");
        }
        Runnable p = probe.get();
        long warmEnd = System.nanoTime() + ScenarioSupport.WARMUP_LIMIT_NANOS;
        for (int i = 0; i < settings.warmup() && System.nanoTime() - warmEnd < 0; i++) {
            p.run();
        }
        long[] nanos = new long[settings.iterations()];
        for (int i = 0; i < nanos.length; i++) {
            long t0 = System.nanoTime();
            p.run();
            nanos[i] = System.nanoTime() - t0;
        }
        Map<String, Double> v = Latencies.of(nanos);
        return new Measurement(target.name(), Scenario.FLOOR, v, Latencies.samples(nanos), null);
    }

    /**
     * Acquires and releases each of {@code distinctNames} never-used names once, so every operation
     * pays whatever a backend spends on a lock it has not seen (row creation, parent nodes, counters).
     * Locks are not held at once: a backend with one connection per held lock (MySQL) would otherwise
     * measure its pool size rather than its speed.
     */
    Measurement manyNames(ComparisonTarget target) throws InterruptedException {
        String prefix = ScenarioSupport.lockName("names");
        int m = settings.distinctNames();
        try (LockClient client = target.clients().get()) {
            long[] nanos = new long[m];
            OptionalLong before = target.requestsNow();
            long t0 = System.nanoTime();
            for (int i = 0; i < m; i++) {
                long s = System.nanoTime();
                client.acquire(prefix + "-" + i, Duration.ZERO)
                        .orElseThrow(() -> new IllegalStateException("distinct lock was not free"))
                        .release();
                nanos[i] = System.nanoTime() - s;
            }
            long elapsed = System.nanoTime() - t0;
            OptionalLong after = target.requestsNow();
            Map<String, Double> v = Latencies.of(nanos);
            v.put("names", (double) m);
            v.put("ops_per_s", m / (elapsed / 1e9));
            if (before.isPresent() && after.isPresent()) {
                v.put("round_trips_per_op", (after.getAsLong() - before.getAsLong()) / (double) m);
            }
            return new Measurement(target.name(), Scenario.MANY_NAMES, v, null, null);
        }
    }

    /**
     * Server requests per second while one client holds 1 and then {@link
     * ComparisonSettings#renewalLocks()} locks for {@link ComparisonSettings#renewalHold()}: what
     * keeping leases alive costs the server. Needs the target's server request count.
     */
    Measurement renewal(ComparisonTarget target) throws InterruptedException {
        if (target.requestsNow().isEmpty()) {
            return new Measurement(
                    target.name(), Scenario.RENEWAL, Map.of(), null, "server request count not available");
        }
        Map<String, Double> v = new LinkedHashMap<>();
        v.put("requests_per_s_1_lock", holdAndCount(target, 1));
        v.put("requests_per_s_n_locks", holdAndCount(target, settings.renewalLocks()));
        v.put("n_locks", (double) settings.renewalLocks());
        v.put("hold_s", settings.renewalHold().toMillis() / 1000.0);
        return new Measurement(target.name(), Scenario.RENEWAL, v, null, null);
    }

    private double holdAndCount(ComparisonTarget target, int locks) throws InterruptedException {
        String prefix = ScenarioSupport.lockName("renewal");
        try (LockClient client = target.clients().get()) {
            List<LockClient.Hold> holds = new ArrayList<>();
            for (int i = 0; i < locks; i++) {
                holds.add(client.acquire(prefix + "-" + i, Duration.ZERO).orElseThrow());
            }
            // The first fifth of the hold is not counted: requests an acquisition still sends after
            // it returned are not renewal traffic (lock-etcd starts a watch on a holder's own key
            // shortly after the acquisition: one message per lock, once). Holding is the scenario:
            // the traffic is measured over time.
            Thread.sleep(settings.renewalHold().toMillis() / 5);
            long before = target.requestsNow().orElseThrow();
            long t0 = System.nanoTime();
            Thread.sleep(
                    settings.renewalHold().toMillis() - settings.renewalHold().toMillis() / 5);
            long after = target.requestsNow().orElseThrow();
            double seconds = (System.nanoTime() - t0) / 1e9;
            for (LockClient.Hold h : holds) {
                h.release();
            }
            return Math.max(0, after - before) / seconds;
        }
    }
}
