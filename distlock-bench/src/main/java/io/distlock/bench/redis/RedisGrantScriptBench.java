package io.distlock.bench.redis;

import io.distlock.redis.core.Scripts;
import io.distlock.testing.servers.RedisServer;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;

/**
 * Before/after of the hand-off script's cost on the server: another checkout's {@code
 * RELEASE_QUEUED} against this one's, alternating on one local redis-server it starts. Each hand-off: a holder takes the
 * lock ({@code ACQUIRE_QUEUED}), a waiter queues ({@code ACQUIRE_QUEUED} with a registration), the
 * holder holds for {@code hold} µs (the server idles, as in distlock-compare's hand-off scenarios),
 * then the holder's {@code RELEASE_QUEUED} grants the lock to the waiter (timed at the holder), and
 * the waiter releases. A subscriber listens on the channel, so the grant's {@code PUBLISH} has a
 * reader. Prints the server time of each script (SLOWLOG at threshold 0) and the holder's round
 * trip of the granting call.
 *
 * <p>Arguments: {@code <other checkout> [hand-offs (default 3000)] [hold µs (default 2000)]}: the
 * other checkout's {@code RELEASE_QUEUED} is read from its compiled classes (build them there first:
 * {@code ./mvnw -q -pl lock-redis -am compile}). Example: {@code ./distlock bench RedisGrantScriptBench
 * /work/main 3000 2000}.
 */
public final class RedisGrantScriptBench {
    private RedisGrantScriptBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: RedisGrantScriptBench <other checkout> [hand-offs] [hold µs]");
        }
        List<URL> otherClasses = RedisBeforeAfterBench.checkoutClasses(Path.of(args[0]));
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 3_000;
        long holdNanos = (args.length > 2 ? Long.parseLong(args[2]) : 2_000) * 1_000;
        String before = otherScript(otherClasses);
        String after = Scripts.RELEASE_QUEUED.text();
        if (before.equals(after)) {
            throw new IllegalStateException("both checkouts have the same RELEASE_QUEUED");
        }
        try (RedisServer server = RedisServer.start();
                Jedis holder = new Jedis(server.host(), server.port());
                Jedis waiter = new Jedis(server.host(), server.port());
                Jedis admin = new Jedis(server.host(), server.port());
                Jedis listener = new Jedis(server.host(), server.port())) {
            String[] sha = {holder.scriptLoad(before), holder.scriptLoad(after)};
            String[] variant = {"before", "after"};
            String acquire = holder.scriptLoad(Scripts.ACQUIRE_QUEUED.text());
            List<String> keys = List.of("b:{g}:lock", "b:{g}:token", "b:{g}:queue", "b:{g}:waiters");
            String channel = "b:{g}:released";
            JedisPubSub pubSub = new JedisPubSub() {
                @Override
                public void onMessage(String ch, String message) {}
            };
            Thread reader = new Thread(() -> listener.subscribe(pubSub, channel), "grant-bench-subscriber");
            reader.setDaemon(true);
            reader.start();
            while (pubSub.getSubscribedChannels() == 0) {
                LockSupport.parkNanos(1_000_000);
            }
            admin.configSet("slowlog-max-len", String.valueOf(40 * n)); // the calls inside the scripts are logged too
            long[][] roundTrips = new long[2][n / 2];
            for (int phase = 0; phase < 2; phase++) { // warm-up, then measured
                if (phase == 1) {
                    admin.configSet("slowlog-log-slower-than", "0");
                    admin.slowlogReset();
                }
                for (int i = 0; i < n; i++) {
                    int v = i % 2;
                    String h = "h" + i;
                    String w = "w" + i;
                    Object took = holder.evalsha(acquire, keys, List.of(h, "10000", "100000000", "0", "2500", "0"));
                    Object queued =
                            waiter.evalsha(acquire, keys, List.of(w, "10000", "100000000", "10000", "2500", "0"));
                    if (!Long.valueOf(1).equals(((List<?>) took).get(0))
                            || !Long.valueOf(0).equals(((List<?>) queued).get(0))) {
                        throw new IllegalStateException("setup failed: " + took + " " + queued);
                    }
                    LockSupport.parkNanos(holdNanos);
                    long t0 = System.nanoTime();
                    Object granted = holder.evalsha(sha[v], keys, List.of(h, channel, "100000000", "0"));
                    long t1 = System.nanoTime();
                    Object released = waiter.evalsha(sha[v], keys, List.of(w, channel, "100000000", "0"));
                    if (!Long.valueOf(2).equals(granted) || !Long.valueOf(1).equals(released)) {
                        throw new IllegalStateException("grant " + granted + ", release " + released);
                    }
                    if (phase == 1) {
                        roundTrips[v][i / 2] = t1 - t0;
                    }
                }
            }
            admin.configSet("slowlog-log-slower-than", "-1");
            Map<String, List<Long>> server1 = new TreeMap<>();
            Map<String, String> names = new HashMap<>(Map.of(sha[0], "before", sha[1], "after", acquire, "acquire"));
            for (Object o : admin.slowlogGetBinary(40L * n)) {
                List<?> entry = (List<?>) o;
                List<?> argv = (List<?>) entry.get(3);
                if (!new String((byte[]) argv.get(0)).equalsIgnoreCase("evalsha")) {
                    continue;
                }
                String name = names.get(new String((byte[]) argv.get(1)));
                String owner = new String((byte[]) argv.get(argv.size() - 4));
                if (name == null || name.equals("acquire")) {
                    continue;
                }
                String key = name + (owner.startsWith("h") ? " grant" : " release (no waiter)");
                server1.computeIfAbsent(key, k -> new ArrayList<>()).add((Long) entry.get(2));
            }
            server1.forEach((k, v) -> {
                long[] s = v.stream().mapToLong(Long::longValue).sorted().toArray();
                System.out.printf(
                        Locale.ROOT,
                        "server %-28s n=%5d mean=%6.2f p50=%3d p90=%3d µs%n",
                        k,
                        s.length,
                        Arrays.stream(s).average().orElse(0),
                        s[s.length / 2],
                        s[(int) (s.length * 0.9)]);
            });
            for (int v = 0; v < 2; v++) {
                long[] s = roundTrips[v].clone();
                Arrays.sort(s);
                System.out.printf(
                        Locale.ROOT,
                        "holder's grant round trip %-6s p50=%.1f µs p90=%.1f µs (hold %d µs)%n",
                        variant[v],
                        s[s.length / 2] / 1e3,
                        s[(int) (s.length * 0.9)] / 1e3,
                        holdNanos / 1_000);
            }
            pubSub.unsubscribe();
        }
    }

    /**
     * {@code RELEASE_QUEUED}'s text in the other checkout's classes (a class loader of their own); the
     * scripts are in lock-redis-core's {@code io.distlock.redis.core.Scripts}, in older checkouts in
     * lock-redis's {@code io.distlock.redis.internal.Scripts}.
     */
    private static String otherScript(List<URL> classes) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(classes.toArray(new URL[0]), null) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.startsWith("io.distlock.redis.core.Scripts")
                        && !name.startsWith("io.distlock.redis.internal.Scripts")) {
                    return RedisGrantScriptBench.class.getClassLoader().loadClass(name);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    return c != null ? c : findClass(name);
                }
            }
        }) {
            Class<?> scripts;
            try {
                scripts = loader.loadClass("io.distlock.redis.core.Scripts");
            } catch (ClassNotFoundException e) {
                scripts = loader.loadClass("io.distlock.redis.internal.Scripts");
            }
            Object script = scripts.getField("RELEASE_QUEUED").get(null);
            return (String) script.getClass().getMethod("text").invoke(script);
        }
    }
}
