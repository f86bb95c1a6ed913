package io.distlock.bench.zookeeper;

import io.distlock.Lease;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperServer;
import io.distlock.zookeeper.ZooKeeperLockProvider;
import io.distlock.zookeeper.internal.ZkInternals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Where a one-waiter hand-off spends its time, against the hand-off floor (a client deletes a node
 * another client watches: time to the watch notification, plus one {@code exists}). In one JVM,
 * against one ZooKeeper 3.8 server process ({@code forceSync=no}), blocks of hand-offs of each
 * variant run in rotation; the figures printed are medians over the rounds of each block's p50.
 *
 * <p>Variants: {@code ours} (two providers handing one lock back and forth, holding it 2 ms as
 * {@code ./distlock compare} does: the holder's {@code release()} call to the waiter's {@code
 * acquire()} returning); {@code floor} (the floor as {@link ZooKeeperBench} measures it: delete
 * right after the watch is set, the notification timed on the EventThread, then one {@code exists});
 * {@code floor_hold} (the same after a 2 ms pause, with a thread waiting on a latch that the watch
 * callback opens, as a lock's waiting thread would be: the EventThread-to-thread hop timed too);
 * {@code floor_multi} (as {@code floor_hold}, the node removed by {@code multi(setData, delete)});
 * {@code floor_pause} / {@code floor_pauseN} (the 2 ms / N µs pause alone), {@code floor_waiter} (the
 * waiting thread alone); {@code delete} / {@code multi} (create then remove a node nobody watches,
 * back to back: the removal alone). For every variant it also reports the server process's CPU
 * time (all its threads, from {@code /proc/<pid>/task/<tid>/schedstat}) per operation.
 *
 * <p>Arguments: {@code [rounds (10) [hand-offs per block (100) [variant,variant,...]]]} (default
 * variants: {@code ours,floor,floor_hold,floor_multi}). Prints a report and writes the series as
 * JSON to {@code results/ZooKeeperHandoffBench-<time>.json}.
 */
public final class ZooKeeperHandoffBench {
    private static final long HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private ZooKeeperHandoffBench() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int block = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        Map<String, List<Double>> series = new LinkedHashMap<>();
        try (TestServer server = ZooKeeperServer.start();
                CuratorFramework a = ZooKeeperBench.curator(server.address());
                CuratorFramework b = ZooKeeperBench.curator(server.address());
                CuratorFramework c = ZooKeeperBench.curator(server.address())) {
            String cs = server.address();
            List<String> variants = args.length > 2
                    ? List.of(args[2].split(","))
                    : List.of("ours", "floor", "floor_hold", "floor_multi");
            for (int r = 0; r < rounds; r++) {
                for (int v = 0; v < variants.size(); v++) {
                    String variant = variants.get((v + r) % variants.size());
                    long cpu0 = serverCpuNanos(server.pid());
                    Map<String, long[]> stages = variant.equals("ours")
                            ? ours(cs, block, a)
                            : variant.equals("delete") || variant.equals("multi")
                                    ? release(a, block, variant.equals("multi"))
                                    : floor(a, b, c, block, variant);
                    long cpu = serverCpuNanos(server.pid()) - cpu0;
                    series.computeIfAbsent(variant + ".server_cpu_per_op", y -> new ArrayList<>())
                            .add(cpu / 1e3 / (block + 20));
                    stages.forEach((k, x) -> series.computeIfAbsent(variant + "." + k, y -> new ArrayList<>())
                            .add(ZooKeeperBench.p50(x)));
                }
                System.err.println("round " + (r + 1) + "/" + rounds + " done");
            }
        }
        StringBuilder sb = new StringBuilder("rounds: " + rounds + ", hand-offs per block: " + block + "\n");
        series.forEach((k, v) -> sb.append(String.format(
                Locale.ROOT,
                "%-28s median p50 %7.1f us  rounds %s%n",
                k,
                ZooKeeperBench.median(v),
                ZooKeeperBench.rounds(v))));
        System.out.println(sb);
        ZooKeeperBench.writeJson("ZooKeeperHandoffBench", args, series);
    }

    /** CPU time of every thread of process {@code pid} (from /proc/pid/task/tid/schedstat), in ns. */
    private static long serverCpuNanos(long pid) throws java.io.IOException {
        long sum = 0;
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/" + pid + "/task"))) {
            for (java.nio.file.Path t : (Iterable<java.nio.file.Path>) tasks::iterator) {
                try {
                    String line = java.nio.file.Files.readString(t.resolve("schedstat"))
                            .trim();
                    sum += Long.parseLong(line.split(" ")[0]);
                } catch (java.io.IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            }
        }
        return sum;
    }

    /** {@code n} hand-offs between two providers; per hand-off, the time from release to acquired, in nanoseconds. */
    private static Map<String, long[]> ours(String cs, int n, CuratorFramework admin) throws Exception {
        long[] total = new long[n];
        AtomicLong released = new AtomicLong();
        AtomicReference<Throwable> error = new AtomicReference<>();
        int[] done = {-20}; // the first hand-offs warm up (as many as the floors')
        Object turn = new Object();
        try (ZooKeeperLockProvider p0 = ZooKeeperBench.provider(cs);
                ZooKeeperLockProvider p1 = ZooKeeperBench.provider(cs)) {
            String lock = "handoff-probe-" + System.nanoTime();
            Lease first = p0.lock(lock).acquire();
            List<Thread> threads = new ArrayList<>();
            AtomicReference<Lease> start = new AtomicReference<>(first);
            for (ZooKeeperLockProvider p : List.of(p0, p1)) {
                boolean holderFirst = p == p0;
                Thread t = new Thread(
                        () -> {
                            try {
                                Lease held = holderFirst ? start.get() : null;
                                while (true) {
                                    if (held == null) {
                                        Optional<Lease> got = p.lock(lock).tryAcquire(Duration.ofSeconds(10));
                                        long at = System.nanoTime();
                                        held = got.orElseThrow(() -> new IllegalStateException("no hand-off"));
                                        LockSupport.parkNanos(HOLD_NANOS);
                                        synchronized (turn) {
                                            int i = done[0]++;
                                            if (i >= 0 && i < n) {
                                                total[i] = at - released.get();
                                            }
                                            if (done[0] > n) {
                                                held.release();
                                                return;
                                            }
                                        }
                                    } else {
                                        LockSupport.parkNanos(HOLD_NANOS);
                                    }
                                    released.set(System.nanoTime());
                                    held.release();
                                    held = null;
                                }
                            } catch (Throwable e) {
                                error.compareAndSet(null, e);
                            }
                        },
                        "handoff-probe-" + (holderFirst ? 0 : 1));
                threads.add(t);
            }
            // the waiter queues first
            threads.get(1).start();
            String parent = p0.unwrap(ZkInternals.class).orElseThrow().lockPath(lock);
            while (admin.getChildren().forPath(parent).size() < 2) {
                LockSupport.parkNanos(100_000);
            }
            threads.get(0).start();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(60));
                if (t.isAlive()) {
                    t.interrupt();
                    t.join();
                }
            }
        }
        if (error.get() != null) {
            throw new IllegalStateException(error.get());
        }
        return Map.of("total", total);
    }

    /**
     * {@code n} times: create an ephemeral node, then remove it by {@code delete} or by {@code
     * multi(setData, delete)}, back to back, nobody watching; the removal is timed.
     */
    private static Map<String, long[]> release(CuratorFramework a, int n, boolean multi) throws Exception {
        ZooKeeper za = a.getZookeeperClient().getZooKeeper();
        String path = "/probe-release-" + System.nanoTime();
        long[] removal = new long[n];
        for (int i = -20; i < n; i++) {
            za.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            long t0 = System.nanoTime();
            remove(za, path, multi);
            long t1 = System.nanoTime();
            if (i >= 0) {
                removal[i] = t1 - t0;
            }
        }
        return Map.of("removal", removal);
    }

    /** {@code n} times: delete (or multi) a node another client watches; time the stages. */
    private static Map<String, long[]> floor(
            CuratorFramework a, CuratorFramework b, CuratorFramework c, int n, String variant) throws Exception {
        // floor: no pause, no waiting thread; floor_hold: 2 ms pause and a waiting thread;
        // floor_multi: as floor_hold with multi(setData, delete); floor_pause: the pause alone;
        // floor_waiter: the waiting thread alone; floor_pauseN: a pause of N microseconds alone
        boolean multi = variant.equals("floor_multi");
        boolean hold = variant.equals("floor_hold") || multi || variant.equals("floor_waiter");
        long pause = variant.equals("floor_hold") || multi || variant.equals("floor_pause")
                ? HOLD_NANOS
                : variant.startsWith("floor_pause")
                        ? TimeUnit.MICROSECONDS.toNanos(Long.parseLong(variant.substring("floor_pause".length())))
                        : 0;
        ZooKeeper za = a.getZookeeperClient().getZooKeeper();
        ZooKeeper zb = b.getZookeeperClient().getZooKeeper();
        ZooKeeper zc = c.getZookeeperClient().getZooKeeper();
        String path = "/probe-watch-" + System.nanoTime();
        long[] sendToReply = new long[n];
        long[] sendToEvent = new long[n];
        long[] eventToWake = new long[n];
        long[] exists = new long[n];
        long[] total = new long[n];
        SynchronousQueue<CountDownLatch[]> toWaiter = new SynchronousQueue<>();
        AtomicLong woke = new AtomicLong();
        Thread waiter = new Thread(
                () -> {
                    try {
                        while (true) {
                            CountDownLatch[] l = toWaiter.take();
                            l[0].await();
                            woke.set(System.nanoTime());
                            l[1].countDown();
                        }
                    } catch (InterruptedException e) {
                        // done
                    }
                },
                "handoff-probe-floor-waiter");
        waiter.start();
        try {
            for (int i = -20; i < n; i++) {
                za.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                CountDownLatch fired = new CountDownLatch(1);
                CountDownLatch awake = new CountDownLatch(1);
                AtomicLong at = new AtomicLong();
                zb.exists(path, event -> {
                    if (event.getType() == Watcher.Event.EventType.NodeDeleted
                            || event.getType() == Watcher.Event.EventType.NodeDataChanged) {
                        at.set(System.nanoTime());
                        fired.countDown();
                    }
                });
                if (hold) {
                    toWaiter.put(new CountDownLatch[] {fired, awake});
                }
                if (pause > 0) {
                    LockSupport.parkNanos(pause);
                }
                long t0 = System.nanoTime();
                remove(za, path, multi);
                long t1 = System.nanoTime();
                if (!fired.await(5, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no watch notification");
                }
                if (hold && !awake.await(5, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("waiter not woken");
                }
                long t2 = System.nanoTime();
                zc.exists("/", false);
                long t3 = System.nanoTime();
                if (i >= 0) {
                    sendToReply[i] = t1 - t0;
                    sendToEvent[i] = at.get() - t0;
                    eventToWake[i] = hold ? woke.get() - at.get() : 0;
                    exists[i] = t3 - t2;
                    total[i] = sendToEvent[i] + exists[i];
                }
            }
        } finally {
            waiter.interrupt();
            waiter.join();
        }
        Map<String, long[]> m = new LinkedHashMap<>();
        m.put("send_to_reply", sendToReply);
        m.put("send_to_event", sendToEvent);
        if (hold) {
            m.put("event_to_wake", eventToWake);
        }
        m.put("exists", exists);
        m.put("notify_plus_exists", total);
        return m;
    }

    /** Removes {@code path} as a release does: {@code multi(setData, delete)}, or a plain delete. */
    private static void remove(ZooKeeper za, String path, boolean multi) throws Exception {
        if (multi) {
            za.multi(List.of(Op.setData(path, new byte[0], -1), Op.delete(path, -1)));
        } else {
            za.delete(path, -1);
        }
    }
}
