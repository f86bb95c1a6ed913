package io.distlock.bench.redis;

import io.distlock.testing.servers.RedisServer;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import redis.clients.jedis.Jedis;

/**
 * Before/after of lock-redis's uncontended acquire+release: two builds of lock-api, lock-redis-core
 * and lock-redis in one JVM, each in its own class loader (Jedis and the rest shared), on one local
 * redis-server it starts, measured in blocks of 50 alternating with two {@code PING}s on a dedicated
 * connection, as distlock-compare calls them. Prints the p50 of each round and the medians (µs and
 * × the floor).
 *
 * <p>Arguments: {@code <other checkout> [rounds (default 3)] [warm-up operations (default 10000)]}:
 * "before" is the other checkout's classes (build them there first: {@code ./mvnw -q -pl lock-redis
 * -am compile}), "after" this build's. Example: {@code ./distlock bench RedisBeforeAfterBench
 * /work/main 3 10000}.
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

    /**
     * The class folders of lock-api, lock-redis-core (where the checkout has it) and lock-redis in
     * {@code checkout} (built with {@code ./mvnw -pl lock-redis -am compile}).
     *
     * @throws IllegalArgumentException if lock-api's or lock-redis's classes are missing
     */
    static List<URL> checkoutClasses(Path checkout) throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String module : List.of("lock-api", "lock-redis-core", "lock-redis")) {
            Path classes = checkout.resolve(module).resolve("target/classes");
            if (Files.isDirectory(classes)) {
                urls.add(classes.toUri().toURL());
            } else if (!module.equals("lock-redis-core")) {
                throw new IllegalArgumentException(
                        classes + " is missing: run ./mvnw -q -pl lock-redis -am compile in " + checkout);
            }
        }
        return urls;
    }

    /** Where this JVM loaded lock-api, lock-redis-core and lock-redis from (class folders or jars). */
    static List<URL> runningClasses() {
        List<URL> urls = new ArrayList<>();
        for (Class<?> c : List.of(
                io.distlock.LockProvider.class,
                io.distlock.redis.core.Scripts.class,
                io.distlock.redis.RedisLockProvider.class)) {
            urls.add(c.getProtectionDomain().getCodeSource().getLocation());
        }
        return urls;
    }

    /** Where this JVM loaded the benchmarks from. */
    static URL benchClasses() {
        return RedisBeforeAfterBench.class.getProtectionDomain().getCodeSource().getLocation();
    }

    /**
     * Loads io.distlock classes (but the TCK's) from its own URLs first, and finds distlock's
     * service files ({@code META-INF/services/io.distlock.*}) only there: the running class path also
     * holds the other backends, whose factories this loader cannot (and need not) load.
     */
    static final class ChildFirst extends URLClassLoader {
        ChildFirst(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            return name.startsWith("META-INF/services/io.distlock.") ? findResources(name) : super.getResources(name);
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
     * @param args the other checkout, rounds, warm-up operations
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: RedisBeforeAfterBench <other checkout> [rounds] [warm-up]");
        }
        List<List<URL>> builds = List.of(checkoutClasses(Path.of(args[0])), runningClasses());
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 10_000;
        try (RedisServer server = RedisServer.start();
                Jedis ping = new Jedis(server.host(), server.port())) {
            String uri = "redis://" + server.host() + ":" + server.port() + "?leaseTime=10s";
            Map<String, Runnable> variants = new LinkedHashMap<>();
            List<AutoCloseable> closing = new ArrayList<>();
            String[] labels = {"before", "after"};
            for (int i = 0; i < 2; i++) {
                List<URL> urls = new ArrayList<>(builds.get(i));
                urls.add(benchClasses()); // Op itself (compiled against the current API)
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
                    double p = RedisAbBench.p50Micros(s);
                    p50s.computeIfAbsent(k, x -> new ArrayList<>()).add(p);
                    line.append(String.format(Locale.ROOT, " %s=%.2fus", k, p));
                });
                System.out.println(line);
            }
            double floor = RedisAbBench.median(p50s.get("2ping"));
            StringBuilder line = new StringBuilder("median p50 (warm-up " + warmup + "):");
            p50s.forEach((k, v) -> line.append(String.format(
                    Locale.ROOT, " %s=%.2fus(%.2fx)", k, RedisAbBench.median(v), RedisAbBench.median(v) / floor)));
            System.out.println(line);
            for (AutoCloseable c : closing) {
                c.close();
            }
        }
    }
}
