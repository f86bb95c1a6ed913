package io.distlock.bench.redis;

import io.distlock.DistributedLock;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.bench.BenchJson;
import io.distlock.compare.LockClient;
import io.distlock.compare.cli.peers.RedissonLockClient;
import io.distlock.redis.RedisLockProvider;
import io.distlock.testing.servers.RedisServer;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.DefaultJedisSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * lock-redis against Redisson's {@code RLock} in both of the 2-vCPU machine's modes (distlock-compare's
 * README, "Two machine modes"): uncontended acquire+release of 4 lock-redis clients opened with
 * default options through {@code LockProviders.open(URI)} and 4 Redisson clients (distlock-compare's
 * peer, {@code RedissonLockClient}), used in turn, in blocks of 50 interleaved with blocks of two
 * {@code PING}s on a dedicated connection, on one local redis-server it starts. Each round runs once
 * with the other vCPU left idle (a reply may have to wake a halted vCPU) and once with a daemon
 * thread spinning (the client and the server share the CPU that is awake).
 *
 * <p>Reports per round and mode the p50 of each, lock-redis ÷ Redisson, the voluntary context
 * switches per operation of this JVM's threads and the vCPU halts per operation (entries into the
 * guest's idle state, {@code /sys/devices/system/cpu/cpuN/cpuidle/state1/usage}: each is a later
 * wake-up that has to rouse a halted vCPU); then the medians over rounds. Two more variants wait for a
 * reply by polling the socket for up to {@code spinMicros} before they block ({@code 2ping-spin}, and
 * {@code lock-redis-spin}: a provider on a Jedis client whose sockets do so, {@link SpinningSockets}),
 * to show what keeping the client's vCPU awake during a round trip is worth. Writes the results as
 * JSON.
 *
 * <p>For the fast mode with a pinned busy loop instead of the in-JVM spinner, run this with {@code
 * spin=none} next to e.g. {@code taskset -c 1 sh -c 'while :; do :; done'}.
 *
 * <p>Arguments: {@code [output file (default target/redis-wakeup-bench.json)] [rounds (default 6)]
 * [ops per variant and mode per round (default 2000)] [spinMicros (default 100)] [spin=none]}, e.g.
 * {@code ./distlock bench RedisWakeUpBench /tmp/wakeup.json 6 2000 100}.
 */
public final class RedisWakeUpBench {
    private static final int BLOCK = 50;
    private static final int CLIENTS = 4;
    private static volatile boolean spin;
    private static volatile boolean stop;

    private RedisWakeUpBench() {}

    /** One operation of a variant, given its sequence number (to pick the client in turn). */
    private interface Op {
        void run(int i) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/redis-wakeup-bench.json");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 6;
        int ops = args.length > 2 ? Integer.parseInt(args[2]) : 2_000;
        long spinNanos = TimeUnit.MICROSECONDS.toNanos(args.length > 3 ? Long.parseLong(args[3]) : 100);
        boolean inJvmSpinner = !(args.length > 4 && args[4].equals("spin=none"));
        Thread spinner = new Thread(RedisWakeUpBench::spinWhenAsked, "redis-wakeup-bench-spinner");
        spinner.setDaemon(true);
        spinner.start();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("cpus", Runtime.getRuntime().availableProcessors());
        result.put("cpuidle_driver", readOr(Path.of("/sys/devices/system/cpu/cpuidle/current_driver"), "?"));
        result.put("clients", CLIENTS);
        result.put("block", BLOCK);
        result.put("spin_micros", TimeUnit.NANOSECONDS.toMicros(spinNanos));
        List<Object> roundResults = new ArrayList<>();
        Map<String, List<Double>> medians = new LinkedHashMap<>();
        List<AutoCloseable> closing = new ArrayList<>();
        try (RedisServer server = RedisServer.start();
                Jedis ping = new Jedis(server.host(), server.port());
                Jedis pingSpin =
                        new Jedis(SpinningSockets.factory(new HostAndPort(server.host(), server.port()), spinNanos))) {
            URI uri = URI.create("redis://" + server.host() + ":" + server.port());
            List<DistributedLock> locks = new ArrayList<>();
            List<DistributedLock> spinLocks = new ArrayList<>();
            List<LockClient> redisson = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                LockProvider p = LockProviders.open(uri);
                closing.add(p);
                locks.add(p.lock("wakeup-ours-" + c));
                UnifiedJedis client = SpinningSockets.pooledClient(server.host(), server.port(), spinNanos);
                RedisLockProvider s = RedisLockProvider.builder().client(client).build();
                closing.add(s);
                closing.add(client);
                spinLocks.add(s.lock("wakeup-spin-" + c));
                RedissonLockClient r = new RedissonLockClient(server.host(), server.port());
                closing.add(r);
                redisson.add(r);
            }
            Map<String, Op> variants = new LinkedHashMap<>();
            variants.put("2ping", i -> {
                ping.ping();
                ping.ping();
            });
            variants.put(
                    "lock-redis",
                    i -> locks.get(i % CLIENTS).tryAcquire().orElseThrow().release());
            variants.put(
                    "redisson",
                    i -> redisson.get(i % CLIENTS)
                            .acquire("wakeup-redisson-" + (i % CLIENTS), Duration.ZERO)
                            .orElseThrow()
                            .release());
            variants.put("2ping-spin", i -> {
                pingSpin.ping();
                pingSpin.ping();
            });
            variants.put(
                    "lock-redis-spin",
                    i -> spinLocks.get(i % CLIENTS).tryAcquire().orElseThrow().release());
            for (int i = 0; i < 10_000; i++) {
                for (Op op : variants.values()) {
                    op.run(i);
                }
            }
            String[] modes = inJvmSpinner ? new String[] {"idle", "spin"} : new String[] {"as-is"};
            for (int r = 0; r < rounds; r++) {
                for (String mode : modes) {
                    spin = mode.equals("spin");
                    Thread.sleep(50); // the spinner starts or stops before the blocks
                    Map<String, Object> row = measure(variants, ops);
                    row.put("round", r);
                    row.put("mode", mode);
                    roundResults.add(row);
                    for (String k : List.of(
                            "2ping_p50_us",
                            "lock-redis_p50_us",
                            "redisson_p50_us",
                            "2ping-spin_p50_us",
                            "lock-redis-spin_p50_us",
                            "lock-redis_over_redisson",
                            "lock-redis-spin_over_redisson",
                            "lock-redis_vcpu_halts_per_op",
                            "redisson_vcpu_halts_per_op",
                            "lock-redis-spin_vcpu_halts_per_op")) {
                        medians.computeIfAbsent(mode + " " + k, x -> new ArrayList<>())
                                .add((Double) row.get(k));
                    }
                    System.out.println(BenchJson.toJson(row));
                }
            }
        } finally {
            stop = true;
            for (AutoCloseable c : closing) {
                c.close();
            }
        }
        Map<String, Object> summary = new LinkedHashMap<>();
        medians.forEach((k, v) -> summary.put(k, round(median(v))));
        result.put("rounds", roundResults);
        result.put("medians", summary);
        Files.writeString(out, BenchJson.toJson(result) + "\n");
        System.out.println(BenchJson.toJson(summary));
    }

    /** Interleaved blocks of every variant, {@code ops} operations each: p50s, context switches, halts. */
    private static Map<String, Object> measure(Map<String, Op> variants, int ops) throws Exception {
        Map<String, long[]> samples = new LinkedHashMap<>();
        Map<String, Long> switches = new LinkedHashMap<>();
        Map<String, Long> halts = new LinkedHashMap<>();
        variants.keySet().forEach(k -> {
            samples.put(k, new long[ops]);
            switches.put(k, 0L);
            halts.put(k, 0L);
        });
        for (int from = 0; from < ops; from += BLOCK) {
            for (Map.Entry<String, Op> v : variants.entrySet()) {
                long[] s = samples.get(v.getKey());
                Op op = v.getValue();
                long switchesBefore = voluntarySwitches();
                long haltsBefore = vcpuHalts();
                for (int i = from; i < Math.min(ops, from + BLOCK); i++) {
                    long t0 = System.nanoTime();
                    op.run(i);
                    s[i] = System.nanoTime() - t0;
                }
                halts.merge(v.getKey(), vcpuHalts() - haltsBefore, Long::sum);
                switches.merge(v.getKey(), voluntarySwitches() - switchesBefore, Long::sum);
            }
        }
        Map<String, Object> row = new LinkedHashMap<>();
        for (String k : variants.keySet()) {
            row.put(k + "_p50_us", round(p50(samples.get(k))));
        }
        double redisson = (Double) row.get("redisson_p50_us");
        row.put("lock-redis_over_redisson", round((Double) row.get("lock-redis_p50_us") / redisson));
        row.put("lock-redis-spin_over_redisson", round((Double) row.get("lock-redis-spin_p50_us") / redisson));
        double floor = (Double) row.get("2ping_p50_us");
        row.put("lock-redis_over_2ping", round((Double) row.get("lock-redis_p50_us") / floor));
        row.put("redisson_over_2ping", round(redisson / floor));
        for (String k : variants.keySet()) {
            row.put(k + "_voluntary_switches_per_op", round(switches.get(k) / (double) ops));
            row.put(k + "_vcpu_halts_per_op", round(halts.get(k) / (double) ops));
        }
        return row;
    }

    /** Voluntary context switches of all of this JVM's threads so far ({@code /proc/self/task}). */
    private static long voluntarySwitches() throws IOException {
        long n = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            n += Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException ended) {
                    // the thread ended meanwhile
                }
            }
        }
        return n;
    }

    /** Entries into the idle (halt) state of every CPU so far; 0 where the kernel does not say. */
    private static long vcpuHalts() {
        long n = 0;
        for (int cpu = 0; cpu < Runtime.getRuntime().availableProcessors(); cpu++) {
            n += Long.parseLong(readOr(Path.of("/sys/devices/system/cpu/cpu" + cpu + "/cpuidle/state1/usage"), "0"));
        }
        return n;
    }

    private static String readOr(Path file, String otherwise) {
        try {
            return Files.readString(file).trim();
        } catch (IOException e) {
            return otherwise;
        }
    }

    private static void spinWhenAsked() {
        long n = 0;
        while (!stop) {
            if (spin) {
                n++;
                Thread.onSpinWait();
            } else {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
        if (n == 42) {
            System.out.print(""); // keeps the loop from being optimised away
        }
    }

    private static double p50(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[s.length / 2] / 1_000.0;
    }

    private static double median(List<Double> v) {
        double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return s[s.length / 2];
    }

    /**
     * Jedis sockets that, before a read would block, poll the socket ({@code available()}) for up to
     * a budget, yielding to other threads between polls: the client's vCPU stays awake during a short
     * round trip, so the reply does not have to rouse it from a halt. Plain TCP only (no TLS).
     */
    static final class SpinningSockets {
        private SpinningSockets() {}

        static JedisSocketFactory factory(HostAndPort address, long spinNanos) {
            DefaultJedisSocketFactory plain = new DefaultJedisSocketFactory(
                    address, DefaultJedisClientConfig.builder().build());
            return () -> new SpinningSocket(plain.createSocket(), spinNanos);
        }

        /** A pooled Jedis client (8 connections, as lock-redis's default) on such sockets. */
        static UnifiedJedis pooledClient(String host, int port, long spinNanos) {
            ConnectionFactory connections = new ConnectionFactory(
                    factory(new HostAndPort(host, port), spinNanos),
                    DefaultJedisClientConfig.builder().clientName("distlock").build());
            ConnectionPoolConfig pool = new ConnectionPoolConfig();
            pool.setMaxTotal(8);
            pool.setMaxIdle(8);
            pool.setMinIdle(0);
            pool.setJmxEnabled(false);
            return new UnifiedJedis(new PooledConnectionProvider(connections, pool), RedisProtocol.RESP2) {};
        }
    }

    /** A connected socket whose input stream polls before it blocks; everything else is the socket's. */
    private static final class SpinningSocket extends Socket {
        private final Socket socket;
        private final long spinNanos;

        SpinningSocket(Socket socket, long spinNanos) {
            this.socket = socket;
            this.spinNanos = spinNanos;
        }

        @Override
        public InputStream getInputStream() throws IOException {
            InputStream in = socket.getInputStream();
            return new FilterInputStream(in) {
                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    if (in.available() == 0) {
                        long end = System.nanoTime() + spinNanos;
                        while (in.available() == 0 && System.nanoTime() - end < 0) {
                            Thread.yield();
                        }
                    }
                    return in.read(b, off, len);
                }
            };
        }

        @Override
        public OutputStream getOutputStream() throws IOException {
            return socket.getOutputStream();
        }

        @Override
        public void setSoTimeout(int timeout) throws SocketException {
            socket.setSoTimeout(timeout);
        }

        @Override
        public int getSoTimeout() throws SocketException {
            return socket.getSoTimeout();
        }

        @Override
        public boolean isConnected() {
            return socket.isConnected();
        }

        @Override
        public boolean isBound() {
            return socket.isBound();
        }

        @Override
        public boolean isClosed() {
            return socket.isClosed();
        }

        @Override
        public boolean isInputShutdown() {
            return socket.isInputShutdown();
        }

        @Override
        public boolean isOutputShutdown() {
            return socket.isOutputShutdown();
        }

        @Override
        public SocketAddress getRemoteSocketAddress() {
            return socket.getRemoteSocketAddress();
        }

        @Override
        public synchronized void close() throws IOException {
            socket.close();
        }
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
