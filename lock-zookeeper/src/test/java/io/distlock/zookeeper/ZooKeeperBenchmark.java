package io.distlock.zookeeper;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;

/**
 * Benchmark, not a test: distlock's ZooKeeper provider against Curator's InterProcessMutex and the
 * raw round trip ({@code exists}) on one in-process server, written as JSON. Run with the test
 * class path: {@code java -cp ... io.distlock.zookeeper.ZooKeeperBenchmark [out.json]}.
 */
public final class ZooKeeperBenchmark {
    private static final int WARMUP = 200;
    private static final int N = 1000;
    private static final int HANDOFFS = 200;
    private static final int CLIENTS = 8;
    private static final Duration THROUGHPUT_RUN = Duration.ofSeconds(3);

    private ZooKeeperBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/zookeeper-bench.json");
        Map<String, Object> result = new LinkedHashMap<>();
        try (EmbeddedZk zk = EmbeddedZk.start()) {
            String cs = zk.connectString();
            result.put(
                    "server",
                    "in-process ZooKeeper "
                            + org.apache.zookeeper.Version.getFullVersion().split(" ")[0]
                            + " standalone, forceSync=no, 127.0.0.1");
            result.put("cores", Runtime.getRuntime().availableProcessors());
            ZooKeeperLockOptions options = ZooKeeperLockOptions.builder()
                    .connectString(cs)
                    .lockOptions(LockOptions.builder()
                            .leaseTime(Duration.ofSeconds(30))
                            .build())
                    .build();
            try (CuratorFramework raw = curator(cs);
                    ZooKeeperLockProvider ours =
                            ZooKeeperLockProvider.builder().options(options).build()) {
                result.put(
                        "rawRoundTripExists",
                        latencies(N, () -> raw.checkExists().forPath("/")));
                long before = zk.packetsReceived();
                Map<String, Object> o = latencies(
                        N, () -> ours.lock("bench-u").tryAcquire().orElseThrow().release());
                o.put("requestsPerOp", (double) (zk.packetsReceived() - before) / (N + WARMUP));
                result.put("distlockUncontended", o);
                InterProcessMutex mutex = new InterProcessMutex(raw, "/curator-bench/u");
                before = zk.packetsReceived();
                Map<String, Object> c = latencies(N, () -> {
                    mutex.acquire();
                    mutex.release();
                });
                c.put("requestsPerOp", (double) (zk.packetsReceived() - before) / (N + WARMUP));
                result.put("curatorUncontended", c);
            }
            result.put("distlockHandoff", handoff(cs, options, false));
            result.put("curatorHandoff", handoff(cs, options, true));
            result.put("distlockThroughput8", throughput(cs, options, false));
            result.put("curatorThroughput8", throughput(cs, options, true));
        }
        String json = toJson(result, "");
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json + "\n");
        System.out.println(json);
    }

    interface Op {
        void run() throws Exception;
    }

    private static CuratorFramework curator(String cs) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.newClient(cs, 30_000, 5_000, new RetryOneTime(50));
        c.start();
        c.blockUntilConnected();
        return c;
    }

    private static Map<String, Object> latencies(int n, Op op) throws Exception {
        for (int i = 0; i < WARMUP; i++) {
            op.run();
        }
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            op.run();
            t[i] = System.nanoTime() - s;
        }
        return summary(t);
    }

    private static Map<String, Object> summary(long[] t) {
        long[] s = t.clone();
        Arrays.sort(s);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", s.length);
        m.put("p50us", s[s.length / 2] / 1000.0);
        m.put("p90us", s[(int) (s.length * 0.9)] / 1000.0);
        m.put("p99us", s[(int) (s.length * 0.99)] / 1000.0);
        return m;
    }

    /** Release by A at t0, acquisition by waiting B at t1: t1 - t0, with a fresh waiter each round. */
    private static Map<String, Object> handoff(String cs, ZooKeeperLockOptions options, boolean curator)
            throws Exception {
        long[] t = new long[HANDOFFS];
        try (CuratorFramework ca = curator(cs);
                CuratorFramework cb = curator(cs);
                ZooKeeperLockProvider a =
                        ZooKeeperLockProvider.builder().options(options).build();
                ZooKeeperLockProvider b =
                        ZooKeeperLockProvider.builder().options(options).build()) {
            InterProcessMutex ma = new InterProcessMutex(ca, "/curator-bench/h");
            InterProcessMutex mb = new InterProcessMutex(cb, "/curator-bench/h");
            for (int i = -20; i < HANDOFFS; i++) {
                Lease la = null;
                if (curator) {
                    ma.acquire();
                } else {
                    la = a.lock("bench-h").acquire();
                }
                AtomicLong acquiredAt = new AtomicLong();
                CountDownLatch done = new CountDownLatch(1);
                Thread w = new Thread(() -> {
                    try {
                        if (curator) {
                            mb.acquire();
                            acquiredAt.set(System.nanoTime());
                            mb.release();
                        } else {
                            Lease lb = b.lock("bench-h").acquire();
                            acquiredAt.set(System.nanoTime());
                            lb.release();
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    } finally {
                        done.countDown();
                    }
                });
                w.start();
                waitQueued(curator ? ca : a.curator(), curator ? "/curator-bench/h" : a.lockPath("bench-h"));
                long released = System.nanoTime();
                if (curator) {
                    ma.release();
                } else {
                    la.release();
                }
                done.await(10, TimeUnit.SECONDS);
                if (i >= 0) {
                    t[i] = acquiredAt.get() - released;
                }
            }
        }
        return summary(t);
    }

    private static void waitQueued(CuratorFramework c, String parent) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.getChildren().forPath(parent).size() < 2 && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    private static Map<String, Object> throughput(String cs, ZooKeeperLockOptions options, boolean curator)
            throws Exception {
        List<AutoCloseable> closeables = new ArrayList<>();
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            if (curator) {
                CuratorFramework c = curator(cs);
                closeables.add(c);
                InterProcessMutex m = new InterProcessMutex(c, "/curator-bench/t");
                ops.add(() -> {
                    m.acquire();
                    m.release();
                });
            } else {
                ZooKeeperLockProvider p =
                        ZooKeeperLockProvider.builder().options(options).build();
                closeables.add(p);
                ops.add(() -> p.lock("bench-t").acquire().release());
            }
        }
        AtomicLongArray counts = new AtomicLongArray(CLIENTS);
        long end = System.nanoTime() + THROUGHPUT_RUN.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            int id = i;
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        ops.get(id).run();
                        counts.incrementAndGet(id);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        for (AutoCloseable c : closeables) {
            c.close();
        }
        long total = 0;
        for (int i = 0; i < CLIENTS; i++) {
            total += counts.get(i);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("clients", CLIENTS);
        m.put("seconds", THROUGHPUT_RUN.toSeconds());
        m.put("acquisitions", total);
        m.put("perSecond", total / (double) THROUGHPUT_RUN.toSeconds());
        return m;
    }

    @SuppressWarnings("unchecked")
    private static String toJson(Object v, String indent) {
        if (v instanceof Map) {
            StringBuilder sb = new StringBuilder("{\n");
            var it = ((Map<String, Object>) v).entrySet().iterator();
            while (it.hasNext()) {
                var e = it.next();
                sb.append(indent).append("  \"").append(e.getKey()).append("\": ");
                sb.append(toJson(e.getValue(), indent + "  "));
                sb.append(it.hasNext() ? ",\n" : "\n");
            }
            return sb.append(indent).append('}').toString();
        }
        if (v instanceof String) {
            return '"' + ((String) v).replace("\\", "\\\\").replace("\"", "\\\"") + '"';
        }
        if (v instanceof Double) {
            return String.format(Locale.ROOT, "%.1f", (Double) v);
        }
        return String.valueOf(v);
    }
}
