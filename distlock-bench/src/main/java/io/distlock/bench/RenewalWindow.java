package io.distlock.bench;

import io.distlock.Lease;
import io.distlock.LockObserver;
import io.distlock.LockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * One run of a renewal benchmark ({@code RedisRenewalBench}, {@code RedlockRenewalBench}): acquires
 * {@code n} locks, lets them come into step (three renewal intervals), then counts the renewal round
 * trips, the servers' script calls and the lock renewals during a window, each per second.
 */
public final class RenewalWindow {

    /**
     * A renewal benchmark's arguments: {@code [output file] [lease ms (default 3000)] [window s
     * (default 15)] [counts, comma-separated (default 1,100,10000)]}.
     */
    public record Settings(Path out, Duration lease, Duration window, List<Integer> counts) {
        public static Settings parse(String[] args, String defaultOut) {
            List<Integer> counts = new ArrayList<>();
            for (String c : (args.length > 3 ? args[3] : "1,100,10000").split(",")) {
                counts.add(Integer.parseInt(c.trim()));
            }
            return new Settings(
                    Path.of(args.length > 0 ? args[0] : defaultOut),
                    Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 3_000),
                    Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 15),
                    List.copyOf(counts));
        }

        /** Puts the settings and the machine's CPU count into {@code result}. */
        public void describe(Map<String, Object> result) {
            result.put("lease_ms", lease.toMillis());
            result.put("renewal_interval_ms", lease.toMillis() / 3);
            result.put("window_s", window.toSeconds());
            result.put("cpus", Runtime.getRuntime().availableProcessors());
        }
    }

    /** Lock renewals the provider reported; pass {@link #observer()} to its lock options. */
    private final AtomicLong renewed = new AtomicLong();

    /** An observer that counts this window's lock renewals. */
    public LockObserver observer() {
        return new LockObserver() {
            @Override
            public void renewed(String backend, String lockName) {
                renewed.incrementAndGet();
            }
        };
    }

    /**
     * Acquires {@code n} locks on {@code p}, waits {@code lease}, counts for {@code window} and
     * releases them: a row with {@code locks}, {@code acquire_all_ms}, {@code round_trips_per_s}
     * (from {@code roundTrips}), {@code script_calls_per_s} (from {@code scriptCalls}), {@code
     * lock_renewals_per_s} and {@code leases_lost}.
     */
    public Map<String, Object> measure(
            LockProvider p, LongSupplier roundTrips, LongSupplier scriptCalls, int n, Duration lease, Duration window)
            throws InterruptedException {
        long acquireStart = System.nanoTime();
        List<Lease> leases = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            // with a wait: a renewal tick of thousands of locks may hold a node up for a while
            leases.add(p.lock("renewal-bench-" + n + "-" + i)
                    .tryAcquire(Duration.ofSeconds(5))
                    .orElseThrow());
        }
        long acquireNanos = System.nanoTime() - acquireStart;
        Thread.sleep(lease.toMillis()); // three renewal intervals: the leases come into step
        long trips = roundTrips.getAsLong();
        long scripts = scriptCalls.getAsLong();
        long renewals = renewed.get();
        long t0 = System.nanoTime();
        Thread.sleep(window.toMillis());
        double seconds = (System.nanoTime() - t0) / 1e9;
        long lost = leases.stream().filter(l -> !l.isValid()).count();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("locks", n);
        row.put("acquire_all_ms", round(TimeUnit.NANOSECONDS.toMicros(acquireNanos) / 1e3));
        row.put("round_trips_per_s", round((roundTrips.getAsLong() - trips) / seconds));
        row.put("script_calls_per_s", round((scriptCalls.getAsLong() - scripts) / seconds));
        row.put("lock_renewals_per_s", round((renewed.get() - renewals) / seconds));
        row.put("leases_lost", lost);
        leases.forEach(Lease::release);
        return row;
    }

    /** {@code EVALSHA} and {@code EVAL} calls in the text of a Redis {@code INFO commandstats}. */
    public static long scriptCalls(String commandstats) {
        long calls = 0;
        for (String line : commandstats.split("\\r?\\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                int from = line.indexOf("calls=") + "calls=".length();
                calls += Long.parseLong(line.substring(from, line.indexOf(',', from)));
            }
        }
        return calls;
    }

    /** {@code v} to two decimals. */
    public static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
