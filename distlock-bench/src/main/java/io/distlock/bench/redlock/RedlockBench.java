package io.distlock.bench.redlock;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.redis.RedisLockProvider;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.redlock.RedlockLockProvider;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;

/**
 * lock-redlock on five local redis-server masters it starts (loopback, no persistence; well under a
 * minute): the parallel {@code PING} floor, uncontended acquire+release latency of Redlock with and
 * without fencing, of single-node lock-redis on node 0 and of Redisson's {@code RedissonRedLock}, with
 * the servers' commands per operation (sum of {@code INFO commandstats} over the nodes), and
 * contended throughput with 4 clients. Writes the results as JSON.
 *
 * <p>Arguments: {@code [output file (default target/redlock-bench.json)]}, e.g. {@code ./distlock
 * bench RedlockBench /tmp/redlock-bench.json}.
 */
public final class RedlockBench {
    private static final Pattern CMDSTAT = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)");
    private static final int N = 5;

    private RedlockBench() {}

    /** One uncontended acquire + release. */
    private interface Op {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/redlock-bench.json");
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("cpus", Runtime.getRuntime().availableProcessors());
        result.put("nodes", N);
        try (RedisServers nodes = RedisServers.independentMasters(N)) {
            List<String> addrs = List.of(nodes.addresses().split(","));
            double pingP50 = parallelPing(nodes, result);
            // 200 ms node timeout: a timeout does not change the latency of rounds that are answered,
            // and this shared test machine has pauses longer than the 50 ms default
            RedlockLockOptions fenced = RedlockLockOptions.builder()
                    .nodeTimeout(java.time.Duration.ofMillis(200))
                    .build();
            RedlockLockOptions unfenced = fenced.mutate().fencing(false).build();
            result.put("redlock_node_timeout_ms", 200);
            try (RedlockLockProvider a = redlock(addrs, fenced);
                    RedlockLockProvider b = redlock(addrs, unfenced);
                    RedisLockProvider single = RedisLockProvider.builder()
                            .standalone(nodes.get(0).host(), nodes.get(0).port())
                            .build()) {
                result.put(
                        "redlock_fencing_uncontended",
                        uncontended(nodes, () -> release(a.lock("bench-f").tryAcquire()), 3_000, pingP50, 2));
                result.put(
                        "redlock_nofencing_uncontended",
                        uncontended(nodes, () -> release(b.lock("bench-n").tryAcquire()), 3_000, pingP50, 2));
                result.put(
                        "lock_redis_single_node_uncontended",
                        uncontended(nodes, () -> release(single.lock("bench-s").tryAcquire()), 3_000, pingP50, 0));
            }
            List<RedissonClient> redisson = new ArrayList<>();
            try {
                for (RedisServer s : nodes.servers()) {
                    Config c = new Config();
                    c.useSingleServer().setAddress("redis://" + s.address());
                    redisson.add(Redisson.create(c));
                }
                RLock[] locks = redisson.stream().map(r -> r.getLock("bench-r")).toArray(RLock[]::new);
                @SuppressWarnings("deprecation")
                RedissonRedLock redLock = new RedissonRedLock(locks);
                result.put(
                        "redisson_redlock_uncontended",
                        uncontended(
                                nodes,
                                () -> {
                                    if (!redLock.tryLock(0, 30, TimeUnit.SECONDS)) {
                                        throw new IllegalStateException("RedissonRedLock not acquired");
                                    }
                                    redLock.unlock();
                                },
                                1_000,
                                pingP50,
                                0));
                result.put("redisson_redlock_contended_4_clients", contendedRedisson(redisson));
            } finally {
                redisson.forEach(RedissonClient::shutdown);
            }
            result.put("redlock_fencing_contended_4_clients", contended(() -> redlock(addrs, fenced)));
            result.put(
                    "lock_redis_single_node_contended_4_clients",
                    contended(() -> RedisLockProvider.builder()
                            .standalone(nodes.get(0).host(), nodes.get(0).port())
                            .build()));
        }
        ratios(result);
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, toJson(result, "") + "\n");
        System.out.println(toJson(result, ""));
    }

    private static RedlockLockProvider redlock(List<String> addrs, RedlockLockOptions options) {
        return RedlockLockProvider.builder().nodes(addrs).options(options).build();
    }

    private static void release(java.util.Optional<Lease> lease) {
        lease.orElseThrow(() -> new IllegalStateException("not acquired")).release();
    }

    /** One PING to all five nodes in parallel, waiting for all: the floor of one parallel round. */
    private static double parallelPing(RedisServers nodes, Map<String, Object> result) throws Exception {
        List<RedisClient> clients = new ArrayList<>();
        ExecutorService io = Executors.newFixedThreadPool(N);
        try {
            for (RedisServer s : nodes.servers()) {
                clients.add(RedisClient.create(s.host(), s.port()));
            }
            double[] us = new double[5_000];
            for (int i = -2_000; i < us.length; i++) {
                long t = System.nanoTime();
                List<Future<?>> fs = new ArrayList<>();
                for (RedisClient c : clients) {
                    fs.add(io.submit(c::ping));
                }
                for (Future<?> f : fs) {
                    f.get();
                }
                if (i >= 0) {
                    us[i] = (System.nanoTime() - t) / 1_000.0;
                }
            }
            Map<String, Object> s = stats(us);
            result.put("parallel_ping_5_nodes", s);
            return (double) s.get("p50_us");
        } finally {
            io.shutdownNow();
            clients.forEach(RedisClient::close);
        }
    }

    private static Map<String, Object> uncontended(RedisServers nodes, Op op, int n, double pingP50, int rounds)
            throws Exception {
        for (int i = 0; i < Math.min(1_000, n); i++) {
            try {
                op.run();
            } catch (RuntimeException e) {
                // warm-up: a cold connection may time out
            }
        }
        Map<String, Long> before = commandStats(nodes);
        double[] us = new double[n];
        int failures = 0;
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            try {
                op.run();
            } catch (RuntimeException e) {
                failures++;
            }
            us[i] = (System.nanoTime() - t) / 1_000.0;
        }
        Map<String, Long> delta = delta(before, commandStats(nodes));
        Map<String, Object> s = stats(us);
        s.put("failures", failures);
        if (rounds > 0) {
            s.put("parallel_rounds", rounds);
            s.put("p50_over_round_trip_floor", round((double) s.get("p50_us") / (rounds * pingP50)));
        }
        Map<String, Object> perOp = new LinkedHashMap<>();
        long total = 0;
        for (Map.Entry<String, Long> e : delta.entrySet()) {
            perOp.put(e.getKey(), round((double) e.getValue() / n));
            total += e.getValue();
        }
        s.put("server_commands_per_op_all_nodes", perOp);
        s.put("server_commands_total_per_op_all_nodes", round((double) total / n));
        return s;
    }

    private interface Opener {
        LockProvider open();
    }

    /** Four clients, one thread each, one lock, 3 s. */
    private static Map<String, Object> contended(Opener opener) throws Exception {
        List<LockProvider> clients = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ops = new AtomicLong();
        try {
            for (int i = 0; i < 4; i++) {
                clients.add(opener.open());
            }
            List<Future<?>> fs = new ArrayList<>();
            for (LockProvider p : clients) {
                fs.add(pool.submit(() -> {
                    while (!stop.get()) {
                        p.lock("bench-c")
                                .tryAcquire(java.time.Duration.ofSeconds(5))
                                .ifPresent(l -> {
                                    l.release();
                                    ops.incrementAndGet();
                                });
                    }
                    return null;
                }));
            }
            long t0 = System.nanoTime();
            CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(3, TimeUnit.SECONDS))
                    .join();
            stop.set(true);
            for (Future<?> f : fs) {
                f.get(30, TimeUnit.SECONDS);
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            return Map.of("acquire_release_per_s", round(ops.get() / secs));
        } finally {
            stop.set(true);
            pool.shutdownNow();
            clients.forEach(LockProvider::close);
        }
    }

    @SuppressWarnings("deprecation")
    private static Map<String, Object> contendedRedisson(List<RedissonClient> redisson) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ops = new AtomicLong();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                fs.add(pool.submit(() -> {
                    RLock[] locks =
                            redisson.stream().map(r -> r.getLock("bench-rc")).toArray(RLock[]::new);
                    RedissonRedLock redLock = new RedissonRedLock(locks);
                    while (!stop.get()) {
                        if (redLock.tryLock(5, 30, TimeUnit.SECONDS)) {
                            redLock.unlock();
                            ops.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            long t0 = System.nanoTime();
            CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(3, TimeUnit.SECONDS))
                    .join();
            stop.set(true);
            for (Future<?> f : fs) {
                f.get(30, TimeUnit.SECONDS);
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            return Map.of("acquire_release_per_s", round(ops.get() / secs));
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    @SuppressWarnings("unchecked")
    private static void ratios(Map<String, Object> result) {
        Object r = result.get("redisson_redlock_uncontended");
        Object f = result.get("redlock_fencing_uncontended");
        if (r instanceof Map && f instanceof Map) {
            double redisson = (double) ((Map<String, Object>) r).get("p50_us");
            double ours = (double) ((Map<String, Object>) f).get("p50_us");
            result.put("redlock_fencing_p50_over_redisson_redlock_p50", round(ours / redisson));
        }
    }

    /** Calls per command, summed over the nodes, from {@code INFO commandstats}. */
    static Map<String, Long> commandStats(RedisServers nodes) {
        Map<String, Long> total = new LinkedHashMap<>();
        for (RedisServer s : nodes.servers()) {
            try (Jedis j = new Jedis(s.host(), s.port())) {
                Matcher m = CMDSTAT.matcher(j.info("commandstats"));
                while (m.find()) {
                    total.merge(m.group(1), Long.parseLong(m.group(2)), Long::sum);
                }
            }
        }
        return total;
    }

    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long v = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            // the harness's own INFO calls are not the lock's
            if (v > 0 && !e.getKey().equals("info")) {
                d.put(e.getKey(), v);
            }
        }
        return d;
    }

    private static Map<String, Object> stats(double[] us) {
        double[] s = us.clone();
        Arrays.sort(s);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", s.length);
        m.put("p50_us", round(s[s.length / 2]));
        m.put("p90_us", round(s[(int) (s.length * 0.9)]));
        m.put("p99_us", round(s[(int) (s.length * 0.99)]));
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static String toJson(Object o, String indent) {
        if (o instanceof Map<?, ?> map) {
            StringBuilder sb = new StringBuilder("{\n");
            int i = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                sb.append(indent).append("  \"").append(e.getKey()).append("\": ");
                sb.append(toJson(e.getValue(), indent + "  "));
                sb.append(++i < map.size() ? ",\n" : "\n");
            }
            return sb.append(indent).append('}').toString();
        }
        if (o instanceof Number n) {
            return String.format(Locale.ROOT, "%s", n);
        }
        return "\"" + o + "\"";
    }
}
