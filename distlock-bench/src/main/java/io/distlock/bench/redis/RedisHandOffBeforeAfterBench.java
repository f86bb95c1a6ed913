package io.distlock.bench.redis;

import io.distlock.Lease;
import io.distlock.testing.servers.RedisServer;
import java.net.URL;
import java.nio.file.Path;
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
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import redis.clients.jedis.Jedis;

/**
 * Before/after of lock-redis's hand-off (release by A → acquisition by waiting B, the holder holding
 * 2 ms first, as distlock-compare's {@code handoff_1} / {@code handoff_many}): two builds of lock-api,
 * lock-redis-core and lock-redis in one JVM, each in its own class loader (Jedis and the rest
 * shared), each with {@code waiters + 1} providers opened from distlock-compare's URI, on one local
 * redis-server it starts; blocks of hand-offs alternate between the two builds, with a block of
 * {@code PING}s between them. Prints the p50 of each round and the medians (µs and in PINGs).
 *
 * <p>Arguments: {@code <other checkout> [rounds (default 10)] [hand-offs per block (default 200)]
 * [waiters (default 1)]}: "before" is the other checkout's classes (build them there first: {@code
 * ./mvnw -q -pl lock-redis -am compile}), "after" this build's. Example: {@code ./distlock bench
 * RedisHandOffBeforeAfterBench /work/main 10 200 1}.
 */
public final class RedisHandOffBeforeAfterBench {
    private static final long HOLD_NANOS = 2_000_000;

    private RedisHandOffBeforeAfterBench() {}

    /** A hand-off block runner; one copy per class loader. */
    public static final class HandOffs implements IntFunction<long[]>, AutoCloseable {
        private final List<io.distlock.LockProvider> clients = new ArrayList<>();
        private final String name;

        /** {@code waiters + 1} providers, one thread each, as distlock-compare's hand-off scenarios. */
        public HandOffs(String uri, String name, int waiters) {
            ClassLoader previous = Thread.currentThread().getContextClassLoader();
            Thread.currentThread().setContextClassLoader(HandOffs.class.getClassLoader()); // ServiceLoader
            try {
                for (int i = 0; i <= waiters; i++) {
                    clients.add(io.distlock.LockProviders.open(uri));
                }
            } finally {
                Thread.currentThread().setContextClassLoader(previous);
            }
            this.name = name;
        }

        @Override
        public long[] apply(int n) {
            long[] nanos = new long[n];
            AtomicInteger measured = new AtomicInteger();
            RedisAbBench.NextHolder next = new RedisAbBench.NextHolder();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong lastRelease = new AtomicLong();
            AtomicReference<Throwable> error = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (io.distlock.LockProvider p : clients) {
                Thread t = new Thread(
                        () -> {
                            try {
                                while (!stop.get()) {
                                    Optional<Lease> h = p.lock(name).tryAcquire(Duration.ofSeconds(10));
                                    long got = System.nanoTime();
                                    if (h.isEmpty()) {
                                        continue;
                                    }
                                    int mine = next.acquired();
                                    long prev = lastRelease.get();
                                    if (prev != 0) {
                                        int slot = measured.getAndIncrement();
                                        if (slot < n) {
                                            nanos[slot] = got - prev;
                                        } else {
                                            stop.set(true);
                                        }
                                    }
                                    if (!stop.get()) {
                                        LockSupport.parkNanos(HOLD_NANOS);
                                    }
                                    lastRelease.set(System.nanoTime());
                                    h.get().release();
                                    next.awaitNext(mine, stop);
                                }
                            } catch (Throwable e) {
                                error.compareAndSet(null, e);
                                stop.set(true);
                            }
                        },
                        "handoff-ba-" + threads.size());
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                try {
                    t.join(120_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            if (error.get() != null) {
                throw new IllegalStateException(error.get());
            }
            return Arrays.copyOf(nanos, Math.min(n, measured.get()));
        }

        @Override
        public void close() {
            clients.forEach(io.distlock.LockProvider::close);
        }
    }

    /**
     * @param args the other checkout, rounds, hand-offs per block, waiters
     */
    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException(
                    "usage: RedisHandOffBeforeAfterBench <other checkout> [rounds] [hand-offs per block] [waiters]");
        }
        List<List<URL>> builds = List.of(
                RedisBeforeAfterBench.checkoutClasses(Path.of(args[0])), RedisBeforeAfterBench.runningClasses());
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int block = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        int waiters = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        try (RedisServer server = RedisServer.start();
                Jedis ping = new Jedis(server.host(), server.port())) {
            String uri = "redis://" + server.host() + ":" + server.port() + "?leaseTime=10s";
            Map<String, IntFunction<long[]>> variants = new LinkedHashMap<>();
            List<AutoCloseable> closing = new ArrayList<>();
            String[] labels = {"before", "after"};
            for (int i = 0; i < 2; i++) {
                List<URL> urls = new ArrayList<>(builds.get(i));
                urls.add(RedisBeforeAfterBench.benchClasses()); // HandOffs itself
                ClassLoader loader = new RedisBeforeAfterBench.ChildFirst(
                        urls.toArray(new URL[0]), RedisHandOffBeforeAfterBench.class.getClassLoader());
                Object h = loader.loadClass(HandOffs.class.getName())
                        .getConstructor(String.class, String.class, int.class)
                        .newInstance(uri, "hoba-" + labels[i], waiters);
                variants.put(labels[i], (IntFunction<long[]>) h);
                closing.add((AutoCloseable) h);
            }
            // warm-up: one block each, not counted
            variants.values().forEach(v -> v.apply(block));
            Map<String, List<Double>> p50s = new LinkedHashMap<>();
            for (int round = 0; round < rounds; round++) {
                StringBuilder line = new StringBuilder("round " + round + ":");
                for (Map.Entry<String, IntFunction<long[]>> v : variants.entrySet()) {
                    double p = RedisAbBench.p50Micros(v.getValue().apply(block));
                    p50s.computeIfAbsent(v.getKey(), x -> new ArrayList<>()).add(p);
                    long[] pings = new long[50];
                    for (int i = 0; i < pings.length; i++) {
                        long t0 = System.nanoTime();
                        ping.ping();
                        pings[i] = System.nanoTime() - t0;
                    }
                    double pp = RedisAbBench.p50Micros(pings);
                    p50s.computeIfAbsent("ping", x -> new ArrayList<>()).add(pp);
                    line.append(String.format(Locale.ROOT, " %s=%.1fus ping=%.1fus", v.getKey(), p, pp));
                }
                System.out.println(line);
            }
            double floor = RedisAbBench.median(p50s.get("ping"));
            StringBuilder line = new StringBuilder(
                    "median hand-off p50 (" + waiters + " waiters, " + rounds + " rounds of " + block + "):");
            p50s.forEach((k, v) -> line.append(String.format(
                    Locale.ROOT, " %s=%.1fus(%.2f PINGs)", k, RedisAbBench.median(v), RedisAbBench.median(v) / floor)));
            System.out.println(line);
            for (AutoCloseable c : closing) {
                c.close();
            }
        }
    }
}
