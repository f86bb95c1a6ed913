package io.distlock.compare;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * K clients (separate connections and providers) on one lock for a fixed time: throughput,
 * fairness (each client's share of the acquisitions against an equal share), the wait of each
 * acquisition (from the call to the lock in hand, p50 and p99), and a lost-update check on a
 * deliberately non-atomic counter that only mutual exclusion keeps right.
 */
final class ContendedScenario {
    /**
     * Longest contended warm-up per target: the same clients contend for this long (at most a
     * quarter of the measured window) before the measured window starts, so that the waiting path
     * is measured JIT-compiled for every target, not only for those measured after others that
     * share its client library.
     */
    private static final long CONTENDED_WARMUP_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ComparisonSettings settings;

    ContendedScenario(ComparisonSettings settings) {
        this.settings = settings;
    }

    Measurement measure(ComparisonTarget target) throws InterruptedException {
        return measure(target, settings.contendedClients(), settings.contendedDuration());
    }

    /**
     * {@code k} clients for {@code duration} (after the warm-up), with the connections they opened to
     * the server and the threads of this JVM while they contend.
     */
    Measurement measure(ComparisonTarget target, int k, Duration duration) throws InterruptedException {
        String name = ScenarioSupport.lockName("contended");
        Footprint before = Footprint.now(target);
        List<LockClient> clients = ScenarioSupport.open(target, k);
        try {
            long warmNanos =
                    settings.warmup() == 0 ? 0 : Math.min(CONTENDED_WARMUP_LIMIT_NANOS, duration.toNanos() / 4);
            // the warm-up's throughput is not recorded, its lost updates are (an overlap is one)
            long warmLost = warmNanos > 0 ? contend(clients, name, warmNanos).lost() : 0;
            Footprint during = Footprint.now(target);
            return contend(clients, name, duration.toNanos())
                    .measurement(target.name(), k, warmLost)
                    .with(during.minus(before));
        } finally {
            ScenarioSupport.closeAll(clients);
        }
    }

    /** Plain, unsynchronised state for the lost-update check. */
    private static final class Counter {
        long value;
    }

    /** Wait samples kept per client (the latest, when a client acquires more often). */
    private static final int WAIT_SAMPLES_PER_CLIENT = 4096;

    /** What one contended window produced. */
    private record Round(long[] perClient, long counted, long elapsedNanos, long[][] waits) {
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
            long[] all = waitSamples();
            if (all.length > 0) {
                v.put("p50_wait_us", Latencies.p50(all));
                v.put("p99_wait_us", Latencies.of(all).get("p99_us"));
            }
            return new Measurement(target, Scenario.CONTENDED, v, null, null);
        }

        /** Every client's kept wait samples, in one array. */
        private long[] waitSamples() {
            int n = 0;
            for (int i = 0; i < waits.length; i++) {
                n += (int) Math.min(perClient[i], WAIT_SAMPLES_PER_CLIENT);
            }
            long[] all = new long[n];
            int at = 0;
            for (int i = 0; i < waits.length; i++) {
                int kept = (int) Math.min(perClient[i], WAIT_SAMPLES_PER_CLIENT);
                System.arraycopy(waits[i], 0, all, at, kept);
                at += kept;
            }
            return all;
        }
    }

    /** Every client acquires and releases {@code name} in a loop for {@code durationNanos}. */
    private static Round contend(List<LockClient> clients, String name, long durationNanos)
            throws InterruptedException {
        int k = clients.size();
        Counter counter = new Counter();
        long[] perClient = new long[k];
        long[][] waits = new long[k][WAIT_SAMPLES_PER_CLIENT];
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
                                long asked = System.nanoTime();
                                Optional<LockClient.Hold> h =
                                        c.acquire(name, Duration.ofNanos(Math.max(1, end - asked)));
                                if (h.isEmpty()) {
                                    continue;
                                }
                                waits[idx][(int) (perClient[idx] % WAIT_SAMPLES_PER_CLIENT)] =
                                        System.nanoTime() - asked;
                                try {
                                    // deliberately not atomic: a lost update shows an overlap
                                    long read = counter.value;
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
        ScenarioSupport.joinAll(threads, Duration.ofNanos(durationNanos).plusSeconds(60));
        long elapsed = System.nanoTime() - window[0];
        if (error.get() != null) {
            throw new IllegalStateException("contended client failed: " + error.get(), error.get());
        }
        return new Round(perClient, counter.value, elapsed, waits);
    }
}
