package io.distlock.bench.zookeeper;

import io.distlock.memory.MemoryLockProvider;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperServer;
import io.distlock.zookeeper.ZooKeeperLockProvider;
import io.distlock.zookeeper.internal.ZkInternals;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Where an uncontended acquire+release spends its time on the client. In one JVM, against one
 * ZooKeeper 3.8 server process ({@code forceSync=no}), blocks of operations of each variant run in
 * rotation; for every block it records the p50 latency, the CPU time of every client thread (by
 * thread name) and the bytes the calling thread allocated, per operation. The figures printed are
 * medians over the rounds.
 *
 * <p>Variants: {@code ours} (tryAcquire + release through the provider); {@code ours_pipelined}
 * (the same with the create's multi turned off: the create and a pipelined listing); {@code
 * raw_multi} (our two requests on the raw handle: the multi of the create and the parent's setData,
 * then the delete); {@code raw3} (the pipelined path's three requests on the raw handle with no
 * library code around them: the create asynchronous, the listing synchronous right behind it, then
 * the delete); {@code raw3_listFirst} (the listing sent ahead of the create instead); {@code
 * raw3_sync} (three requests one after another, as Curator sends them); {@code raw2} (create +
 * delete, the write floor); {@code curator} (InterProcessMutex); {@code exists2} (two {@code
 * exists}, the read floor); {@code engine} (the in-JVM provider: the shared engine's own cost, no
 * I/O).
 *
 * <p>Arguments: {@code [rounds (20) [operations per block (100) [variant,variant,...]]]}. Prints a
 * report and writes the series as JSON to {@code results/ZooKeeperStageBench-<time>.json}.
 */
public final class ZooKeeperStageBench {
    private ZooKeeperStageBench() {}

    private interface Op {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        try (TestServer server = ZooKeeperServer.start();
                ZooKeeperLockProvider provider = ZooKeeperBench.provider(server.address());
                ZooKeeperLockProvider pipelined = ZooKeeperBench.provider(server.address(), "/pipelined");
                CuratorFramework raw = ZooKeeperBench.curator(server.address());
                CuratorFramework peer = ZooKeeperBench.curator(server.address());
                MemoryLockProvider memory = MemoryLockProvider.create()) {
            ZooKeeper zk = raw.getZookeeperClient().getZooKeeper();
            zk.create("/raw", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            InterProcessMutex mutex = new InterProcessMutex(peer, "/curator/probe");
            // the create with the pipelined listing
            pipelined.unwrap(ZkInternals.class).orElseThrow().disableMultiCreate();
            Map<String, Op> ops = new LinkedHashMap<>();
            ops.put(
                    "ours",
                    () -> provider.lock("probe").tryAcquire().orElseThrow().release());
            ops.put(
                    "ours_pipelined",
                    () -> pipelined.lock("probe").tryAcquire().orElseThrow().release());
            ops.put("raw_multi", () -> {
                List<OpResult> r = zk.multi(List.of(
                        org.apache.zookeeper.Op.create(
                                "/raw/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL),
                        org.apache.zookeeper.Op.setData("/raw", new byte[0], -1)));
                if (((OpResult.SetDataResult) r.get(1)).getStat().getNumChildren() != 1) {
                    throw new IllegalStateException("not alone");
                }
                zk.delete(((OpResult.CreateResult) r.get(0)).getPath(), -1);
            });
            ops.put("raw3", () -> {
                CompletableFuture<String> created = new CompletableFuture<>();
                zk.create(
                        "/raw/n-",
                        new byte[0],
                        ZooDefs.Ids.OPEN_ACL_UNSAFE,
                        CreateMode.EPHEMERAL_SEQUENTIAL,
                        (rc, p, c, name, stat) -> created.complete(name),
                        null);
                zk.getChildren("/raw", false);
                zk.delete(created.get(), -1);
            });
            ops.put("raw3_listFirst", () -> {
                CompletableFuture<List<String>> listed = new CompletableFuture<>();
                zk.getChildren("/raw", false, (rc, p, c, children, stat) -> listed.complete(children), null);
                String name =
                        zk.create("/raw/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
                listed.get();
                zk.delete(name, -1);
            });
            ops.put("raw3_sync", () -> {
                String name =
                        zk.create("/raw/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
                zk.getChildren("/raw", false);
                zk.delete(name, -1);
            });
            ops.put("raw2", () -> {
                String name =
                        zk.create("/raw/n-", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL_SEQUENTIAL);
                zk.delete(name, -1);
            });
            ops.put("curator", () -> {
                if (!mutex.acquire(0, TimeUnit.NANOSECONDS)) {
                    throw new IllegalStateException("uncontended Curator lock was not free");
                }
                mutex.release();
            });
            ops.put("exists2", () -> {
                zk.exists("/", false);
                zk.exists("/", false);
            });
            ops.put(
                    "engine",
                    () -> memory.lock("probe").tryAcquire().orElseThrow().release());
            List<String> names = new ArrayList<>(ops.keySet());
            if (args.length > 2) {
                names.retainAll(List.of(args[2].split(",")));
            }
            ZooKeeperBench.writeJson("ZooKeeperStageBench", args, run(ops, names, rounds, block));
        }
    }

    private static Map<String, List<Double>> run(Map<String, Op> ops, List<String> names, int rounds, int block)
            throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Map<String, List<Double>> p50 = new LinkedHashMap<>();
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        Map<String, List<Double>> allocated = new LinkedHashMap<>();
        Map<String, Map<String, Double>> cpuByThread = new LinkedHashMap<>();
        for (String n : names) {
            for (int i = 0; i < 200; i++) {
                ops.get(n).run(); // warm-up
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (int b = 0; b < names.size(); b++) {
                String n = names.get((b + r) % names.size());
                Op op = ops.get(n);
                long[] nanos = new long[block];
                Map<String, Long> before = cpuByThreadName(threads);
                long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < block; i++) {
                    long t0 = System.nanoTime();
                    op.run();
                    nanos[i] = System.nanoTime() - t0;
                }
                long allocatedAfter = threads.getCurrentThreadAllocatedBytes();
                Map<String, Long> after = cpuByThreadName(threads);
                Arrays.sort(nanos);
                p50.computeIfAbsent(n, k -> new ArrayList<>()).add(nanos[block / 2] / 1e3);
                allocated
                        .computeIfAbsent(n, k -> new ArrayList<>())
                        .add((allocatedAfter - allocatedBefore) / (double) block);
                double total = 0;
                Map<String, Double> byThread = cpuByThread.computeIfAbsent(n, k -> new TreeMap<>());
                for (Map.Entry<String, Long> e : after.entrySet()) {
                    double us = (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / 1e3 / block;
                    total += us;
                    byThread.merge(e.getKey(), us / rounds, Double::sum);
                }
                cpu.computeIfAbsent(n, k -> new ArrayList<>()).add(total);
            }
        }
        for (String n : names) {
            StringBuilder threadsLine = new StringBuilder();
            cpuByThread.get(n).forEach((t, us) -> {
                if (us >= 0.5) {
                    threadsLine.append(String.format(Locale.ROOT, " %s=%.0f", t, us));
                }
            });
            System.out.printf(
                    Locale.ROOT,
                    "%-15s p50 %7.1f us | client CPU %6.1f us/op (mean by thread:%s) | calling thread allocates %5.0f B/op%n",
                    n,
                    ZooKeeperBench.median(p50.get(n)),
                    ZooKeeperBench.median(cpu.get(n)),
                    threadsLine,
                    ZooKeeperBench.median(allocated.get(n)));
        }
        for (String[] pair :
                new String[][] {{"ours", "curator"}, {"ours", "raw3"}, {"ours", "raw2"}, {"raw3", "raw2"}}) {
            if (p50.containsKey(pair[0]) && p50.containsKey(pair[1])) {
                System.out.printf(
                        Locale.ROOT,
                        "%s / %s p50 (median of per-round ratios): %.2f%n",
                        pair[0],
                        pair[1],
                        ZooKeeperBench.medianRatio(p50.get(pair[0]), p50.get(pair[1]), 1));
            }
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (String n : names) {
            series.put(n + ".p50_us", p50.get(n));
            series.put(n + ".client_cpu_us_per_op", cpu.get(n));
            series.put(n + ".allocated_bytes_per_op", allocated.get(n));
        }
        return series;
    }

    /** CPU time of every live thread, summed by name with digits taken out (one entry per kind). */
    private static Map<String, Long> cpuByThreadName(com.sun.management.ThreadMXBean threads) {
        Map<String, Long> m = new HashMap<>();
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] infos = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            long ns = threads.getThreadCpuTime(ids[i]);
            if (infos[i] != null && ns > 0) {
                m.merge(kind(infos[i].getThreadName()), ns, Long::sum);
            }
        }
        return m;
    }

    private static String kind(String threadName) {
        StringBuilder sb = new StringBuilder(threadName.length());
        for (int i = 0; i < threadName.length(); i++) {
            char c = threadName.charAt(i);
            if (c < '0' || c > '9') {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
