package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A point of the held-locks curve ({@link Scenario#RENEWAL} at a {@link Condition#point}): one
 * client acquires N distinct locks (from up to {@value #THREADS} threads, each releasing what it
 * acquired, as thread-bound locks require), holds them all for {@link ScalePoints#hold()},
 * and releases them. Reported: the server requests per second
 * while they are held (the first fifth of the hold not counted, as in the renewal scenario) and,
 * when the target has a delay line that counts them ({@link DelayLine#roundTrips}), the round trips
 * per second over the same time (its clients then connect through the line, with no delay added),
 * the heap the client's held locks take (after a full collection, against before the client opened),
 * the connections it has open to the server, and how long acquiring and releasing took.
 */
final class HeldLocksScenario {
    static final int THREADS = 8;
    /** The longest the acquisitions, and then the releases, of one point may take. */
    static final Duration PHASE_CAP = Duration.ofSeconds(120);

    private final ComparisonSettings settings;

    HeldLocksScenario(ComparisonSettings settings) {
        this.settings = settings;
    }

    Measurement measure(ComparisonTarget target, int locks) throws InterruptedException {
        String prefix = ScenarioSupport.lockName("held" + locks);
        long heapBefore = Footprint.heapAfterGc();
        Footprint before = Footprint.now(target);
        long start = System.nanoTime();
        Map<String, Double> v = new LinkedHashMap<>();
        v.put("locks", (double) locks);
        int threads = Math.min(THREADS, locks);
        CountDownLatch acquired = new CountDownLatch(threads);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Throwable> error = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>(threads);
        // through the target's delay line (no delay is set outside the delayed runs) when it counts round trips
        ComparisonTarget.Delayed line = target.delayed();
        ComparisonTarget via = line != null && line.line().roundTrips().isPresent() ? line.target() : target;
        try (LockClient client = via.clients().get()) {
            for (int w = 0; w < threads; w++) {
                int first = w;
                Thread t = new Thread(
                        () -> hold(client, prefix, first, threads, locks, acquired, release, error),
                        "distlock-compare-held-" + w);
                t.setDaemon(true);
                workers.add(t);
                t.start();
            }
            try {
                boolean all = acquired.await(PHASE_CAP.toNanos(), TimeUnit.NANOSECONDS);
                if (error.get() != null) {
                    throw new IllegalStateException(
                            "acquiring " + locks + " locks failed: " + error.get(), error.get());
                }
                if (!all) {
                    throw new IllegalStateException("acquiring " + locks + " locks took more than " + PHASE_CAP);
                }
                v.put("acquire_s", (System.nanoTime() - start) / 1e9);
                v.put("client_heap_mb", (Footprint.heapAfterGc() - heapBefore) / (1024.0 * 1024));
                v.putAll(Footprint.now(target).minus(before));
                v.putAll(whileHeld(target, via == target ? null : line.line()));
            } finally {
                release.countDown();
                long released = System.nanoTime();
                ScenarioSupport.joinAll(workers, PHASE_CAP);
                v.put("release_s", (System.nanoTime() - released) / 1e9);
            }
        }
        v.put("point_s", (System.nanoTime() - start) / 1e9);
        return new Measurement(
                target.name(),
                Scenario.RENEWAL,
                Condition.point(locks),
                v,
                null,
                target.requestsNow().isEmpty() ? "server request count not available" : null);
    }

    /**
     * Holds for the renewal hold; after its first fifth, the server's requests per second ({@code
     * requests_per_s}, if it counts them) and the round trips per second on {@code line} ({@code
     * round_trips_per_s}, if not null).
     */
    private Map<String, Double> whileHeld(ComparisonTarget target, DelayLine line) throws InterruptedException {
        long holdMillis = settings.scale().hold().toMillis();
        Thread.sleep(holdMillis / 5); // traffic the acquisitions still cause is not renewal
        OptionalLong before = target.requestsNow();
        OptionalLong tripsBefore = line == null ? OptionalLong.empty() : line.roundTrips();
        long t0 = System.nanoTime();
        Thread.sleep(holdMillis - holdMillis / 5); // holding is the scenario: traffic over time
        OptionalLong after = target.requestsNow();
        OptionalLong tripsAfter = line == null ? OptionalLong.empty() : line.roundTrips();
        double seconds = (System.nanoTime() - t0) / 1e9;
        Map<String, Double> v = new LinkedHashMap<>();
        if (before.isPresent() && after.isPresent()) {
            v.put("requests_per_s", Math.max(0, after.getAsLong() - before.getAsLong()) / seconds);
        }
        if (tripsBefore.isPresent() && tripsAfter.isPresent()) {
            v.put("round_trips_per_s", (tripsAfter.getAsLong() - tripsBefore.getAsLong()) / seconds);
        }
        return v;
    }

    /** How long a worker waits for one of its distinct locks. */
    private static final Duration DISTINCT_LOCK_WAIT = Duration.ofSeconds(1);

    /**
     * One worker: acquires locks {@code first}, {@code first + step}, … below {@code locks}, waits
     * for {@code release}, releases them (also after a failure, what it holds).
     */
    private static void hold(
            LockClient client,
            String prefix,
            int first,
            int step,
            int locks,
            CountDownLatch acquired,
            CountDownLatch release,
            AtomicReference<Throwable> error) {
        List<LockClient.Hold> holds = new ArrayList<>();
        try {
            for (int i = first; i < locks && error.get() == null; i += step) {
                // nobody else holds these names, but a peer's single try may still come back empty
                // (JdbcLockRegistry's tryLock() under concurrent inserts): wait a little
                holds.add(client.acquire(prefix + "-" + i, DISTINCT_LOCK_WAIT)
                        .orElseThrow(() -> new IllegalStateException(
                                "a distinct lock was not free within " + DISTINCT_LOCK_WAIT)));
            }
            acquired.countDown();
            release.await();
        } catch (Throwable t) {
            error.compareAndSet(null, t);
            acquired.countDown();
        } finally {
            for (LockClient.Hold h : holds) {
                try {
                    h.release();
                } catch (RuntimeException e) {
                    error.compareAndSet(null, e);
                }
            }
        }
    }
}
