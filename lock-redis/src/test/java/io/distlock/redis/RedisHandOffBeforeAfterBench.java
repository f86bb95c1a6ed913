package io.distlock.redis;

import io.distlock.Lease;
import io.distlock.testing.servers.RedisServer;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
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
 * Before/after harness for the hand-off (not a test): two builds of lock-api + lock-redis in one
 * JVM, each in its own class loader (Jedis and the rest shared), each with two providers opened
 * from distlock-compare's URI; blocks of hand-offs (release by A → acquisition by waiting B, the
 * holder holding 2 ms first, as distlock-compare's {@code handoff_1} / {@code handoff_many}) alternate between the two
 * builds, with a block of {@code PING}s between them. Prints the p50 of each round and the medians.
 *
 * <p>Run: {@code lock-redis/bench.sh handoff-before-after <other checkout> [rounds] [hand-offs per
 * block] [waiters]}, which builds the classes of both trees first.
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
            NextHolder next = new NextHolder();
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

    /** Loads io.distlock classes (but the TCK's) from its own URLs first. */
    private static final class ChildFirst extends URLClassLoader {
        ChildFirst(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
            if (!n.startsWith("io.distlock.") || n.startsWith("io.distlock.tck.")) {
                return super.loadClass(n, resolve);
            }
            synchronized (getClassLoadingLock(n)) {
                Class<?> c = findLoadedClass(n);
                return c != null ? c : findClass(n);
            }
        }
    }

    /**
     * @param args before-classes (lock-api and lock-redis class folders, ':'-separated), after-classes
     *     (the same), the folder holding this class, rounds, hand-offs per block, waiters (1)
     */
    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        int block = args.length > 4 ? Integer.parseInt(args[4]) : 200;
        int waiters = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        try (RedisServer server = RedisServer.start();
                Jedis ping = new Jedis(server.host(), server.port())) {
            String uri = "redis://" + server.host() + ":" + server.port() + "?leaseTime=10s";
            Map<String, IntFunction<long[]>> variants = new LinkedHashMap<>();
            List<AutoCloseable> closing = new ArrayList<>();
            String[] labels = {"before", "after"};
            for (int i = 0; i < 2; i++) {
                List<URL> urls = new ArrayList<>();
                for (String dir : args[i].split(":")) {
                    urls.add(new File(dir).toURI().toURL());
                }
                urls.add(new File(args[2]).toURI().toURL()); // HandOffs itself
                ClassLoader loader =
                        new ChildFirst(urls.toArray(new URL[0]), RedisHandOffBeforeAfterBench.class.getClassLoader());
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
                    double p = BenchStats.p50Micros(v.getValue().apply(block));
                    p50s.computeIfAbsent(v.getKey(), x -> new ArrayList<>()).add(p);
                    long[] pings = new long[50];
                    for (int i = 0; i < pings.length; i++) {
                        long t0 = System.nanoTime();
                        ping.ping();
                        pings[i] = System.nanoTime() - t0;
                    }
                    double pp = BenchStats.p50Micros(pings);
                    p50s.computeIfAbsent("ping", x -> new ArrayList<>()).add(pp);
                    line.append(String.format(Locale.ROOT, " %s=%.1fus ping=%.1fus", v.getKey(), p, pp));
                }
                System.out.println(line);
            }
            double floor = BenchStats.median(p50s.get("ping"));
            StringBuilder line = new StringBuilder(
                    "median hand-off p50 (" + waiters + " waiters, " + rounds + " rounds of " + block + "):");
            p50s.forEach((k, v) -> line.append(String.format(
                    Locale.ROOT, " %s=%.1fus(%.2f PINGs)", k, BenchStats.median(v), BenchStats.median(v) / floor)));
            System.out.println(line);
            for (AutoCloseable c : closing) {
                c.close();
            }
        }
    }
}
