package io.distlock.bench.redis;

import io.distlock.Lease;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.RedisLockProvider;
import io.distlock.redis.core.Scripts;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;

/**
 * How much <em>server</em> time each request of distlock's
 * uncontended acquire+release and of a hand-off costs, against a {@code PING}, from the server's own
 * statistics. The server logs every command's execution time ({@code slowlog-log-slower-than 0};
 * the time of the command itself, including the {@code redis.call}s of a script, without reading
 * the request or writing the reply); {@code EVALSHA}s are told apart by the script's SHA. Also
 * prints {@code INFO commandstats} ({@code usec_per_call}) of each phase, which on Redis 7 lists the
 * commands called inside the scripts too.
 *
 * <p>Phases, each after {@code SLOWLOG RESET} and {@code CONFIG RESETSTAT}: {@code uncontended}
 * (blocks of 50 of distlock's default {@code tryAcquire()} + {@code release()}, of the same with
 * {@code handOff=false}, and of two {@code PING}s, alternating), {@code handoff} (one waiter, the
 * holder holding 2 ms as in distlock-compare's {@code handoff_1}) with a {@code PING} after each
 * acquisition (a cold one, as the scripts in that phase are).
 *
 * <p>Arguments: {@code [operations per variant (default 4000)] [hand-offs (default 1000)]}, e.g.
 * {@code ./distlock bench RedisScriptCostBench 4000 1000}.
 */
public final class RedisScriptCostBench {
    private static final int BLOCK = 50;

    private RedisScriptCostBench() {}

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 4_000;
        int handoffs = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        Map<String, String> scriptNames = Map.of(
                Scripts.ACQUIRE.sha(), "ACQUIRE",
                Scripts.ACQUIRE_QUEUED.sha(), "ACQUIRE_QUEUED",
                Scripts.RELEASE.sha(), "RELEASE",
                Scripts.RELEASE_QUEUED.sha(), "RELEASE_QUEUED",
                Scripts.RENEW.sha(), "RENEW");
        try (RedisServer server = RedisServer.start();
                Jedis admin = new Jedis(server.host(), server.port());
                Jedis ping = new Jedis(server.host(), server.port())) {
            admin.configSet("slowlog-max-len", "200000");
            RedisLockOptions opts = RedisLockOptions.defaults();
            try (RedisLockProvider ours = provider(server, opts);
                    RedisLockProvider noHandOff =
                            provider(server, opts.mutate().handOff(false).build())) {
                Map<String, Runnable> variants = new LinkedHashMap<>();
                variants.put(
                        "ours",
                        () -> ours.lock("cost-ours").tryAcquire().orElseThrow().release());
                variants.put(
                        "ours-nohandoff",
                        () -> noHandOff
                                .lock("cost-nho")
                                .tryAcquire()
                                .orElseThrow()
                                .release());
                variants.put("2ping", () -> {
                    ping.ping();
                    ping.ping();
                });
                for (int i = 0; i < 2_000; i++) {
                    variants.values().forEach(Runnable::run);
                }
                startPhase(admin);
                for (int from = 0; from < ops; from += BLOCK) {
                    for (Runnable v : variants.values()) {
                        for (int i = 0; i < BLOCK; i++) {
                            v.run();
                        }
                    }
                }
                report("uncontended", admin, scriptNames);
            }
            try (RedisLockProvider a = provider(server, opts);
                    RedisLockProvider b = provider(server, opts)) {
                handoffs(a, b, ping, 100); // warm-up
                startPhase(admin);
                handoffs(a, b, ping, handoffs);
                report("handoff", admin, scriptNames);
            }
        }
    }

    private static RedisLockProvider provider(RedisServer server, RedisLockOptions opts) {
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .options(opts)
                .leaseTime(Duration.ofSeconds(10))
                .build();
    }

    private static void startPhase(Jedis admin) {
        admin.configSet("slowlog-log-slower-than", "0");
        admin.slowlogReset();
        admin.configResetStat();
    }

    private static void report(String phase, Jedis admin, Map<String, String> scriptNames) {
        admin.configSet("slowlog-log-slower-than", "-1");
        String stats = admin.info("commandstats");
        List<Object> entries = admin.slowlogGetBinary(200_000);
        Map<String, List<Long>> byRequest = new TreeMap<>();
        for (Object e : entries) {
            List<?> entry = (List<?>) e;
            long micros = (Long) entry.get(2);
            List<?> argv = (List<?>) entry.get(3);
            String cmd = new String((byte[]) argv.get(0)).toUpperCase(Locale.ROOT);
            if (cmd.equals("EVALSHA")) {
                String sha = new String((byte[]) argv.get(1));
                cmd += " " + scriptNames.getOrDefault(sha, sha);
            }
            byRequest.computeIfAbsent(cmd, k -> new ArrayList<>()).add(micros);
        }
        System.out.println("== " + phase + ": server time per request (SLOWLOG, µs)");
        byRequest.forEach((k, v) -> {
            if (v.size() < 10) {
                return;
            }
            long[] a = v.stream().mapToLong(Long::longValue).sorted().toArray();
            double mean = v.stream().mapToLong(Long::longValue).average().orElse(0);
            System.out.printf(
                    Locale.ROOT,
                    "  %-24s n=%6d mean=%6.2f p50=%3d p90=%3d p99=%3d%n",
                    k,
                    a.length,
                    mean,
                    a[a.length / 2],
                    a[(int) (a.length * 0.9)],
                    a[(int) (a.length * 0.99)]);
        });
        System.out.println("== " + phase + ": INFO commandstats");
        for (String line : stats.split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.contains("slowlog") && !line.contains("config")) {
                System.out.println("  " + line);
            }
        }
    }

    /** Hand-offs between two providers (holder holds 2 ms), a cold PING after each acquisition. */
    private static void handoffs(RedisLockProvider a, RedisLockProvider b, Jedis ping, int n) throws Exception {
        RedisAbBench.NextHolder next = new RedisAbBench.NextHolder();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> error = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        Object pingLock = new Object();
        for (RedisLockProvider p : List.of(a, b)) {
            Thread t = new Thread(
                    () -> {
                        try {
                            while (!stop.get()) {
                                Optional<Lease> h = p.lock("cost-handoff").tryAcquire(Duration.ofSeconds(10));
                                if (h.isEmpty()) {
                                    continue;
                                }
                                int mine = next.acquired();
                                if (mine >= n) {
                                    stop.set(true);
                                }
                                synchronized (pingLock) {
                                    ping.ping();
                                }
                                LockSupport.parkNanos(2_000_000);
                                h.get().release();
                                next.awaitNext(mine, stop);
                            }
                        } catch (Throwable e) {
                            error.compareAndSet(null, e);
                            stop.set(true);
                        }
                    },
                    "cost-handoff-" + threads.size());
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(120_000);
        }
        if (error.get() != null) {
            throw new IllegalStateException(error.get());
        }
    }
}
