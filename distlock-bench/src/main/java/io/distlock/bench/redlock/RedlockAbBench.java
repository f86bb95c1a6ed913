package io.distlock.bench.redlock;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.redis.core.Owners;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Scripts;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.redlock.RedlockLockProvider;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * Interleaved A/B of lock-redlock's uncontended acquire+release against its floor, its raw scripts
 * and RedissonRedLock: in one JVM on five local redis-server masters it starts, blocks of several
 * variants alternate with the round-trip floor (one PING to all five nodes in parallel on dedicated
 * connections, as distlock-compare measures it); per variant it reports the median over blocks of
 * each block's p50, the median of the per-block ratios p50 / (2 × floor p50; {@code
 * -Dab.floorRounds=3} for three rounds), the servers' commands per operation ({@code INFO
 * commandstats}), client and server CPU and the client's thread wake-ups per operation (voluntary
 * context switches of the JVM's threads); then contended throughput with 4 clients, interleaved the
 * same way.
 *
 * <p>Variants ({@code -Dab.variants=...}, default {@code ours,old,redisson,raw3,floor}): {@code ours}
 * (this build, the compare's settings: lease 10 s, node timeout 50 ms, watchdog on), {@code
 * ours-pool1}, {@code ours-pool2}, {@code ours-nofence}, {@code ours-norenew}; {@code old} and {@code head}: another checkout's build
 * ({@code -Dab.old=<checkout>}, {@code -Dab.head=<checkout>}, built there with {@code ./mvnw -q -pl
 * lock-redlock -am compile}) in a class loader of its own; {@code redisson}; {@code raw3}, {@code
 * raw3-pooled} (the three scripts through an executor) and {@link RawRounds}'s {@code raw3-direct},
 * {@code raw3-readers}, {@code raw3-poll}, {@code floor-direct} (the same without a thread hop per
 * node and request). {@code -Dab.split=true} also prints the acquire and release parts, {@code
 * -Dab.switchesByThread=true} the wake-ups of each thread, {@code -Dab.nodeTimeoutMs} sets the node
 * timeout.
 *
 * <p>Arguments: {@code [blocks (default 20)] [contended seconds per variant (default 3)]}; system
 * properties through {@code JAVA_TOOL_OPTIONS}, e.g. {@code
 * JAVA_TOOL_OPTIONS="-Dab.variants=ours,redisson,raw3" ./distlock bench RedlockAbBench 20 1}.
 */
public final class RedlockAbBench {
    private static final int N = 5;
    private static final int BLOCK = 100;
    /** Rounds in the floor of one acquire+release: 2 (one to acquire, one to release). */
    private static final int FLOOR_ROUNDS = Integer.getInteger("ab.floorRounds", 2);
    /** The compare's lease settings: 10 s, watchdog on. */
    private static final LockOptions LEASE =
            LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build();

    private RedlockAbBench() {}

    /** One uncontended acquire + release of a variant. */
    interface Variant extends AutoCloseable {
        void op() throws Exception;

        /** A new client (provider) of the variant for the contended run; closed by the caller. */
        Variant another() throws Exception;

        /** tryAcquire(5 s) + release; whether it was acquired. */
        boolean contendedOp() throws Exception;

        @Override
        void close() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int blocks = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int contendedSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        try (RedisServers servers = RedisServers.independentMasters(N)) {
            List<String> addrs = List.of(servers.addresses().split(","));
            List<String> wanted = List.of(System.getProperty("ab.variants", "ours,old,redisson,raw3,floor")
                    .split(","));
            Map<String, Variant> variants = new LinkedHashMap<>();
            RedlockLockOptions base = compareOptions();
            if (wanted.contains("ours")) {
                variants.put("ours", ours(addrs, "ab-ours", base, LEASE));
            }
            String old = System.getProperty("ab.old");
            if (old != null && wanted.contains("old")) {
                variants.put("old", reflective(checkoutClasses(Path.of(old)), addrs, "ab-old"));
            }
            String head = System.getProperty("ab.head");
            if (head != null && wanted.contains("head")) {
                variants.put("head", reflective(checkoutClasses(Path.of(head)), addrs, "ab-head"));
            }
            if (wanted.contains("ours-pool1")) {
                variants.put(
                        "ours-pool1",
                        ours(addrs, "ab-p1", base.mutate().poolSize(1).build(), LEASE));
            }
            if (wanted.contains("ours-pool2")) {
                variants.put(
                        "ours-pool2",
                        ours(addrs, "ab-p2", base.mutate().poolSize(2).build(), LEASE));
            }
            if (wanted.contains("ours-nofence")) {
                variants.put(
                        "ours-nofence",
                        ours(addrs, "ab-nf", base.mutate().fencing(false).build(), LEASE));
            }
            if (wanted.contains("ours-norenew")) {
                variants.put(
                        "ours-norenew",
                        ours(
                                addrs,
                                "ab-nr",
                                base,
                                LEASE.mutate().autoRenew(false).build()));
            }
            List<Jedis> pings = new ArrayList<>();
            for (RedisServer s : servers.servers()) {
                pings.add(new Jedis(s.host(), s.port()));
            }
            ExecutorService pinger = Executors.newFixedThreadPool(N, r -> {
                Thread t = new Thread(r, "distlock-redlock-ab-ping");
                t.setDaemon(true);
                return t;
            });
            List<RedissonClient> redisson = new ArrayList<>();
            for (RedisServer s : servers.servers()) {
                Config c = new Config();
                c.useSingleServer().setAddress("redis://" + s.address());
                redisson.add(Redisson.create(c));
            }
            try {
                @SuppressWarnings("deprecation")
                RedissonRedLock redLock = new RedissonRedLock(
                        redisson.stream().map(r -> r.getLock("ab-redisson")).toArray(RLock[]::new));
                Map<String, Variant> all = new LinkedHashMap<>(variants);
                if (wanted.contains("redisson")) {
                    all.put("redisson", redissonVariant(redisson, redLock));
                }
                if (wanted.contains("raw3")) {
                    all.put("raw3", rawScripts(servers, pinger, false));
                }
                if (wanted.contains("raw3-pooled")) {
                    all.put("raw3-pooled", rawScripts(servers, pinger, true));
                }
                if (wanted.contains("raw3-direct")) {
                    all.put("raw3-direct", RawRounds.direct(servers));
                }
                if (wanted.contains("raw3-readers")) {
                    all.put("raw3-readers", RawRounds.readers(servers));
                }
                if (wanted.contains("raw3-poll")) {
                    all.put("raw3-poll", RawRounds.poll(servers));
                }
                if (wanted.contains("floor-direct")) {
                    all.put("floor-direct", RawRounds.pingDirect(servers));
                }
                all.put("floor", pingVariant(pings, pinger));
                uncontended(servers, all, blocks);
                contended(all, variants, contendedSeconds);
            } finally {
                for (Variant v : variants.values()) {
                    v.close();
                }
                redisson.forEach(RedissonClient::shutdown);
                pinger.shutdownNow();
                pings.forEach(Jedis::close);
            }
        }
    }

    private static void uncontended(RedisServers servers, Map<String, Variant> all, int blocks) throws Exception {
        Map<String, List<Double>> p50s = new LinkedHashMap<>();
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        Map<String, Map<String, Long>> commands = new LinkedHashMap<>();
        Map<String, Integer> failures = new LinkedHashMap<>();
        Map<String, Double> clientCpu = new LinkedHashMap<>();
        Map<String, Double> switches = new LinkedHashMap<>();
        Map<String, Double> serverCpu = new LinkedHashMap<>();
        for (String name : all.keySet()) {
            p50s.put(name, new ArrayList<>());
            ratios.put(name, new ArrayList<>());
            commands.put(name, new LinkedHashMap<>());
            failures.put(name, 0);
        }
        for (int b = -2; b < blocks; b++) { // two warm-up blocks
            Map<String, Double> blockP50 = new LinkedHashMap<>();
            for (Map.Entry<String, Variant> e : all.entrySet()) {
                Map<String, Long> before = RedlockBench.commandStats(servers);
                long cpu0 = processCpuNanos();
                long sw0 = contextSwitches();
                Map<String, Long> byThread0 = BY_THREAD ? switchesByThread() : Map.of();
                double srv0 = serverCpuSeconds(servers);
                double[] us = new double[BLOCK];
                for (int i = 0; i < BLOCK; i++) {
                    long t = System.nanoTime();
                    try {
                        e.getValue().op();
                    } catch (Exception ex) {
                        if (failures.merge(e.getKey(), 1, Integer::sum) <= 3) {
                            System.err.println("uncontended " + e.getKey() + ": " + ex);
                        }
                    }
                    us[i] = (System.nanoTime() - t) / 1_000.0;
                }
                long cpu1 = processCpuNanos();
                long sw1 = contextSwitches();
                if (BY_THREAD && b >= 0) {
                    Map<String, Long> d = byThreadTotals.computeIfAbsent(e.getKey(), k -> new java.util.TreeMap<>());
                    switchesByThread().forEach((k, v) -> d.merge(k, v - byThread0.getOrDefault(k, 0L), Long::sum));
                }
                double srv1 = serverCpuSeconds(servers);
                Map<String, Long> after = RedlockBench.commandStats(servers);
                if (b >= 0) {
                    clientCpu.merge(e.getKey(), (double) (cpu1 - cpu0), Double::sum);
                    switches.merge(e.getKey(), (double) (sw1 - sw0), Double::sum);
                    serverCpu.merge(e.getKey(), (srv1 - srv0) * 1e9, Double::sum);
                    after.forEach((k, v) -> {
                        long d = v - before.getOrDefault(k, 0L);
                        if (d > 0 && !k.equals("info")) {
                            commands.get(e.getKey()).merge(k, d, Long::sum);
                        }
                    });
                }
                Arrays.sort(us);
                blockP50.put(e.getKey(), us[BLOCK / 2]);
            }
            if (b < 0) {
                continue;
            }
            double floor = blockP50.get("floor");
            for (Map.Entry<String, Double> e : blockP50.entrySet()) {
                p50s.get(e.getKey()).add(e.getValue());
                ratios.get(e.getKey()).add(e.getValue() / (FLOOR_ROUNDS * floor));
            }
        }
        System.out.printf(
                Locale.ROOT,
                "uncontended acquire+release, %d blocks of %d, load average %s%n",
                blocks,
                BLOCK,
                loadAverage());
        System.out.printf(
                Locale.ROOT,
                "%-12s %12s %14s %14s %8s %12s %12s %10s  %s%n",
                "variant",
                "p50 µs(med)",
                "×" + FLOOR_ROUNDS + "·floor(med)",
                "×redisson(med)",
                "failures",
                "client cpu µs/op",
                "server cpu µs/op",
                "wakeups/op",
                "server commands/op");
        List<Double> redisson = p50s.get("redisson");
        for (String name : all.keySet()) {
            List<Double> own = p50s.get(name);
            List<Double> overRedisson = new ArrayList<>();
            for (int i = 0; redisson != null && i < own.size(); i++) {
                overRedisson.add(own.get(i) / redisson.get(i));
            }
            Map<String, String> perOp = new LinkedHashMap<>();
            commands.get(name)
                    .forEach((k, v) -> perOp.put(k, String.format(Locale.ROOT, "%.2f", v / (double) (blocks * BLOCK))));
            System.out.printf(
                    Locale.ROOT,
                    "%-12s %12.0f %14.2f %14.2f %8d %12.0f %12.0f %10.1f  %s%n",
                    name,
                    median(own),
                    median(ratios.get(name)),
                    redisson == null ? Double.NaN : median(overRedisson),
                    failures.get(name),
                    clientCpu.getOrDefault(name, 0.0) / (blocks * BLOCK) / 1_000,
                    serverCpu.getOrDefault(name, 0.0) / (blocks * BLOCK) / 1_000,
                    switches.getOrDefault(name, 0.0) / (blocks * BLOCK),
                    perOp);
        }
        byThreadTotals.forEach((name, d) -> {
            Map<String, String> perOp = new java.util.TreeMap<>();
            d.forEach((k, v) -> {
                if (v > 0) {
                    perOp.put(k, String.format(Locale.ROOT, "%.2f", v / (double) (blocks * BLOCK)));
                }
            });
            System.out.printf(Locale.ROOT, "wake-ups/op by thread, %s: %s%n", name, perOp);
        });
        Split.print();
    }

    /** {@code -Dab.switchesByThread=true}: also print each thread's wake-ups per operation. */
    private static final boolean BY_THREAD = Boolean.getBoolean("ab.switchesByThread");

    private static final Map<String, Map<String, Long>> byThreadTotals = new LinkedHashMap<>();

    /** Voluntary context switches per thread name (digits folded, so pools sum up). */
    private static Map<String, Long> switchesByThread() {
        Map<String, Long> out = new java.util.HashMap<>();
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return out;
        }
        for (java.io.File t : tasks) {
            try {
                String comm = java.nio.file.Files.readString(t.toPath().resolve("comm"))
                        .trim()
                        .replaceAll("[0-9]+", "#");
                for (String line : java.nio.file.Files.readAllLines(t.toPath().resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:")) {
                        out.merge(
                                comm,
                                Long.parseLong(
                                        line.substring(line.indexOf(':') + 1).trim()),
                                Long::sum);
                    }
                }
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                // the thread ended meanwhile
            }
        }
        return out;
    }

    /**
     * 4 clients of each variant on one lock, alternating variants (in a rotating order), {@code
     * seconds} each, 3 times.
     */
    private static void contended(Map<String, Variant> all, Map<String, Variant> ours, int seconds) throws Exception {
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(ours.keySet());
        if (all.containsKey("redisson")) {
            names.add("redisson");
        }
        Map<String, AtomicLong> errors = new LinkedHashMap<>();
        for (int rep = 0; rep < 3; rep++) {
            // rotate the order each time: the first variant after the uncontended phase runs slower
            java.util.Collections.rotate(names, rep == 0 ? 0 : 1);
            for (String name : names) {
                List<Variant> clients = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    clients.add(all.get(name).another());
                }
                ExecutorService pool = Executors.newFixedThreadPool(4);
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong ops = new AtomicLong();
                try {
                    List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
                    for (Variant c : clients) {
                        fs.add(pool.submit(() -> {
                            while (!stop.get()) {
                                try {
                                    if (c.contendedOp()) {
                                        ops.incrementAndGet();
                                    }
                                } catch (Exception ex) {
                                    if (errors.computeIfAbsent(name, k -> new AtomicLong())
                                                    .incrementAndGet()
                                            <= 3) {
                                        System.err.println("contended " + name + ": " + ex);
                                    }
                                }
                            }
                            return null;
                        }));
                    }
                    long t0 = System.nanoTime();
                    CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(seconds, TimeUnit.SECONDS))
                            .join();
                    stop.set(true);
                    for (java.util.concurrent.Future<?> f : fs) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    rates.computeIfAbsent(name, k -> new ArrayList<>())
                            .add(ops.get() / ((System.nanoTime() - t0) / 1e9));
                } finally {
                    stop.set(true);
                    pool.shutdownNow();
                    for (Variant c : clients) {
                        c.close();
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "contended, 4 clients, %d s × 3, load average %s%n", seconds, loadAverage());
        rates.forEach((k, v) -> System.out.printf(
                Locale.ROOT,
                "%-12s %8.0f ops/s (median; %s), errors %s%n",
                k,
                median(v),
                v,
                errors.getOrDefault(k, new AtomicLong())));
    }

    private static RedlockLockOptions compareOptions() {
        return RedlockLockOptions.builder()
                .nodeTimeout(Duration.ofMillis(Long.getLong("ab.nodeTimeoutMs", 50)))
                .build();
    }

    private static Variant ours(List<String> addrs, String lock, RedlockLockOptions options, LockOptions lease) {
        RedlockLockProvider p = RedlockLockProvider.builder()
                .nodes(addrs)
                .options(options)
                .lockOptions(lease)
                .build();
        return new Variant() {
            @Override
            public void op() {
                long t0 = System.nanoTime();
                io.distlock.Lease l = p.lock(lock).tryAcquire().orElseThrow();
                long t1 = System.nanoTime();
                l.release();
                Split.record("ours", t1 - t0, System.nanoTime() - t1);
            }

            @Override
            public Variant another() {
                return ours(addrs, lock + "-c", options, lease);
            }

            @Override
            public boolean contendedOp() throws InterruptedException {
                Optional<Lease> l = p.lock(lock).tryAcquire(Duration.ofSeconds(5));
                l.ifPresent(Lease::release);
                return l.isPresent();
            }

            @Override
            public void close() {
                p.close();
            }
        };
    }

    /**
     * The class folders of lock-api, lock-redis-core, lock-redis and lock-redlock in {@code checkout}
     * (those it has), and this JVM's third-party jars: another build of distlock with the same
     * libraries.
     */
    private static List<URL> checkoutClasses(Path checkout) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String module : List.of("lock-api", "lock-redis-core", "lock-redis", "lock-redlock")) {
            Path classes = checkout.resolve(module).resolve("target/classes");
            if (Files.isDirectory(classes)) {
                urls.add(classes.toUri().toURL());
            }
        }
        if (urls.size() < 3) {
            throw new IllegalArgumentException(
                    "no classes in " + checkout + ": run ./mvnw -q -pl lock-redlock -am compile there");
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (entry.endsWith(".jar") && !name.startsWith("lock-") && !name.startsWith("distlock-")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        return urls;
    }

    /** Another build in its own class loader, driven by reflection. */
    private static Variant reflective(List<URL> urls, List<String> addrs, String lock) throws Exception {
        URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        return reflective(loader, addrs, lock, true);
    }

    private static Variant reflective(URLClassLoader loader, List<String> addrs, String lock, boolean ownsLoader)
            throws Exception {
        Class<?> providerClass = loader.loadClass("io.distlock.redlock.RedlockLockProvider");
        Class<?> optionsClass; // the options class of the other build, under either of its names
        try {
            optionsClass = loader.loadClass("io.distlock.redlock.RedlockLockOptions");
        } catch (ClassNotFoundException e) {
            optionsClass = loader.loadClass("io.distlock.redlock.RedlockOptions");
        }
        Object ob = optionsClass.getMethod("builder").invoke(null);
        ob.getClass()
                .getMethod("nodeTimeout", Duration.class)
                .invoke(ob, Duration.ofMillis(Long.getLong("ab.nodeTimeoutMs", 50)));
        Object options = ob.getClass().getMethod("build").invoke(ob);
        Object pb = providerClass.getMethod("builder").invoke(null);
        pb.getClass().getMethod("nodes", List.class).invoke(pb, addrs);
        pb.getClass().getMethod("options", optionsClass).invoke(pb, options);
        // after the options: with the older options class, leaseTime is a shortcut into them
        pb.getClass().getMethod("leaseTime", Duration.class).invoke(pb, Duration.ofSeconds(10));
        Object provider = pb.getClass().getMethod("build").invoke(pb);
        Method lockMethod = providerClass.getMethod("lock", String.class);
        Class<?> distributedLock = loader.loadClass("io.distlock.DistributedLock");
        Method tryAcquire = distributedLock.getMethod("tryAcquire");
        Method tryAcquireWait = distributedLock.getMethod("tryAcquire", Duration.class);
        Method release = loader.loadClass("io.distlock.Lease").getMethod("release");
        Method close = providerClass.getMethod("close");
        return new Variant() {
            @Override
            public void op() throws Exception {
                Object l = ((Optional<?>) tryAcquire.invoke(lockMethod.invoke(provider, lock))).orElseThrow();
                release.invoke(l);
            }

            @Override
            public Variant another() throws Exception {
                return reflective(loader, addrs, lock + "-c", false);
            }

            @Override
            public boolean contendedOp() throws Exception {
                Optional<?> l =
                        (Optional<?>) tryAcquireWait.invoke(lockMethod.invoke(provider, lock), Duration.ofSeconds(5));
                if (l.isPresent()) {
                    release.invoke(l.get());
                }
                return l.isPresent();
            }

            @Override
            public void close() throws Exception {
                close.invoke(provider);
                if (ownsLoader) {
                    loader.close();
                }
            }
        };
    }

    private static Variant redissonVariant(List<RedissonClient> redisson, RedissonRedLock redLock) {
        return new Variant() {
            @Override
            public void op() throws Exception {
                if (!redLock.tryLock(0, 30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("RedissonRedLock not acquired");
                }
                redLock.unlock();
            }

            @Override
            @SuppressWarnings("deprecation")
            public Variant another() {
                RedissonRedLock mine = new RedissonRedLock(
                        redisson.stream().map(r -> r.getLock("ab-redisson-c")).toArray(RLock[]::new));
                return new Variant() {
                    @Override
                    public void op() {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public Variant another() {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public boolean contendedOp() throws Exception {
                        if (mine.tryLock(5, 30, TimeUnit.SECONDS)) {
                            mine.unlock();
                            return true;
                        }
                        return false;
                    }

                    @Override
                    public void close() {}
                };
            }

            @Override
            public boolean contendedOp() {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {}
        };
    }

    /**
     * The protocol's three rounds with the real scripts and nothing else: REDLOCK_ACQUIRE, then
     * REDLOCK_RAISE, then RELEASE, each sent to all five nodes in parallel on dedicated connections
     * (the floor's executor), waiting for all five each time; {@code pooled}: through a pooled
     * client per node, as lock-redlock's requests go (borrow and return per request).
     */
    private static Variant rawScripts(RedisServers servers, ExecutorService pinger, boolean pooled) {
        List<redis.clients.jedis.UnifiedJedis> pools = new ArrayList<>();
        if (pooled) {
            for (RedisServer s : servers.servers()) {
                pools.add(redis.clients.jedis.RedisClient.create(s.host(), s.port()));
            }
        }
        List<Jedis> conns = new ArrayList<>();
        for (RedisServer s : servers.servers()) {
            Jedis j = new Jedis(s.host(), s.port());
            for (io.distlock.redis.core.Scripts.Script sc : List.of(
                    io.distlock.redis.core.Scripts.REDLOCK_ACQUIRE,
                    io.distlock.redis.core.Scripts.REDLOCK_RAISE,
                    io.distlock.redis.core.Scripts.RELEASE)) {
                j.scriptLoad(sc.text());
            }
            conns.add(j);
        }
        io.distlock.redis.core.RedisKeys keys = new io.distlock.redis.core.RedisKeys("ab-raw");
        List<String> both = List.of(keys.lockKey("raw"), keys.tokenKey("raw"));
        List<String> lockOnly = List.of(keys.lockKey("raw"));
        return new Variant() {
            @Override
            public void op() {
                String owner = io.distlock.redis.core.Owners.newOwner();
                if (pooled) {
                    pooledRound(io.distlock.redis.core.Scripts.REDLOCK_ACQUIRE, both, List.of(owner, "10000"));
                    pooledRound(io.distlock.redis.core.Scripts.REDLOCK_RAISE, both, List.of(owner, "1"));
                    pooledRound(io.distlock.redis.core.Scripts.RELEASE, lockOnly, List.of(owner, keys.channel("raw")));
                    return;
                }
                round(j ->
                        j.evalsha(io.distlock.redis.core.Scripts.REDLOCK_ACQUIRE.sha(), both, List.of(owner, "10000")));
                round(j -> j.evalsha(io.distlock.redis.core.Scripts.REDLOCK_RAISE.sha(), both, List.of(owner, "1")));
                round(j -> j.evalsha(
                        io.distlock.redis.core.Scripts.RELEASE.sha(), lockOnly, List.of(owner, keys.channel("raw"))));
            }

            private void round(java.util.function.Consumer<Jedis> call) {
                CompletableFuture.allOf(conns.stream()
                                .map(j -> CompletableFuture.runAsync(() -> call.accept(j), pinger))
                                .toArray(CompletableFuture[]::new))
                        .join();
            }

            private void pooledRound(io.distlock.redis.core.Scripts.Script script, List<String> k, List<String> a) {
                CompletableFuture.allOf(pools.stream()
                                .map(p -> CompletableFuture.runAsync(
                                        () -> io.distlock.redis.core.ScriptRunner.run(p, script, k, a), pinger))
                                .toArray(CompletableFuture[]::new))
                        .join();
            }

            @Override
            public Variant another() {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean contendedOp() {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {
                conns.forEach(Jedis::close);
                pools.forEach(redis.clients.jedis.UnifiedJedis::close);
            }
        };
    }

    private static Variant pingVariant(List<Jedis> pings, ExecutorService pinger) {
        return new Variant() {
            @Override
            public void op() {
                CompletableFuture.allOf(pings.stream()
                                .map(j -> CompletableFuture.runAsync(j::ping, pinger))
                                .toArray(CompletableFuture[]::new))
                        .join();
            }

            @Override
            public Variant another() {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean contendedOp() {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close() {}
        };
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * Voluntary context switches of every thread of this JVM ({@code /proc/self/task/N/status}):
     * each one is a thread that blocked and was woken again, so the difference over a block is the
     * client's thread wake-ups (JVM housekeeping threads included; the benchmark's own threads
     * block once per operation at most).
     */
    private static long contextSwitches() {
        long total = 0;
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return 0;
        }
        for (java.io.File t : tasks) {
            try {
                for (String line : java.nio.file.Files.readAllLines(t.toPath().resolve("status"))) {
                    if (line.startsWith("voluntary_ctxt_switches:")) {
                        total += Long.parseLong(
                                line.substring(line.indexOf(':') + 1).trim());
                    }
                }
            } catch (java.io.IOException | java.io.UncheckedIOException e) {
                // the thread ended meanwhile
            }
        }
        return total;
    }

    private static final Pattern CPU = Pattern.compile("used_cpu_(?:sys|user):([0-9.]+)");

    private static double serverCpuSeconds(RedisServers nodes) {
        double total = 0;
        for (RedisServer s : nodes.servers()) {
            try (Jedis j = new Jedis(s.host(), s.port())) {
                Matcher m = CPU.matcher(j.info("cpu"));
                while (m.find()) {
                    total += Double.parseDouble(m.group(1));
                }
            }
        }
        return total;
    }

    private static double median(List<Double> values) {
        double[] s = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return s.length == 0 ? Double.NaN : s[s.length / 2];
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                    .trim();
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    /**
     * The protocol's three rounds (the real scripts, nothing else) sent without a thread hop per node
     * and request, for {@link RedlockAbBench}: bounds what a client that writes a round from the calling
     * thread could gain over {@code raw3} (one executor task per node and request).
     *
     * <ul>
     *   <li>{@code direct}: the caller writes the request to all five connections, then reads the five
     *       replies in node order (blocking reads; no latency isolation: the lower bound of client cost).
     *   <li>{@code readers}: the caller writes to all five connections; one reader thread per
     *       connection, blocked in the socket read, completes the reply's future (one wake-up per node
     *       and request instead of two; latency isolation kept).
     * </ul>
     */
    static final class RawRounds {
        private static final RedisKeys KEYS = new RedisKeys("ab-raw-direct");
        private static final List<String> BOTH = List.of(KEYS.lockKey("raw"), KEYS.tokenKey("raw"));
        private static final List<String> LOCK_ONLY = List.of(KEYS.lockKey("raw"));

        private RawRounds() {}

        private static List<Connection> connect(RedisServers servers) {
            List<Connection> conns = new ArrayList<>();
            for (RedisServer s : servers.servers()) {
                Connection c = new Connection(new HostAndPort(s.host(), s.port()));
                for (Scripts.Script sc : List.of(Scripts.REDLOCK_ACQUIRE, Scripts.REDLOCK_RAISE, Scripts.RELEASE)) {
                    c.executeCommand(new CommandArguments(Protocol.Command.SCRIPT)
                            .add("LOAD")
                            .add(sc.text()));
                }
                conns.add(c);
            }
            return conns;
        }

        private static CommandArguments evalsha(Scripts.Script script, List<String> keys, List<String> args) {
            CommandArguments a = new CommandArguments(Protocol.Command.EVALSHA)
                    .add(script.sha())
                    .add(keys.size());
            keys.forEach(a::key);
            args.forEach(a::add);
            return a;
        }

        /**
         * Whether the raw variants send round 2 (REDLOCK_RAISE) too: {@code -Dab.raw.rounds=3}; by
         * default two rounds (acquire, release), what an acquisition costs while round 1 increments
         * the counters.
         */
        private static final boolean RAISE = Integer.getInteger("ab.raw.rounds", 2) >= 3;

        private static List<CommandArguments> threeRounds() {
            String owner = Owners.newOwner();
            if (!RAISE) {
                return List.of(
                        evalsha(Scripts.REDLOCK_ACQUIRE, BOTH, List.of(owner, "10000")),
                        evalsha(Scripts.RELEASE, LOCK_ONLY, List.of(owner, KEYS.channel("raw"))));
            }
            return List.of(
                    evalsha(Scripts.REDLOCK_ACQUIRE, BOTH, List.of(owner, "10000")),
                    evalsha(Scripts.REDLOCK_RAISE, BOTH, List.of(owner, "1")),
                    evalsha(Scripts.RELEASE, LOCK_ONLY, List.of(owner, KEYS.channel("raw"))));
        }

        static RedlockAbBench.Variant direct(RedisServers servers) {
            List<Connection> conns = connect(servers);
            return new Simple() {
                @Override
                public void op() {
                    for (CommandArguments request : threeRounds()) {
                        for (Connection c : conns) {
                            c.sendCommand(request);
                            c.getMany(0); // flush
                        }
                        for (Connection c : conns) {
                            c.getOne();
                        }
                    }
                }

                @Override
                public void close() {
                    conns.forEach(Connection::close);
                }
            };
        }

        /**
         * {@code poll}: the caller writes to all five connections, then reads each reply once its socket
         * has bytes ({@code available()}), yielding the CPU between checks (no thread hop, any order).
         */
        static RedlockAbBench.Variant poll(RedisServers servers) {
            List<Connection> conns = new ArrayList<>();
            List<java.net.Socket> sockets = new ArrayList<>();
            for (RedisServer s : servers.servers()) {
                redis.clients.jedis.DefaultJedisSocketFactory plain =
                        new redis.clients.jedis.DefaultJedisSocketFactory(new HostAndPort(s.host(), s.port()));
                java.net.Socket[] holder = new java.net.Socket[1];
                Connection c = new Connection(
                        () -> holder[0] = plain.createSocket(),
                        redis.clients.jedis.DefaultJedisClientConfig.builder().build());
                for (Scripts.Script sc : List.of(Scripts.REDLOCK_ACQUIRE, Scripts.REDLOCK_RAISE, Scripts.RELEASE)) {
                    c.executeCommand(new CommandArguments(Protocol.Command.SCRIPT)
                            .add("LOAD")
                            .add(sc.text()));
                }
                conns.add(c);
                sockets.add(holder[0]);
            }
            List<java.io.InputStream> ins = new ArrayList<>();
            for (java.net.Socket so : sockets) {
                try {
                    ins.add(so.getInputStream());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            return new Simple() {
                @Override
                public void op() throws Exception {
                    long[] at = new long[4];
                    int r = 0;
                    at[r++] = System.nanoTime();
                    for (CommandArguments request : threeRounds()) {
                        for (Connection c : conns) {
                            c.sendCommand(request);
                            c.getMany(0); // flush
                        }
                        long w = System.nanoTime();
                        int pending = conns.size();
                        boolean[] done = new boolean[conns.size()];
                        while (pending > 0) {
                            for (int i = 0; i < conns.size(); i++) {
                                if (!done[i] && ins.get(i).available() > 0) {
                                    conns.get(i).getUnflushedObject();
                                    done[i] = true;
                                    pending--;
                                }
                            }
                            if (pending > 0) {
                                Thread.yield();
                            }
                        }
                        at[r++] = System.nanoTime();
                        Split.record("raw-round" + r + " writes|wait", w - at[r - 2], at[r - 1] - w);
                    }
                    Split.record("raw-poll", at[1] - at[0], at[r - 1] - at[r - 2]);
                }

                @Override
                public void close() {
                    conns.forEach(Connection::close);
                }
            };
        }

        static RedlockAbBench.Variant pingDirect(RedisServers servers) {
            List<Connection> conns = connect(servers);
            CommandArguments ping = new CommandArguments(Protocol.Command.PING);
            return new Simple() {
                @Override
                public void op() {
                    for (Connection c : conns) {
                        c.sendCommand(ping);
                        c.getMany(0);
                    }
                    for (Connection c : conns) {
                        c.getOne();
                    }
                }

                @Override
                public void close() {
                    conns.forEach(Connection::close);
                }
            };
        }

        static RedlockAbBench.Variant readers(RedisServers servers) {
            List<Connection> conns = connect(servers);
            List<ConcurrentLinkedQueue<CompletableFuture<Object>>> pending = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < conns.size(); i++) {
                Connection c = conns.get(i);
                c.setTimeoutInfinite();
                ConcurrentLinkedQueue<CompletableFuture<Object>> q = new ConcurrentLinkedQueue<>();
                pending.add(q);
                Thread t = new Thread(
                        () -> {
                            while (true) {
                                Object reply;
                                try {
                                    reply = c.getUnflushedObject();
                                } catch (RuntimeException e) {
                                    CompletableFuture<Object> f;
                                    while ((f = q.poll()) != null) {
                                        f.completeExceptionally(e);
                                    }
                                    return;
                                }
                                CompletableFuture<Object> f = q.poll();
                                if (f != null) {
                                    f.complete(reply);
                                }
                            }
                        },
                        "distlock-redlock-ab-reader-" + i);
                t.setDaemon(true);
                t.start();
                threads.add(t);
            }
            return new Simple() {
                @Override
                public void op() {
                    for (CommandArguments request : threeRounds()) {
                        List<CompletableFuture<Object>> fs = new ArrayList<>(conns.size());
                        for (int i = 0; i < conns.size(); i++) {
                            CompletableFuture<Object> f = new CompletableFuture<>();
                            pending.get(i).add(f);
                            fs.add(f);
                            Connection c = conns.get(i);
                            c.sendCommand(request);
                            c.getMany(0);
                        }
                        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new))
                                .join();
                    }
                }

                @Override
                public void close() {
                    conns.forEach(Connection::close);
                }
            };
        }

        private abstract static class Simple implements RedlockAbBench.Variant {
            @Override
            public RedlockAbBench.Variant another() {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean contendedOp() {
                throw new UnsupportedOperationException();
            }
        }
    }

    /**
     * {@code -Dab.split=true}: per variant, the medians of the acquire part and of the release part of
     * an uncontended acquire+release (for the variants that report them), printed at the end.
     */
    static final class Split {
        private static final boolean ON = Boolean.getBoolean("ab.split");
        private static final int MAX = 200_000;
        private static final Map<String, long[][]> SAMPLES = new ConcurrentHashMap<>();
        private static final Map<String, int[]> COUNTS = new ConcurrentHashMap<>();

        private Split() {}

        static void record(String variant, long acquireNanos, long releaseNanos) {
            if (!ON) {
                return;
            }
            long[][] s = SAMPLES.computeIfAbsent(variant, k -> new long[2][MAX]);
            int[] n = COUNTS.computeIfAbsent(variant, k -> new int[1]);
            if (n[0] < MAX) {
                s[0][n[0]] = acquireNanos;
                s[1][n[0]] = releaseNanos;
                n[0]++;
            }
        }

        static void print() {
            SAMPLES.forEach((variant, s) -> {
                int n = COUNTS.get(variant)[0];
                long[] a = Arrays.copyOf(s[0], n);
                long[] r = Arrays.copyOf(s[1], n);
                Arrays.sort(a);
                Arrays.sort(r);
                System.out.printf(
                        Locale.ROOT,
                        "split %s: acquire p50 %.1f µs, release p50 %.1f µs (%d samples)%n",
                        variant,
                        a[n / 2] / 1e3,
                        r[n / 2] / 1e3,
                        n);
            });
        }
    }
}
