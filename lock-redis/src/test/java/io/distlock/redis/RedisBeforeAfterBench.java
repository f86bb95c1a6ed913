package io.distlock.redis;

import io.distlock.testing.servers.RedisServer;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import redis.clients.jedis.Jedis;

/**
 * Before/after harness (not a test): two builds of lock-api + lock-redis in one JVM, each in its own
 * class loader (Jedis and the rest shared), their uncontended acquire+release measured in blocks of
 * 50 alternating with two {@code PING}s on a dedicated connection, as distlock-compare calls it.
 * Prints the p50 of each round and the medians.
 *
 * <p>Run: {@code lock-redis/bench.sh before-after <other checkout> [rounds] [warmup]}, which builds
 * the classes of both trees first.
 */
public final class RedisBeforeAfterBench {
    private static final int BLOCK = 50;
    private static final int N = 4_000;

    private RedisBeforeAfterBench() {}

    /** One acquire+release through a provider opened from compare's URI; one copy per class loader. */
    public static final class Op implements Runnable, AutoCloseable {
        private final io.distlock.LockProvider provider;
        private final String name;

        public Op(String uri, String name) {
            ClassLoader previous = Thread.currentThread().getContextClassLoader();
            Thread.currentThread().setContextClassLoader(Op.class.getClassLoader()); // ServiceLoader
            try {
                this.provider = io.distlock.LockProviders.open(uri);
            } finally {
                Thread.currentThread().setContextClassLoader(previous);
            }
            this.name = name;
        }

        @Override
        public void run() {
            provider.lock(name).tryAcquire().orElseThrow().release();
        }

        @Override
        public void close() {
            provider.close();
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
     *     (the same), the folder holding this class, rounds, warm-up operations
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 10_000;
        try (RedisServer server = RedisServer.start();
                Jedis ping = new Jedis(server.host(), server.port())) {
            String uri = "redis://" + server.host() + ":" + server.port() + "?leaseTime=10s";
            Map<String, Runnable> variants = new LinkedHashMap<>();
            List<AutoCloseable> closing = new ArrayList<>();
            String[] labels = {"before", "after"};
            for (int i = 0; i < 2; i++) {
                List<URL> urls = new ArrayList<>();
                for (String dir : args[i].split(":")) {
                    urls.add(new File(dir).toURI().toURL());
                }
                urls.add(new File(args[2]).toURI().toURL()); // Op itself (compiled against the current API)
                ClassLoader loader =
                        new ChildFirst(urls.toArray(new URL[0]), RedisBeforeAfterBench.class.getClassLoader());
                Object op = loader.loadClass(Op.class.getName())
                        .getConstructor(String.class, String.class)
                        .newInstance(uri, "ba-" + labels[i]);
                variants.put(labels[i], (Runnable) op);
                closing.add((AutoCloseable) op);
            }
            variants.put("2ping", () -> {
                ping.ping();
                ping.ping();
            });
            for (int i = 0; i < warmup; i++) {
                variants.values().forEach(Runnable::run);
            }
            Map<String, List<Double>> p50s = new LinkedHashMap<>();
            for (int round = 0; round < rounds; round++) {
                Map<String, long[]> samples = new LinkedHashMap<>();
                variants.keySet().forEach(k -> samples.put(k, new long[N]));
                for (int from = 0; from < N; from += BLOCK) {
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
                samples.forEach((k, s) -> {
                    double p = BenchStats.p50Micros(s);
                    p50s.computeIfAbsent(k, x -> new ArrayList<>()).add(p);
                    line.append(String.format(Locale.ROOT, " %s=%.2fus", k, p));
                });
                System.out.println(line);
            }
            double floor = BenchStats.median(p50s.get("2ping"));
            StringBuilder line = new StringBuilder("median p50 (warm-up " + warmup + "):");
            p50s.forEach((k, v) -> line.append(String.format(
                    Locale.ROOT, " %s=%.2fus(%.2fx)", k, BenchStats.median(v), BenchStats.median(v) / floor)));
            System.out.println(line);
            for (AutoCloseable c : closing) {
                c.close();
            }
        }
    }
}
