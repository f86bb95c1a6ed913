package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Hand-off latency: the time from a holder's release to a <em>waiting</em> client's acquisition,
 * with one or many waiters. Holders keep the lock {@link ComparisonSettings#holdBeforeRelease()} so
 * that the others are really waiting, and after releasing wait until someone else took it before
 * contending again (no barging). Next to the hand-offs, half before and half after, the target's
 * hand-off floor and its round trip after the same idle time are sampled.
 */
final class HandoffScenario {
    private final ComparisonSettings settings;

    HandoffScenario(ComparisonSettings settings) {
        this.settings = settings;
    }

    Measurement measure(ComparisonTarget target, Scenario scenario, int waiters) throws InterruptedException {
        return measure(target, scenario, waiters, waiters + 1);
    }

    /**
     * Hand-offs among {@code waiters} + 1 threads spread over at most {@code maxClients} clients (one
     * client each while there are enough), with the connections the clients opened to the server and
     * the threads of this JVM, read once every thread has had the lock.
     */
    Measurement measure(ComparisonTarget target, Scenario scenario, int waiters, int maxClients)
            throws InterruptedException {
        String name = ScenarioSupport.lockName("handoff" + waiters);
        int n = waiters + 1;
        Footprint before = Footprint.now(target);
        List<LockClient> clients = ScenarioSupport.open(target, Math.min(n, maxClients));
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
            CountDownLatch allHad = new CountDownLatch(n);
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
                LockClient c = clients.get(i % clients.size());
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
                                    allHad.countDown();
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
            // read once n acquisitions happened (every thread queued, most had the lock), or at the cap
            allHad.await(Math.max(0, endBy - System.nanoTime()), TimeUnit.NANOSECONDS);
            Footprint during = Footprint.now(target);
            ScenarioSupport.joinAll(threads, settings.handoffMaxDuration().plusSeconds(60));
            stop.set(true);
            if (error.get() != null) {
                throw new IllegalStateException("hand-off client failed: " + error.get(), error.get());
            }
            handoffFloor(target, floorNanos, floorIdleNanos, rounds / 2, rounds, holdNanos, false);
            roundTripsAfterIdle(target, roundTripIdleNanos, rounds / 2, rounds, holdNanos);
            long[] got = Arrays.copyOf(nanos, Math.min(rounds, measured.get()));
            Map<String, Double> v = Latencies.of(got);
            v.put("waiters", (double) waiters);
            v.put("clients", (double) clients.size());
            v.putAll(during.minus(before));
            if (floorNanos.length > 0) {
                v.put("handoff_floor_p50_us", Latencies.p50(floorNanos));
                v.put("handoff_floor_idle_p50_us", Latencies.p50(floorIdleNanos));
            }
            if (roundTripIdleNanos.length > 0) {
                v.put("floor_after_idle_p50_us", Latencies.p50(roundTripIdleNanos));
            }
            return new Measurement(target.name(), scenario, v, Latencies.samples(got), null);
        } finally {
            ScenarioSupport.closeAll(clients);
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
     * #measure}).
     */
    private static final int HANDOFF_WARMUP = 20;

    /** Untimed hand-off floor samples before the first timed one of a scenario. */
    private static final int HANDOFF_FLOOR_WARMUP = 20;
}
