package io.distlock.bench.redis;

import io.distlock.Lease;
import io.distlock.LockObserver;
import io.distlock.LockOptions;
import io.distlock.bench.BenchJson;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.RedisLockProvider;
import io.distlock.redis.internal.RedisInternals;
import io.distlock.testing.servers.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.Jedis;

/**
 * Renewal traffic of one lock-redis provider against the number of locks it holds: for each count
 * (default 1, 100 and 10,000) it acquires that many locks on a local redis-server it starts, lets
 * them come into step (three renewal intervals), then counts for a window: the renewal round trips
 * (pipelines the batched renewal sent, one per renewal tick), the script calls the server ran
 * ({@code INFO commandstats}: {@code RENEW_MANY} over up to 1,000 keys each) and the lock renewals
 * (the observer's {@code renewed} calls), each per second, and the round trips' ratio to the figure
 * with one lock. Nothing else runs on the provider during the window. Writes the results as JSON.
 *
 * <p>Arguments: {@code [output file (default target/redis-renewal-bench.json)] [lease ms (default
 * 3000: renewed every second)] [window s (default 15)] [counts, comma-separated (default
 * 1,100,10000)]}, e.g. {@code ./distlock bench RedisRenewalBench /tmp/renewal.json 3000 15
 * 1,100,10000}.
 */
public final class RedisRenewalBench {
    private RedisRenewalBench() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/redis-renewal-bench.json");
        Duration lease = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 3_000);
        Duration window = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 15);
        List<Integer> counts = new ArrayList<>();
        for (String c : (args.length > 3 ? args[3] : "1,100,10000").split(",")) {
            counts.add(Integer.parseInt(c.trim()));
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("lease_ms", lease.toMillis());
        result.put("renewal_interval_ms", lease.toMillis() / 3);
        result.put("window_s", window.toSeconds());
        result.put("cpus", Runtime.getRuntime().availableProcessors());
        List<Object> rows = new ArrayList<>();
        double oneRoundTrips = Double.NaN;
        try (RedisServer server = RedisServer.start();
                Jedis admin = new Jedis(server.host(), server.port())) {
            for (int n : counts) {
                Map<String, Object> row = measure(server, admin, n, lease, window);
                double roundTrips = (double) row.get("round_trips_per_s");
                if (n == 1) {
                    oneRoundTrips = roundTrips;
                }
                if (!Double.isNaN(oneRoundTrips)) {
                    row.put("round_trips_vs_one_lock", round(roundTrips / oneRoundTrips));
                }
                rows.add(row);
                System.out.println(BenchJson.toJson(row));
            }
        }
        result.put("runs", rows);
        Files.writeString(out, BenchJson.toJson(result) + "\n");
        System.out.println(BenchJson.toJson(result));
    }

    private static Map<String, Object> measure(RedisServer server, Jedis admin, int n, Duration lease, Duration window)
            throws InterruptedException {
        AtomicLong renewed = new AtomicLong();
        LockObserver observer = new LockObserver() {
            @Override
            public void renewed(String backend, String lockName) {
                renewed.incrementAndGet();
            }
        };
        try (RedisLockProvider p = RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .options(RedisLockOptions.defaults())
                .lockOptions(LockOptions.builder()
                        .leaseTime(lease)
                        .observer(observer)
                        .build())
                .build()) {
            RedisInternals internals = p.unwrap(RedisInternals.class).orElseThrow();
            long acquireStart = System.nanoTime();
            List<Lease> leases = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                leases.add(p.lock("renewal-bench-" + n + "-" + i).tryAcquire().orElseThrow());
            }
            long acquireNanos = System.nanoTime() - acquireStart;
            Thread.sleep(lease.toMillis()); // three renewal intervals: the leases come into step
            long pipelines = internals.renewalPipelines();
            long scripts = scriptCalls(admin);
            long renewals = renewed.get();
            long t0 = System.nanoTime();
            Thread.sleep(window.toMillis());
            double seconds = (System.nanoTime() - t0) / 1e9;
            long lost = leases.stream().filter(l -> !l.isValid()).count();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("locks", n);
            row.put("acquire_all_ms", round(TimeUnit.NANOSECONDS.toMicros(acquireNanos) / 1e3));
            row.put("round_trips_per_s", round((internals.renewalPipelines() - pipelines) / seconds));
            row.put("script_calls_per_s", round((scriptCalls(admin) - scripts) / seconds));
            row.put("lock_renewals_per_s", round((renewed.get() - renewals) / seconds));
            row.put("leases_lost", lost);
            leases.forEach(Lease::release);
            return row;
        }
    }

    private static long scriptCalls(Jedis admin) {
        long calls = 0;
        for (String line : admin.info("commandstats").split("\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += Long.parseLong(line.substring(line.indexOf(":calls=") + 7, line.indexOf(',')));
            }
        }
        return calls;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
