package io.distlock.bench.redis;

import io.distlock.LockOptions;
import io.distlock.bench.BenchJson;
import io.distlock.bench.RenewalWindow;
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
import redis.clients.jedis.Jedis;

/**
 * Renewal traffic of one lock-redis provider against the number of locks it holds: for each count
 * (default 1, 100 and 10,000) it acquires that many locks on a local redis-server it starts, lets
 * them come into step (three renewal intervals), then counts for a window: the renewal round trips
 * (pipelines the batched renewal sent, one per renewal tick), the script calls the server ran
 * ({@code INFO commandstats}: {@code RENEW_PACKED}, up to 1,000 locks each) and the lock renewals
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
        RenewalWindow.Settings settings = RenewalWindow.Settings.parse(args, "target/redis-renewal-bench.json");
        Path out = settings.out();
        Duration lease = settings.lease();
        Duration window = settings.window();
        List<Integer> counts = settings.counts();
        Map<String, Object> result = new LinkedHashMap<>();
        settings.describe(result);
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
                    row.put("round_trips_vs_one_lock", RenewalWindow.round(roundTrips / oneRoundTrips));
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
        RenewalWindow run = new RenewalWindow();
        try (RedisLockProvider p = RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .options(RedisLockOptions.defaults())
                .lockOptions(LockOptions.builder()
                        .leaseTime(lease)
                        .observer(run.observer())
                        .build())
                .build()) {
            RedisInternals internals = p.unwrap(RedisInternals.class).orElseThrow();
            return run.measure(
                    p,
                    internals::renewalPipelines,
                    () -> RenewalWindow.scriptCalls(admin.info("commandstats")),
                    n,
                    lease,
                    window);
        }
    }
}
