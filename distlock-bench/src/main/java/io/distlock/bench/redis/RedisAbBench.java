package io.distlock.bench.redis;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.RedisLockProvider;
import io.distlock.redis.core.JedisConfigs;
import io.distlock.redis.core.Owners;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.ScriptRunner;
import io.distlock.redis.core.Scripts;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * Interleaved A/B of lock-redis's uncontended acquire+release against its floors, on one local
 * redis-server it starts: in one JVM, blocks of 50 operations alternate between distlock's
 * acquire+release (with and without hand-off; {@code -Dab.norenew=true} adds one without the
 * watchdog), two {@code PING}s on a dedicated connection (distlock-compare's floor) and through the
 * pool, the two scripts distlock sends, raw ({@code EVALSHA}), through a pooled Jedis client like
 * ours and on a dedicated connection (both modes), and the least a lock can send ({@code SET NX PX}
 * and a compare-and-delete script: no fencing counter, no wake-up, no queue). Then the hand-off
 * (release by A → acquisition by waiting B) the way distlock-compare measures it, with and without
 * the hand-off queue, alternating, with {@code PING}s under the same load. Prints the p50 of every
 * variant per round and the medians over rounds (in µs and as a multiple of the floor).
 *
 * <p>Arguments: {@code [rounds (default 5)] [hand-offs per round (default 300; 0 skips them)]}, e.g.
 * {@code ./distlock bench RedisAbBench 5 300}. System properties go through {@code
 * JAVA_TOOL_OPTIONS}.
 */
public final class RedisAbBench {
    private static final int BLOCK = 50;

    private RedisAbBench() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int handoffs = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        try (RedisServer server = RedisServer.start();
                Jedis ping = new Jedis(server.host(), server.port());
                Jedis dedicated = new Jedis(server.host(), server.port())) {
            RedisLockOptions opts = RedisLockOptions.builder().handOff(true).build();
            LockOptions lease =
                    LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build();
            // a pool configured as lock-redis configures its own
            UnifiedJedis pooled = RedisClient.builder()
                    .hostAndPort(server.host(), server.port())
                    .clientConfig(JedisConfigs.dataNode(opts.connection(), null))
                    .poolConfig(JedisConfigs.pool(opts.poolSize() + 1, opts.connection()))
                    .build();
            try (RedisLockProvider ours = RedisLockProvider.builder()
                            .standalone(server.host(), server.port())
                            .options(opts)
                            .lockOptions(lease)
                            .build();
                    RedisLockProvider noRenew = RedisLockProvider.builder()
                            .standalone(server.host(), server.port())
                            .options(opts)
                            .lockOptions(lease.mutate().autoRenew(false).build())
                            .build();
                    RedisLockProvider noHandOff = RedisLockProvider.builder()
                            .standalone(server.host(), server.port())
                            .options(opts.mutate().handOff(false).build())
                            .lockOptions(lease)
                            .build()) {
                RedisKeys keys = new RedisKeys(opts.keyPrefix());
                String lockKey = keys.lockKey("ab-raw");
                String tokenKey = keys.tokenKey("ab-raw");
                String channel = keys.channel("ab-raw");
                Runnable a =
                        () -> ours.lock("ab-ours").tryAcquire().orElseThrow().release();
                Runnable f = () -> {
                    ping.ping();
                    ping.ping();
                };
                Runnable r = () -> rawPair(pooled, lockKey, tokenKey, channel);
                Runnable d = () -> rawPairDedicated(dedicated, lockKey, tokenKey, channel);
                Map<String, Runnable> variants = new LinkedHashMap<>();
                variants.put("ours", a);
                variants.put("2ping", f);
                variants.put(
                        "ours-nohandoff",
                        () -> noHandOff
                                .lock("ab-nho")
                                .tryAcquire()
                                .orElseThrow()
                                .release());
                if (Boolean.getBoolean("ab.norenew")) {
                    variants.put(
                            "ours-norenew",
                            () -> noRenew.lock("ab-nr")
                                    .tryAcquire()
                                    .orElseThrow()
                                    .release());
                }
                variants.put("raw-pooled", r);
                variants.put("raw-dedicated", d);
                // the scripts distlock runs by default (handOff=true), raw, and two PINGs through the pool
                String qKey = lockKey.replace(":lock", ":queue");
                String wKey = lockKey.replace(":lock", ":waiters");
                variants.put("raw-q-pooled", () -> rawQueued(pooled::evalsha, lockKey, tokenKey, qKey, wKey, channel));
                variants.put(
                        "raw-q-dedicated", () -> rawQueued(dedicated::evalsha, lockKey, tokenKey, qKey, wKey, channel));
                // the least a lock can send: SET NX PX (no script) and a compare-and-delete script,
                // no fencing counter, no wake-up message, no queue (a hand-rolled two-request lock)
                String cadSha = dedicated.scriptLoad(
                        "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0");
                String minimalKey = lockKey.replace(":lock", ":minimal");
                variants.put("minimal-unfenced", () -> {
                    String owner = Owners.newOwner();
                    if (!"OK"
                            .equals(dedicated.set(
                                    minimalKey,
                                    owner,
                                    SetParams.setParams().nx().px(10_000)))) {
                        throw new IllegalStateException("minimal lock not free");
                    }
                    dedicated.evalsha(cadSha, List.of(minimalKey), List.of(owner));
                });
                variants.put("2ping-pooled", () -> {
                    pooled.ping();
                    pooled.ping();
                });
                for (int i = 0; i < 2_000; i++) {
                    variants.values().forEach(Runnable::run);
                }
                Map<String, List<Double>> p50s = new LinkedHashMap<>();
                for (int round = 0; round < rounds; round++) {
                    Map<String, long[]> samples = new LinkedHashMap<>();
                    int n = 4_000;
                    variants.keySet().forEach(k -> samples.put(k, new long[n]));
                    for (int from = 0; from < n; from += BLOCK) {
                        for (Map.Entry<String, Runnable> v : variants.entrySet()) {
                            long[] s = samples.get(v.getKey());
                            Runnable op = v.getValue();
                            for (int i = from; i < from + BLOCK; i++) {
                                long t0 = System.nanoTime();
                                op.run();
                                s[i] = System.nanoTime() - t0;
                            }
                        }
                    }
                    StringBuilder line = new StringBuilder("round " + round + ":");
                    double floor = p50(samples.get("2ping"));
                    for (Map.Entry<String, long[]> e : samples.entrySet()) {
                        double p = p50(e.getValue());
                        p50s.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(p);
                        line.append(String.format(Locale.ROOT, " %s=%.1fus(%.2fx)", e.getKey(), p, p / floor));
                    }
                    System.out.println(line);
                }
                double floor = median(p50s.get("2ping"));
                StringBuilder line = new StringBuilder("uncontended median p50:");
                p50s.forEach((k, v) ->
                        line.append(String.format(Locale.ROOT, " %s=%.1fus(%.2fx)", k, median(v), median(v) / floor)));
                System.out.println(line);
            } finally {
                pooled.close();
            }
            if (handoffs > 0) {
                // interleaved: hand-off by the release script (handOff=true) against
                // the waiter's own acquire round trip (handOff=false), alternating per round
                Map<String, List<Double>> ho = new LinkedHashMap<>();
                for (int r = 0; r < rounds; r++) {
                    for (boolean on : new boolean[] {true, false}) {
                        double[] res = handoff(server, ping, handoffs, on);
                        ho.computeIfAbsent("handOff=" + on, k -> new ArrayList<>())
                                .add(res[0]);
                        ho.computeIfAbsent("ping(" + on + ")", k -> new ArrayList<>())
                                .add(res[1]);
                    }
                }
                StringBuilder line = new StringBuilder("handoff median p50:");
                ho.forEach((k, v) -> line.append(String.format(Locale.ROOT, " %s=%.1fus", k, median(v))));
                System.out.println(line);
            }
        }
    }

    private static void rawPair(UnifiedJedis c, String lockKey, String tokenKey, String channel) {
        String owner = Owners.newOwner();
        Object o =
                ScriptRunner.run(c, Scripts.ACQUIRE, List.of(lockKey, tokenKey), List.of(owner, "10000", "70000000"));
        if (!(o instanceof List<?> l) || !Long.valueOf(1).equals(l.get(0))) {
            throw new IllegalStateException("raw acquire failed: " + o);
        }
        ScriptRunner.run(c, Scripts.RELEASE, List.of(lockKey), List.of(owner, channel));
    }

    private interface EvalSha {
        Object evalsha(String sha, List<String> keys, List<String> args);
    }

    private static void rawQueued(
            EvalSha c, String lockKey, String tokenKey, String queueKey, String waitersKey, String channel) {
        String owner = Owners.newOwner();
        List<String> keys = List.of(lockKey, tokenKey, queueKey, waitersKey);
        Object o =
                c.evalsha(Scripts.ACQUIRE_QUEUED.sha(), keys, List.of(owner, "10000", "100000000", "0", "2500", "0"));
        if (!(o instanceof List<?> l) || !Long.valueOf(1).equals(l.get(0))) {
            throw new IllegalStateException("raw queued acquire failed: " + o);
        }
        c.evalsha(Scripts.RELEASE_QUEUED.sha(), keys, List.of(owner, channel, "100000000", "0"));
    }

    private static void rawPairDedicated(Jedis c, String lockKey, String tokenKey, String channel) {
        String owner = Owners.newOwner();
        Object o = c.evalsha(Scripts.ACQUIRE.sha(), List.of(lockKey, tokenKey), List.of(owner, "10000", "70000000"));
        if (!(o instanceof List<?> l) || !Long.valueOf(1).equals(l.get(0))) {
            throw new IllegalStateException("raw acquire failed: " + o);
        }
        c.evalsha(Scripts.RELEASE.sha(), List.of(lockKey), List.of(owner, channel));
    }

    /** The hand-off scenario of distlock-compare (one waiter), with PING blocks between hand-offs. */
    private static double[] handoff(RedisServer server, Jedis ping, int rounds, boolean handOff) throws Exception {
        RedisLockOptions opts = RedisLockOptions.builder().handOff(handOff).build();
        try (RedisLockProvider pa = provider(server, opts);
                RedisLockProvider pb = provider(server, opts)) {
            String name = "ab-handoff";
            long[] nanos = new long[rounds + 50];
            long[] pings = new long[(rounds + 50) * 3];
            AtomicInteger measured = new AtomicInteger();
            NextHolder next = new NextHolder();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> error = new AtomicReference<>();
            long[] lastRelease = {0};
            Object releaseLock = new Object();
            List<Thread> threads = new ArrayList<>();
            int[] pingIdx = {0};
            for (RedisLockProvider p : List.of(pa, pb)) {
                Thread th = new Thread(
                        () -> {
                            try {
                                while (!stop.get()) {
                                    Optional<Lease> h = p.lock(name).tryAcquire(Duration.ofSeconds(10));
                                    long got = System.nanoTime();
                                    if (h.isEmpty()) {
                                        continue;
                                    }
                                    int mine = next.acquired();
                                    long prev;
                                    synchronized (releaseLock) {
                                        prev = lastRelease[0];
                                    }
                                    if (prev != 0) {
                                        int slot = measured.getAndIncrement();
                                        if (slot < nanos.length) {
                                            nanos[slot] = got - prev;
                                        } else {
                                            stop.set(true);
                                        }
                                    }
                                    // the floor, under the same load, while holding
                                    for (int i = 0; i < 3 && pingIdx[0] < pings.length; i++) {
                                        long t0 = System.nanoTime();
                                        ping.ping();
                                        pings[pingIdx[0]++] = System.nanoTime() - t0;
                                    }
                                    if (!stop.get()) {
                                        LockSupport.parkNanos(1_000_000);
                                    }
                                    synchronized (releaseLock) {
                                        lastRelease[0] = System.nanoTime();
                                    }
                                    h.get().release();
                                    next.awaitNext(mine, stop);
                                }
                            } catch (Throwable t) {
                                error.compareAndSet(null, t);
                                stop.set(true);
                            }
                        },
                        "ab-handoff-" + threads.size());
                threads.add(th);
                th.start();
            }
            for (Thread t : threads) {
                t.join(120_000);
            }
            if (error.get() != null) {
                throw new IllegalStateException(error.get());
            }
            long[] got = Arrays.copyOfRange(nanos, 50, Math.min(nanos.length, measured.get()));
            long[] pg = Arrays.copyOf(pings, pingIdx[0]);
            double ping50 = p50(pg);
            System.out.printf(
                    Locale.ROOT,
                    "handoff(handOff=%s) p50=%.1fus p90=%.1fus ping p50=%.1fus -> %.2f PINGs (n=%d)%n",
                    handOff,
                    p50(got),
                    pct(got, 0.9),
                    ping50,
                    p50(got) / ping50,
                    got.length);
            return new double[] {p50(got), ping50};
        }
    }

    private static RedisLockProvider provider(RedisServer server, RedisLockOptions opts) {
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .options(opts)
                .leaseTime(Duration.ofSeconds(10))
                .build();
    }

    private static double p50(long[] nanos) {
        return pct(nanos, 0.5);
    }

    private static double pct(long[] nanos, double q) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[Math.max(0, (int) Math.ceil(q * s.length) - 1)] / 1e3;
    }

    /** The median of {@code nanos} (upper one for an even count), in µs. */
    static double p50Micros(long[] nanos) {
        long[] c = nanos.clone();
        Arrays.sort(c);
        return c[c.length / 2] / 1_000.0;
    }

    /** The median of {@code v} (upper one for an even count). */
    static double median(List<Double> v) {
        double[] c = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return c[c.length / 2];
    }

    /**
     * For the hand-off benchmarks: counts acquisitions, and lets a holder that released wait blocked
     * until another client has taken the lock (so it does not barge). It waits on a monitor, not by
     * polling: a loop that parks 20 µs at a time would compete on two CPUs with the very hand-off
     * being measured.
     */
    static final class NextHolder {
        private final AtomicInteger acquisitions = new AtomicInteger();

        /** Counts an acquisition and wakes released holders; returns its number (1, 2, …). */
        int acquired() {
            int n = acquisitions.incrementAndGet();
            synchronized (this) {
                notifyAll();
            }
            return n;
        }

        /** Waits until an acquisition after number {@code mine} has happened, or {@code stop} is set. */
        void awaitNext(int mine, AtomicBoolean stop) throws InterruptedException {
            synchronized (this) {
                while (!stop.get() && acquisitions.get() == mine) {
                    wait(10);
                }
            }
        }
    }
}
