package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
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
 * Targets run one after another (never concurrently, so they do not disturb each other); every
 * scenario of a target uses fresh clients, closed before the next scenario.
 */
public final class Comparison {
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

    /** Receives one line per step ("redis: contended throughput (3/7)"). */
    public Comparison progress(Consumer<String> progress) {
        this.progress = Objects.requireNonNull(progress, "progress must not be null");
        return this;
    }

    /** Runs every scenario for every target. A failing scenario is recorded with its error, not thrown. */
    public ComparisonResult run() {
        List<Measurement> out = new ArrayList<>();
        long start = System.nanoTime();
        Map<String, Measurement> uncontended = new HashMap<>();
        for (int t = 0; t < targets.size(); t++) {
            ComparisonTarget target = targets.get(t);
            int step = 0;
            for (Scenario s : Scenario.values()) {
                if (!settings.scenarios().contains(s)) {
                    continue;
                }
                step++;
                progress.accept(String.format(
                        "[%d/%d] %s: %s (%d/%d)",
                        t + 1,
                        targets.size(),
                        target.name(),
                        s.title(),
                        step,
                        settings.scenarios().size()));
                try {
                    out.add(s == Scenario.UNCONTENDED ? uncontended(target, uncontended) : runScenario(target, s));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("comparison interrupted", e);
                } catch (RuntimeException | AssertionError e) {
                    out.add(failed(target, s, e));
                }
            }
        }
        return new ComparisonResult(settings, List.copyOf(targets), out, Duration.ofNanos(System.nanoTime() - start));
    }

    private Measurement runScenario(ComparisonTarget target, Scenario s) throws InterruptedException {
        switch (s) {
            case FLOOR:
                return floor(target);
            case UNCONTENDED:
                throw new IllegalStateException("uncontended is measured per backend, see uncontended(target, done)");
            case CONTENDED:
                return contended(target);
            case HANDOFF_1:
                return handoff(target, s, 1);
            case HANDOFF_MANY:
                return handoff(target, s, settings.manyWaiters());
            case MANY_NAMES:
                return manyNames(target);
            case RENEWAL:
                return renewal(target);
            default:
                throw new IllegalArgumentException("unknown scenario " + s);
        }
    }

    private static String lockName(ComparisonTarget target, String scenario) {
        return "compare-" + scenario + "-" + Long.toHexString(System.nanoTime());
    }

    private Measurement floor(ComparisonTarget target) {
        Optional<Runnable> probe = target.floorProbe();
        if (probe.isEmpty()) {
            return new Measurement(target.name(), Scenario.FLOOR, Map.of(), null, "no raw round-trip probe");
        }
        Runnable p = probe.get();
        long warmEnd = System.nanoTime() + WARMUP_LIMIT_NANOS;
        for (int i = 0; i < settings.warmup() && System.nanoTime() - warmEnd < 0; i++) {
            p.run();
        }
        long[] nanos = new long[settings.iterations()];
        for (int i = 0; i < nanos.length; i++) {
            long t0 = System.nanoTime();
            p.run();
            nanos[i] = System.nanoTime() - t0;
        }
        Map<String, Double> v = latencies(nanos);
        return new Measurement(target.name(), Scenario.FLOOR, v, samples(nanos), null);
    }

    /**
     * Longest warm-up per target and scenario: {@link ComparisonSettings#warmup()} iterations or
     * this long, whichever ends first (slow backends reach their steady state in fewer iterations,
     * and their figures are large against the JIT's share).
     */
    private static final long WARMUP_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(3);

    /** Uncontended operations and floor probes alternate in blocks of this many. */
    private static final int INTERLEAVE_BLOCK = 50;

    /**
     * Acquire+release of a free lock, for every target of {@code target}'s backend at once: ours and
     * the peer libraries on the same server take turns in blocks of {@value #INTERLEAVE_BLOCK}, and
     * when a target has a floor probe its operation blocks alternate with blocks of raw round trips.
     * So "× floor" and "ours ÷ peer" compare figures taken under the same machine load (targets
     * measured one after another, a minute apart, differed by up to 20 % on a shared machine).
     * Server requests are counted around each target's operation blocks only. Measured once per
     * backend, when its first target comes up; the others take their result from {@code done}.
     */
    private Measurement uncontended(ComparisonTarget target, Map<String, Measurement> done) {
        Measurement m = done.get(target.name());
        if (m != null) {
            return m;
        }
        List<UncontendedRun> runs = new ArrayList<>();
        try {
            for (ComparisonTarget t : targets) {
                if (t.backend().equals(target.backend()) && !done.containsKey(t.name())) {
                    try {
                        runs.add(new UncontendedRun(t));
                    } catch (RuntimeException | AssertionError e) {
                        done.put(t.name(), failed(t, Scenario.UNCONTENDED, e));
                    }
                }
            }
            for (UncontendedRun r : runs) {
                r.step(done, r::warmUp);
            }
            for (int from = 0; from < settings.iterations(); from += INTERLEAVE_BLOCK) {
                int first = from;
                int to = Math.min(settings.iterations(), from + INTERLEAVE_BLOCK);
                for (UncontendedRun r : runs) {
                    r.step(done, () -> r.block(first, to));
                }
            }
            Optional<UncontendedRun> ours = runs.stream()
                    .filter(r -> !r.target.peer() && !done.containsKey(r.target.name()))
                    .findFirst();
            for (UncontendedRun r : runs) {
                if (!done.containsKey(r.target.name())) {
                    done.put(r.target.name(), r.measurement(ours.filter(o -> o != r)));
                }
            }
        } finally {
            runs.forEach(UncontendedRun::close);
        }
        return done.get(target.name());
    }

    private static Measurement failed(ComparisonTarget t, Scenario s, Throwable e) {
        return new Measurement(t.name(), s, Map.of(), null, "failed: " + e);
    }

    /** One target's part of {@link #uncontended}: its client, its floor probes, its samples. */
    private final class UncontendedRun {
        final ComparisonTarget target;
        final String name;
        final Optional<Runnable> probe;
        final LockClient client;
        final long[] nanos;
        final long[] floorNanos;
        final Map<String, long[]> extraNanos = new LinkedHashMap<>();
        long requests;
        boolean counted = true;

        UncontendedRun(ComparisonTarget target) {
            this.target = target;
            this.name = lockName(target, "uncontended");
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
                done.put(target.name(), failed(target, Scenario.UNCONTENDED, e));
            }
        }

        void warmUp() throws InterruptedException {
            long warmEnd = System.nanoTime() + WARMUP_LIMIT_NANOS;
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
        Measurement measurement(Optional<UncontendedRun> ours) {
            Map<String, Double> v = latencies(nanos);
            if (counted) {
                v.put("round_trips_per_op", requests / (double) nanos.length);
            }
            if (target.floorRequestsPerOperation() > 0) {
                v.put("protocol_floor_round_trips", (double) target.floorRequestsPerOperation());
            }
            if (floorNanos.length > 0) {
                v.put("floor_p50_us", latencies(floorNanos).get("p50_us"));
                if (target.floorRequestsPerOperation() > 0) {
                    v.put(
                            "over_floor_by_blocks",
                            medianBlockRatio(nanos, floorNanos, INTERLEAVE_BLOCK) / target.floorRequestsPerOperation());
                }
            }
            extraNanos.forEach((k, n) -> {
                v.put(k + "_p50_us", latencies(n).get("p50_us"));
                v.put("over_" + k + "_by_blocks", medianBlockRatio(nanos, n, INTERLEAVE_BLOCK));
            });
            if (target.peer() && ours.isPresent()) {
                v.put("distlock_over_this_p50", latencies(ours.get().nanos).get("p50_us") / v.get("p50_us"));
            }
            return new Measurement(target.name(), Scenario.UNCONTENDED, v, samples(nanos), null);
        }

        void close() {
            client.close();
        }
    }

    /** A part of a run that may be interrupted. */
    @FunctionalInterface
    private interface Part {
        void run() throws InterruptedException;
    }

    /** Plain, unsynchronised state for the lost-update check. */
    private static final class Counter {
        long value;
    }

    /**
     * Longest contended warm-up per target: the same clients contend for this long (at most a
     * quarter of the measured window) before the measured window starts, so that the waiting path
     * is measured JIT-compiled for every target, not only for those measured after others that
     * share its client library.
     */
    private static final long CONTENDED_WARMUP_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private Measurement contended(ComparisonTarget target) throws InterruptedException {
        String name = lockName(target, "contended");
        int k = settings.contendedClients();
        List<LockClient> clients = open(target, k);
        try {
            long warmNanos = settings.warmup() == 0
                    ? 0
                    : Math.min(
                            CONTENDED_WARMUP_LIMIT_NANOS,
                            settings.contendedDuration().toNanos() / 4);
            // the warm-up's throughput is not recorded, its lost updates are (an overlap is one)
            long warmLost = warmNanos > 0 ? contend(clients, name, warmNanos).lost() : 0;
            return contend(clients, name, settings.contendedDuration().toNanos())
                    .measurement(target.name(), k, warmLost);
        } finally {
            closeAll(clients);
        }
    }

    /** What one contended window produced. */
    private record ContendedRound(long[] perClient, long counted, long elapsedNanos) {
        long lost() {
            return Arrays.stream(perClient).sum() - counted;
        }

        Measurement measurement(String target, int k, long earlierLost) {
            long total = Arrays.stream(perClient).sum();
            Map<String, Double> v = new LinkedHashMap<>();
            v.put("clients", (double) k);
            v.put("ops_per_s", total / (elapsedNanos / 1e9));
            v.put("acquisitions", (double) total);
            v.put("lost_updates", (double) (lost() + earlierLost));
            long min = Arrays.stream(perClient).min().orElse(0);
            long max = Arrays.stream(perClient).max().orElse(0);
            v.put("fair_share_min", total == 0 ? 0 : min * k / (double) total);
            v.put("fair_share_max", total == 0 ? 0 : max * k / (double) total);
            return new Measurement(target, Scenario.CONTENDED, v, null, null);
        }
    }

    /** Every client acquires and releases {@code name} in a loop for {@code durationNanos}. */
    private ContendedRound contend(List<LockClient> clients, String name, long durationNanos)
            throws InterruptedException {
        int k = clients.size();
        Counter counter = new Counter();
        long[] perClient = new long[k];
        AtomicReference<Throwable> error = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(k);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            int idx = i;
            LockClient c = clients.get(i);
            Thread th = new Thread(
                    () -> {
                        try {
                            ready.countDown();
                            go.await();
                            long end = window[0] + durationNanos;
                            while (System.nanoTime() - end < 0) {
                                Optional<LockClient.Hold> h =
                                        c.acquire(name, Duration.ofNanos(Math.max(1, end - System.nanoTime())));
                                if (h.isEmpty()) {
                                    continue;
                                }
                                try {
                                    long read = counter.value; // deliberately not atomic: a lost update shows an
                                    // overlap
                                    Thread.onSpinWait();
                                    counter.value = read + 1;
                                    perClient[idx]++;
                                } finally {
                                    h.get().release();
                                }
                            }
                        } catch (Throwable t) {
                            error.compareAndSet(null, t);
                        }
                    },
                    "distlock-compare-contended-" + i);
            threads.add(th);
            th.start();
        }
        ready.await();
        window[0] = System.nanoTime();
        go.countDown();
        joinAll(threads, Duration.ofNanos(durationNanos).plusSeconds(60));
        long elapsed = System.nanoTime() - window[0];
        if (error.get() != null) {
            throw new IllegalStateException("contended client failed: " + error.get(), error.get());
        }
        return new ContendedRound(perClient, counter.value, elapsed);
    }

    private Measurement handoff(ComparisonTarget target, Scenario scenario, int waiters) throws InterruptedException {
        String name = lockName(target, "handoff" + waiters);
        int n = waiters + 1;
        List<LockClient> clients = open(target, n);
        try {
            int rounds = settings.handoffRounds();
            long holdNanos = settings.holdBeforeRelease().toNanos();
            long[] floorNanos = target.handoffFloor() == null ? new long[0] : new long[rounds];
            long[] floorIdleNanos = new long[floorNanos.length];
            long[] roundTripIdleNanos = target.floor() == null ? new long[0] : new long[rounds];
            // the floors next to the hand-offs: half of their samples before, half after
            handoffFloor(target, floorNanos, floorIdleNanos, 0, rounds / 2, holdNanos, true);
            roundTripsAfterIdle(target, roundTripIdleNanos, 0, rounds / 2, holdNanos);
            long[] nanos = new long[rounds];
            AtomicInteger measured = new AtomicInteger();
            AtomicInteger acquisitions = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> error = new AtomicReference<>();
            long[] lastRelease = {0};
            Object releaseLock = new Object();
            Object taken = new Object();
            long started = System.nanoTime();
            long endBy = started + settings.handoffMaxDuration().toNanos();
            // untimed: the first hand-offs, while the clients are still queueing for the first time
            // (n transactions, watches and reads around the early hand-offs) and the waiting path
            // is not yet compiled; at most a quarter of the time cap (sleep-and-retry peers)
            int warmHandoffs = n + HANDOFF_WARMUP;
            long warmUntil = started + settings.handoffMaxDuration().toNanos() / 4;
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                LockClient c = clients.get(i);
                Thread th = new Thread(
                        () -> {
                            try {
                                while (!stop.get()) {
                                    Optional<LockClient.Hold> h = c.acquire(name, Duration.ofSeconds(10));
                                    long got = System.nanoTime();
                                    if (h.isEmpty()) {
                                        continue;
                                    }
                                    int mine = acquisitions.incrementAndGet();
                                    synchronized (taken) {
                                        taken.notifyAll(); // the client that released may queue again
                                    }
                                    long prev;
                                    synchronized (releaseLock) {
                                        prev = lastRelease[0];
                                    }
                                    if (System.nanoTime() - endBy > 0) {
                                        stop.set(true); // time cap: sleep-and-retry locks hand off in seconds
                                    }
                                    boolean warm = mine > warmHandoffs || got - warmUntil > 0;
                                    if (prev != 0 && warm && !stop.get()) {
                                        int slot = measured.getAndIncrement();
                                        if (slot < rounds) {
                                            nanos[slot] = got - prev;
                                        } else {
                                            stop.set(true);
                                        }
                                    }
                                    if (!stop.get()) {
                                        LockSupport.parkNanos(holdNanos); // let the others reach their wait
                                    }
                                    synchronized (releaseLock) {
                                        lastRelease[0] = System.nanoTime();
                                    }
                                    h.get().release();
                                    // do not barge: wait until another client has taken the lock,
                                    // blocked (a polling loop here would compete for the CPU with
                                    // the very hand-off being measured)
                                    synchronized (taken) {
                                        while (!stop.get() && acquisitions.get() == mine) {
                                            taken.wait(10);
                                        }
                                    }
                                }
                            } catch (Throwable t) {
                                error.compareAndSet(null, t);
                                stop.set(true);
                            }
                        },
                        "distlock-compare-handoff-" + i);
                threads.add(th);
                th.start();
            }
            joinAll(threads, settings.handoffMaxDuration().plusSeconds(60));
            stop.set(true);
            if (error.get() != null) {
                throw new IllegalStateException("hand-off client failed: " + error.get(), error.get());
            }
            handoffFloor(target, floorNanos, floorIdleNanos, rounds / 2, rounds, holdNanos, false);
            roundTripsAfterIdle(target, roundTripIdleNanos, rounds / 2, rounds, holdNanos);
            long[] got = Arrays.copyOf(nanos, Math.min(rounds, measured.get()));
            Map<String, Double> v = latencies(got);
            v.put("waiters", (double) waiters);
            if (floorNanos.length > 0) {
                v.put("handoff_floor_p50_us", latencies(floorNanos).get("p50_us"));
                v.put("handoff_floor_idle_p50_us", latencies(floorIdleNanos).get("p50_us"));
            }
            if (roundTripIdleNanos.length > 0) {
                v.put("floor_after_idle_p50_us", latencies(roundTripIdleNanos).get("p50_us"));
            }
            return new Measurement(target.name(), scenario, v, samples(got), null);
        } finally {
            closeAll(clients);
        }
    }

    /**
     * Hand-off floor samples {@code from} to {@code to}, alternately back to back ({@code into}) and
     * after {@code idleNanos} of idle ({@code idleInto}), after a short warm-up if {@code warm}.
     */
    private static void handoffFloor(
            ComparisonTarget target, long[] into, long[] idleInto, int from, int to, long idleNanos, boolean warm) {
        if (into.length == 0) {
            return;
        }
        if (warm) {
            for (int i = 0; i < HANDOFF_FLOOR_WARMUP; i++) {
                target.handoffFloor().applyAsLong(0);
            }
        }
        for (int i = from; i < to; i++) {
            into[i] = target.handoffFloor().applyAsLong(0);
            idleInto[i] = target.handoffFloor().applyAsLong(idleNanos);
        }
    }

    /**
     * Samples {@code from} to {@code to} of the target's floor probe (one round trip), each run after
     * {@code idleNanos} parked, as a released holder's server and the waiter's client are after a
     * hold: reported as {@code floor_after_idle_p50_us}, the round trip that a hand-off measured in
     * round trips is fairly compared with.
     */
    private static void roundTripsAfterIdle(ComparisonTarget target, long[] into, int from, int to, long idleNanos) {
        for (int i = from; i < into.length && i < to; i++) {
            LockSupport.parkNanos(idleNanos);
            long t = System.nanoTime();
            target.floor().run();
            into[i] = System.nanoTime() - t;
        }
    }

    /**
     * Untimed hand-offs at the start of a hand-off scenario, beyond one per client (see {@link
     * #handoff}).
     */
    private static final int HANDOFF_WARMUP = 20;

    /** Untimed hand-off floor samples before the first timed one of a scenario. */
    private static final int HANDOFF_FLOOR_WARMUP = 20;

    /**
     * Acquires and releases each of {@code distinctNames} never-used names once, so every operation
     * pays whatever a backend spends on a lock it has not seen (row creation, parent nodes, counters).
     * Locks are not held at once: a backend with one connection per held lock (MySQL) would otherwise
     * measure its pool size rather than its speed.
     */
    private Measurement manyNames(ComparisonTarget target) throws InterruptedException {
        String prefix = lockName(target, "names");
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
            Map<String, Double> v = latencies(nanos);
            v.put("names", (double) m);
            v.put("ops_per_s", m / (elapsed / 1e9));
            if (before.isPresent() && after.isPresent()) {
                v.put("round_trips_per_op", (after.getAsLong() - before.getAsLong()) / (double) m);
            }
            return new Measurement(target.name(), Scenario.MANY_NAMES, v, null, null);
        }
    }

    private Measurement renewal(ComparisonTarget target) throws InterruptedException {
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
        String prefix = lockName(target, "renewal");
        try (LockClient client = target.clients().get()) {
            List<LockClient.Hold> holds = new ArrayList<>();
            for (int i = 0; i < locks; i++) {
                holds.add(client.acquire(prefix + "-" + i, Duration.ZERO).orElseThrow());
            }
            // The first fifth of the hold is not counted: requests an acquisition still sends after
            // it returned are not renewal traffic (lock-etcd starts a watch on a holder's own key
            // 100 ms after the acquisition: one message per lock, once). Holding is the scenario:
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

    private static List<LockClient> open(ComparisonTarget target, int n) {
        List<LockClient> clients = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                clients.add(target.clients().get());
            }
            return clients;
        } catch (RuntimeException e) {
            closeAll(clients);
            throw e;
        }
    }

    private static void closeAll(List<LockClient> clients) {
        for (LockClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
    }

    private static void joinAll(List<Thread> threads, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                TimeUnit.NANOSECONDS.timedJoin(t, left);
            }
            if (t.isAlive()) {
                throw new IllegalStateException("scenario thread " + t.getName() + " did not finish in " + max);
            }
        }
    }

    static Map<String, Double> latencies(long[] nanos) {
        Map<String, Double> v = new LinkedHashMap<>();
        if (nanos.length == 0) {
            return v;
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        v.put("count", (double) sorted.length);
        v.put("p50_us", pct(sorted, 0.50));
        v.put("p90_us", pct(sorted, 0.90));
        v.put("p99_us", pct(sorted, 0.99));
        v.put("max_us", sorted[sorted.length - 1] / 1e3);
        v.put("mean_us", Arrays.stream(sorted).average().orElse(0) / 1e3);
        return v;
    }

    /**
     * The median, over the blocks of {@code block} samples that were taken in turn, of each block's
     * p50 of {@code a} ÷ the same block's p50 of {@code b}. Unlike the ratio of the two overall p50s
     * it compares only samples taken moments apart: on a machine whose round trip changes with where
     * the scheduler put the threads (distlock-compare's README, "Two machine modes"), a run that mixes
     * slow and fast stretches has overall p50s that may fall in different stretches for the two.
     */
    static double medianBlockRatio(long[] a, long[] b, int block) {
        int blocks = Math.min(a.length, b.length) / block;
        if (blocks == 0) {
            return Double.NaN;
        }
        double[] ratios = new double[blocks];
        for (int i = 0; i < blocks; i++) {
            int from = i * block;
            ratios[i] = blockP50(a, from, from + block) / blockP50(b, from, from + block);
        }
        Arrays.sort(ratios);
        return blocks % 2 == 1 ? ratios[blocks / 2] : (ratios[blocks / 2 - 1] + ratios[blocks / 2]) / 2;
    }

    /** The p50 of samples {@code from} to {@code to}, as {@link #latencies} computes it. */
    private static double blockP50(long[] values, int from, int to) {
        long[] part = Arrays.copyOfRange(values, from, to);
        Arrays.sort(part);
        return pct(part, 0.50);
    }

    private static double pct(long[] sorted, double q) {
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))] / 1e3;
    }

    private static List<Double> samples(long[] nanos) {
        int step = Math.max(1, nanos.length / 500);
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < nanos.length; i += step) {
            out.add(nanos[i] / 1e3);
        }
        return out;
    }
}
