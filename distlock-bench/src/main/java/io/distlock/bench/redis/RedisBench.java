package io.distlock.bench.redis;

import io.distlock.Lease;
import io.distlock.bench.BenchJson;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.RedisLockProvider;
import io.distlock.redis.internal.RedisInternals;
import io.distlock.testing.servers.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * lock-redis on one local redis-server it starts (about 20 seconds): the raw {@code PING} round trip,
 * uncontended acquire+release latency with the server's commands per operation ({@code INFO
 * commandstats}), hand-off latency (release by A → acquisition by waiting B), 1,000 distinct lock
 * names, contended throughput with 4 and 8 clients on one lock, and 100 threads waiting on one lock
 * (connections used, time to serve them all). Writes the results as JSON.
 *
 * <p>Arguments: {@code [output file (default target/redis-bench.json)]}, e.g. {@code ./distlock bench
 * RedisBench /tmp/redis-bench.json}.
 */
public final class RedisBench {
    private static final Pattern CMDSTAT = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)");

    private RedisBench() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/redis-bench.json");
        Map<String, Object> result = new LinkedHashMap<>();
        try (RedisServer server = RedisServer.start();
                Jedis admin = new Jedis(server.host(), server.port())) {
            result.put(
                    "redis",
                    admin.info("server")
                            .lines()
                            .filter(l -> l.startsWith("redis_version:"))
                            .findFirst()
                            .orElse("?")
                            .substring("redis_version:".length()));
            result.put("cpus", Runtime.getRuntime().availableProcessors());

            // 1. raw PING round trip on a pooled Jedis client
            double[] ping;
            try (RedisClient raw = RedisClient.create(server.host(), server.port())) {
                for (int i = 0; i < 5_000; i++) {
                    raw.ping();
                }
                ping = new double[20_000];
                for (int i = 0; i < ping.length; i++) {
                    long t = System.nanoTime();
                    raw.ping();
                    ping[i] = (System.nanoTime() - t) / 1_000.0;
                }
            }
            Map<String, Object> pingStats = stats(ping);
            double pingP50 = (double) pingStats.get("p50_us");
            result.put("ping", pingStats);

            try (RedisLockProvider a = provider(server);
                    RedisLockProvider b = provider(server)) {
                // 2. uncontended acquire + release, with server-side command counts
                for (int i = 0; i < 3_000; i++) {
                    a.lock("bench/u").tryAcquire().orElseThrow().release();
                }
                int n = 10_000;
                double[] lat = new double[n];
                Map<String, Long> before = commandStats(admin);
                for (int i = 0; i < n; i++) {
                    long t = System.nanoTime();
                    a.lock("bench/u").tryAcquire().orElseThrow().release();
                    lat[i] = (System.nanoTime() - t) / 1_000.0;
                }
                Map<String, Long> delta = delta(before, commandStats(admin));
                Map<String, Object> u = stats(lat);
                u.put("p50_in_two_pings", round((double) u.get("p50_us") / (2 * pingP50)));
                Map<String, Object> perOp = new LinkedHashMap<>();
                long total = 0;
                for (Map.Entry<String, Long> e : delta.entrySet()) {
                    perOp.put(e.getKey(), round((double) e.getValue() / n));
                    total += e.getValue();
                }
                u.put("server_commands_per_acquire_release", perOp);
                u.put("server_commands_total_per_acquire_release", round((double) total / n));
                result.put("uncontended_acquire_release", u);

                // 3. hand-off latency: release by A -> acquisition by waiting B
                result.put("handoff", handoff(a, b, pingP50));

                // 4. 1,000 distinct lock names
                long t0 = System.nanoTime();
                for (int i = 0; i < 1_000; i++) {
                    a.lock("bench/names-" + i).tryAcquire().orElseThrow().release();
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                result.put("distinct_names_1000", Map.of("acquire_release_per_s", round(1_000 / secs)));
            }

            // 5. contended throughput: 4 and 8 clients, one thread each, one lock, 2 s each
            result.put("contended_4_clients", contended(server, 4));
            result.put("contended_8_clients", contended(server, 8));

            // 6. 100 threads waiting on one lock
            result.put("waiters_100", hundredWaiters(server, admin, pingP50));
        }
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, BenchJson.toJson(result) + "\n");
        System.out.println(BenchJson.toJson(result));
    }

    /** Lock channels the provider's subscriber listens to (internal, through {@code unwrap}). */
    private static int subscribedChannels(RedisLockProvider p) {
        return p.unwrap(RedisInternals.class).orElseThrow().subscribedChannels();
    }

    private static RedisLockProvider provider(RedisServer server) {
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .options(RedisLockOptions.builder().poolSize(8).build())
                .leaseTime(Duration.ofSeconds(10))
                .build();
    }

    private static Map<String, Object> handoff(RedisLockProvider a, RedisLockProvider b, double pingP50)
            throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        int rounds = 300;
        double[] lat = new double[rounds];
        try {
            for (int i = 0; i < rounds + 50; i++) {
                Lease held = a.lock("bench/h").tryAcquire().orElseThrow();
                CountDownLatch started = new CountDownLatch(1);
                Future<Long> waiter = pool.submit(() -> {
                    started.countDown();
                    Lease l =
                            b.lock("bench/h").tryAcquire(Duration.ofSeconds(10)).orElseThrow();
                    long at = System.nanoTime();
                    l.release();
                    return at;
                });
                started.await();
                while (subscribedChannels(b) == 0) {
                    Thread.onSpinWait();
                }
                Thread.sleep(1); // let the waiter reach its wait (measurement only)
                long releasedAt = System.nanoTime();
                held.release();
                long acquiredAt = waiter.get(10, TimeUnit.SECONDS);
                if (i >= 50) {
                    lat[i - 50] = (acquiredAt - releasedAt) / 1_000.0;
                }
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, Object> s = stats(lat);
        s.put("p50_in_pings", round((double) s.get("p50_us") / pingP50));
        return s;
    }

    private static Map<String, Object> contended(RedisServer server, int clients) throws Exception {
        List<RedisLockProvider> ps = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            ps.add(provider(server));
        }
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong[] counts = new AtomicLong[clients];
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                RedisLockProvider p = ps.get(i);
                AtomicLong c = counts[i] = new AtomicLong();
                fs.add(pool.submit(() -> {
                    while (!stop.get()) {
                        Optional<Lease> l = p.lock("bench/c").tryAcquire(Duration.ofSeconds(5));
                        l.ifPresent(lease -> {
                            c.incrementAndGet();
                            lease.release();
                        });
                    }
                    return null;
                }));
            }
            Thread.sleep(2_000); // fixed measurement window
            stop.set(true);
            for (Future<?> f : fs) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            ps.forEach(RedisLockProvider::close);
        }
        long total = Arrays.stream(counts).mapToLong(AtomicLong::get).sum();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("acquisitions_per_s", round(total / 2.0));
        r.put(
                "per_client_share",
                Arrays.stream(counts).map(c -> round((double) c.get() / total)).toList());
        return r;
    }

    private static Map<String, Object> hundredWaiters(RedisServer server, Jedis admin, double pingP50)
            throws Exception {
        try (RedisLockProvider holder = provider(server);
                RedisLockProvider waiters = provider(server)) {
            Lease held = holder.lock("bench/w").tryAcquire().orElseThrow();
            ExecutorService pool = Executors.newFixedThreadPool(100);
            CountDownLatch done = new CountDownLatch(100);
            try {
                for (int i = 0; i < 100; i++) {
                    pool.submit(() -> {
                        try (Lease l = waiters.lock("bench/w").acquire()) {
                            done.countDown();
                        }
                        return null;
                    });
                }
                while (subscribedChannels(waiters) == 0) {
                    Thread.onSpinWait();
                }
                Thread.sleep(200); // let every waiter reach its wait (measurement only)
                int connections = distlockConnections(admin);
                long t0 = System.nanoTime();
                held.release();
                if (!done.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("waiters did not finish");
                }
                double total = (System.nanoTime() - t0) / 1_000.0;
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("server_connections_both_providers_while_waiting", connections);
                r.put("pool_size_per_provider", 8);
                r.put("all_100_served_us", round(total));
                r.put("mean_handoff_in_pings", round(total / 100 / pingP50));
                return r;
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private static int distlockConnections(Jedis admin) {
        return (int) admin.clientList()
                .lines()
                .filter(l -> l.contains(" name=distlock "))
                .count();
    }

    private static Map<String, Long> commandStats(Jedis admin) {
        Map<String, Long> m = new LinkedHashMap<>();
        Matcher x = CMDSTAT.matcher(admin.info("commandstats"));
        while (x.find()) {
            m.put(x.group(1), Long.parseLong(x.group(2)));
        }
        return m;
    }

    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new LinkedHashMap<>();
        after.forEach((k, v) -> {
            long diff = v - before.getOrDefault(k, 0L);
            if (diff > 0 && !k.equals("info")) {
                d.put(k, diff);
            }
        });
        return d;
    }

    private static Map<String, Object> stats(double[] us) {
        double[] s = us.clone();
        Arrays.sort(s);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", s.length);
        m.put("p50_us", round(s[s.length / 2]));
        m.put("p99_us", round(s[(int) (s.length * 0.99)]));
        m.put("mean_us", round(Arrays.stream(s).average().orElse(0)));
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
