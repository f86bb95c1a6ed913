package io.distlock.bench.zookeeper;

import io.distlock.LockOptions;
import io.distlock.compare.Comparison;
import io.distlock.compare.ComparisonResult;
import io.distlock.compare.ComparisonSettings;
import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.LockClient;
import io.distlock.compare.Scenario;
import io.distlock.compare.cli.peers.CuratorLockClient;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperServer;
import io.distlock.zookeeper.ZooKeeperLockOptions;
import io.distlock.zookeeper.ZooKeeperLockProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Ours against Curator's {@code InterProcessMutex} (the peer of {@code ./distlock compare}) and two floors, on one ZooKeeper 3.8 server
 * process ({@code forceSync=no}, as {@code ./distlock compare} runs it), <b>interleaved</b>: every
 * round runs ours, Curator and the floors one after another (rotating which goes first) with the
 * scenario code of {@code lock-compare} ({@link Comparison}): 500 uncontended acquire+release (the
 * {@code exists} floor interleaved in blocks of 50), 8 clients contending, hand-off with 1 and 50
 * waiters. The figures reported are medians over the rounds, so that the load of a shared machine
 * hits all of them alike.
 *
 * <p>Floors: the raw {@code exists} round trip (interleaved inside each uncontended run); a "write
 * floor", one {@code create} + one {@code delete} of an ephemeral node by the raw handle; and a
 * "hand-off floor", the time from a client's {@code delete} of a node to another client's watch
 * notification for it, plus one {@code exists} round trip, measured back to back ({@code watch.*})
 * and with the delete coming the hand-off scenario's hold time after the watch was set ({@code
 * watch_hold.*}).
 *
 * <p>Arguments: {@code [rounds (5) [contended milliseconds (2000) [requests]]]}. With {@code
 * requests} it measures only requests per contended acquisition instead (ours and Curator, twice
 * each, from the server's packet counter). Prints a report and writes the series as JSON to {@code
 * results/ZooKeeperBench-<time>.json}.
 */
public final class ZooKeeperBench {
    private ZooKeeperBench() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        Duration contended = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 2000);
        ComparisonSettings settings = ComparisonSettings.defaults()
                .withScenarios(
                        EnumSet.of(Scenario.UNCONTENDED, Scenario.CONTENDED, Scenario.HANDOFF_1, Scenario.HANDOFF_MANY))
                .withIterations(500)
                .withContendedDuration(contended)
                .withHandoffMaxDuration(Duration.ofSeconds(2));
        Map<String, List<Double>> series = new LinkedHashMap<>();
        try (TestServer server = ZooKeeperServer.start();
                CuratorFramework floor = curator(server.address())) {
            String cs = server.address();
            Runnable exists = () -> {
                try {
                    floor.checkExists().forPath("/");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            ComparisonTarget ours = ComparisonTarget.of("ours", "zookeeper", () -> LockClient.of(provider(cs)))
                    .withFloor(exists, 2);
            ComparisonTarget curator = ComparisonTarget.of(
                            "curator", "zookeeper", () -> new CuratorLockClient(cs, null, null, "/curator-peer"))
                    .withFloor(exists, 2);
            ComparisonTarget write = ComparisonTarget.of("create+delete", "zookeeper", () -> new WriteFloor(cs))
                    .withFloor(exists, 2);
            if (args.length > 2 && args[2].equals("requests")) {
                // requests per contended acquisition, from the server's packet counter
                ComparisonSettings c = settings.withScenarios(EnumSet.of(Scenario.CONTENDED));
                for (ComparisonTarget t : List.of(ours, curator, ours, curator)) {
                    long before = packets(server);
                    ComparisonResult r = Comparison.of(c).target(t).run();
                    long after = packets(server);
                    double acq = r.value(t.name(), Scenario.CONTENDED, "acquisitions");
                    double opsPerS = r.value(t.name(), Scenario.CONTENDED, "ops_per_s");
                    System.out.printf(
                            Locale.ROOT,
                            "%s contended: %.0f ops/s, %.2f requests per acquisition%n",
                            t.name(),
                            opsPerS,
                            (after - before) / acq);
                    series.computeIfAbsent(t.name() + ".contended.ops_per_s", x -> new ArrayList<>())
                            .add(opsPerS);
                    series.computeIfAbsent(t.name() + ".contended.requests_per_acquisition", x -> new ArrayList<>())
                            .add((after - before) / acq);
                }
                writeJson("ZooKeeperBench", args, series);
                return;
            }
            ComparisonSettings uncontendedOnly = settings.withScenarios(EnumSet.of(Scenario.UNCONTENDED));
            for (int r = 0; r < rounds; r++) {
                List<Runnable> blocks = new ArrayList<>();
                blocks.add(() -> record(
                        series, "ours", Comparison.of(settings).target(ours).run()));
                blocks.add(() -> record(
                        series,
                        "curator",
                        Comparison.of(settings).target(curator).run()));
                blocks.add(() -> record(
                        series,
                        "write",
                        Comparison.of(uncontendedOnly).target(write).run()));
                blocks.add(() -> watchFloor(series, "watch", cs, floor, 200, 0));
                // the same floor after the idle time the hand-off scenarios have before each release
                blocks.add(() -> watchFloor(
                        series,
                        "watch_hold",
                        cs,
                        floor,
                        200,
                        settings.holdBeforeRelease().toNanos()));
                for (int b = 0; b < blocks.size(); b++) {
                    blocks.get((b + r) % blocks.size()).run();
                }
                System.err.println("round " + (r + 1) + "/" + rounds + " done");
            }
        }
        System.out.println(report(series, rounds));
        writeJson("ZooKeeperBench", args, series);
    }

    private static long packets(TestServer server) throws java.io.IOException {
        try (java.net.Socket sock = new java.net.Socket(server.host(), server.port())) {
            sock.getOutputStream().write("mntr".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String text = new String(sock.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            for (String line : text.split("\n")) {
                if (line.startsWith("zk_packets_received")) {
                    return Long.parseLong(line.split("\\s+")[1]);
                }
            }
        }
        throw new IllegalStateException("no zk_packets_received");
    }

    private static void record(Map<String, List<Double>> series, String who, ComparisonResult r) {
        String name = r.targets().get(0).name();
        for (Scenario s :
                List.of(Scenario.UNCONTENDED, Scenario.CONTENDED, Scenario.HANDOFF_1, Scenario.HANDOFF_MANY)) {
            r.find(name, s).ifPresent(m -> {
                if (m.note() != null) {
                    System.err.println(who + " " + s + ": " + m.note());
                }
                m.values()
                        .forEach((k, v) -> series.computeIfAbsent(
                                        who + "." + s.name().toLowerCase(Locale.ROOT) + "." + k, x -> new ArrayList<>())
                                .add(v));
            });
        }
    }

    /**
     * {@code n} times: delete a watched node and time the watch notification; then one exists. With
     * {@code idleNanos > 0} the delete comes that long after the watch was set, as a hand-off's
     * release comes {@code holdBeforeRelease} after the waiter queued: on an otherwise idle machine
     * every thread of the chain (client and server) is asleep by then, which the back-to-back floor
     * ({@code idleNanos = 0}) does not pay.
     */
    private static void watchFloor(
            Map<String, List<Double>> series, String key, String cs, CuratorFramework floor, int n, long idleNanos) {
        try (CuratorFramework a = curator(cs);
                CuratorFramework b = curator(cs)) {
            ZooKeeper za = a.getZookeeperClient().getZooKeeper();
            ZooKeeper zb = b.getZookeeperClient().getZooKeeper();
            String path = "/bench-watch-" + System.nanoTime();
            long[] notify = new long[n];
            long[] rtt = new long[n];
            for (int i = -20; i < n; i++) {
                za.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                CountDownLatch fired = new CountDownLatch(1);
                AtomicLong at = new AtomicLong();
                zb.exists(path, event -> {
                    if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                        at.set(System.nanoTime());
                        fired.countDown();
                    }
                });
                if (idleNanos > 0) {
                    LockSupport.parkNanos(idleNanos);
                }
                long t0 = System.nanoTime();
                za.delete(path, -1);
                if (!fired.await(5, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no watch notification");
                }
                long t1 = System.nanoTime();
                floor.checkExists().forPath("/");
                long t2 = System.nanoTime();
                if (i >= 0) {
                    notify[i] = at.get() - t0;
                    rtt[i] = t2 - t1;
                }
            }
            series.computeIfAbsent(key + ".notify_p50_us", x -> new ArrayList<>())
                    .add(p50(notify));
            series.computeIfAbsent(key + ".exists_p50_us", x -> new ArrayList<>())
                    .add(p50(rtt));
            long[] sum = new long[n];
            for (int i = 0; i < n; i++) {
                sum[i] = notify[i] + rtt[i];
            }
            series.computeIfAbsent(key + ".notify_plus_rtt_p50_us", x -> new ArrayList<>())
                    .add(p50(sum));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Median over rounds of a per-round ratio a / b. */
    private static double ratio(Map<String, List<Double>> series, String a, String b, double bFactor) {
        return medianRatio(series.get(a), series.get(b), bFactor);
    }

    private static String report(Map<String, List<Double>> s, int rounds) {
        StringBuilder sb = new StringBuilder();
        sb.append("rounds: ").append(rounds).append('\n');
        for (String k : List.of(
                "ours.uncontended.p50_us",
                "curator.uncontended.p50_us",
                "ours.uncontended.floor_p50_us",
                "curator.uncontended.floor_p50_us",
                "write.uncontended.p50_us",
                "write.uncontended.floor_p50_us",
                "ours.contended.ops_per_s",
                "curator.contended.ops_per_s",
                "ours.contended.lost_updates",
                "curator.contended.lost_updates",
                "ours.handoff_1.p50_us",
                "curator.handoff_1.p50_us",
                "ours.handoff_many.p50_us",
                "curator.handoff_many.p50_us",
                "watch.notify_p50_us",
                "watch.exists_p50_us",
                "watch.notify_plus_rtt_p50_us",
                "watch_hold.notify_p50_us",
                "watch_hold.exists_p50_us",
                "watch_hold.notify_plus_rtt_p50_us")) {
            sb.append(String.format(
                    Locale.ROOT, "%-34s median %9.1f  rounds %s%n", k, median(s.get(k)), rounds(s.get(k))));
        }
        sb.append(String.format(
                Locale.ROOT,
                "uncontended ours / curator (median of per-round ratios): %.2f%n",
                ratio(s, "ours.uncontended.p50_us", "curator.uncontended.p50_us", 1)));
        sb.append(String.format(
                Locale.ROOT,
                "uncontended ours / (2 x exists, interleaved): %.2f%n",
                ratio(s, "ours.uncontended.p50_us", "ours.uncontended.floor_p50_us", 2)));
        sb.append(String.format(
                Locale.ROOT,
                "uncontended ours / (create + delete, same round): %.2f%n",
                ratio(s, "ours.uncontended.p50_us", "write.uncontended.p50_us", 1)));
        sb.append(String.format(
                Locale.ROOT,
                "contended ours / curator: %.2f%n",
                ratio(s, "ours.contended.ops_per_s", "curator.contended.ops_per_s", 1)));
        sb.append(String.format(
                Locale.ROOT,
                "hand-off 1 waiter ours / (notification + exists): %.2f ; ours / curator: %.2f%n",
                ratio(s, "ours.handoff_1.p50_us", "watch.notify_plus_rtt_p50_us", 1),
                ratio(s, "ours.handoff_1.p50_us", "curator.handoff_1.p50_us", 1)));
        sb.append(String.format(
                Locale.ROOT,
                "hand-off 1 waiter ours / (notification + exists, both after the scenario's hold): %.2f ;"
                        + " curator / the same: %.2f%n",
                ratio(s, "ours.handoff_1.p50_us", "watch_hold.notify_plus_rtt_p50_us", 1),
                ratio(s, "curator.handoff_1.p50_us", "watch_hold.notify_plus_rtt_p50_us", 1)));
        sb.append(String.format(
                Locale.ROOT,
                "hand-off many waiters ours / (notification + exists): %.2f ; many / 1: %.2f%n",
                ratio(s, "ours.handoff_many.p50_us", "watch.notify_plus_rtt_p50_us", 1),
                ratio(s, "ours.handoff_many.p50_us", "ours.handoff_1.p50_us", 1)));
        return sb.toString();
    }

    // ---------------------------------------------------------------- shared by the ZooKeeper benchmarks

    /** Ours with a 30 s lease (no renewal during a run), as every ZooKeeper benchmark opens it. */
    static ZooKeeperLockProvider provider(String connectString) {
        return provider(connectString, ZooKeeperLockOptions.DEFAULT_ROOT_PATH);
    }

    /** {@link #provider(String)} with its locks under {@code root}. */
    static ZooKeeperLockProvider provider(String connectString, String root) {
        return ZooKeeperLockProvider.builder()
                .connectString(connectString)
                .options(ZooKeeperLockOptions.builder().rootPath(root).build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
    }

    /** A started Curator client (30 s session), connected. */
    static CuratorFramework curator(String connectString) {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connectString, 30_000, 5_000, new RetryOneTime(50));
        c.start();
        try {
            if (!c.blockUntilConnected(10, TimeUnit.SECONDS)) {
                c.close();
                throw new IllegalStateException("cannot connect to ZooKeeper at " + connectString);
            }
        } catch (InterruptedException e) {
            c.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return c;
    }

    /** The median of {@code nanos}, in microseconds. */
    static double p50(long[] nanos) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[(int) Math.ceil(0.5 * s.length) - 1] / 1e3;
    }

    static double median(List<Double> values) {
        if (values == null || values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(values);
        s.sort(null);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    /** The median over rounds of the per-round ratio {@code a / (b * bFactor)}. */
    static double medianRatio(List<Double> a, List<Double> b, double bFactor) {
        if (a == null || b == null) {
            return Double.NaN;
        }
        List<Double> r = new ArrayList<>();
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            r.add(a.get(i) / (b.get(i) * bFactor));
        }
        return median(r);
    }

    /** The values of one series, rounded, for a report line. */
    static String rounds(List<Double> values) {
        if (values == null) {
            return "-";
        }
        StringBuilder sb = new StringBuilder();
        for (Double d : values) {
            sb.append(String.format(Locale.ROOT, "%.0f ", d));
        }
        return sb.toString().trim();
    }

    /**
     * Writes {@code results/<bench>-<time>.json} (relative to the working directory, which {@code
     * ./distlock bench} sets to the repository): the arguments and, per series, its median and
     * its value in every round. Prints and returns the file.
     */
    static Path writeJson(String bench, String[] args, Map<String, List<Double>> series) {
        StringBuilder json =
                new StringBuilder("{\n  \"bench\": ").append(quote(bench)).append(",\n  \"args\": [");
        for (int i = 0; i < args.length; i++) {
            json.append(i == 0 ? "" : ", ").append(quote(args[i]));
        }
        json.append("],\n  \"series\": {");
        int k = 0;
        for (Map.Entry<String, List<Double>> e : series.entrySet()) {
            json.append(k++ == 0 ? "\n" : ",\n")
                    .append("    ")
                    .append(quote(e.getKey()))
                    .append(": {\"median\": ")
                    .append(number(median(e.getValue())))
                    .append(", \"rounds\": [");
            List<Double> v = e.getValue();
            for (int i = 0; i < v.size(); i++) {
                json.append(i == 0 ? "" : ", ").append(number(v.get(i)));
            }
            json.append("]}");
        }
        json.append("\n  }\n}\n");
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path out = Path.of("results", bench + "-" + stamp + ".json");
        try {
            Files.createDirectories(out.getParent());
            Files.writeString(out, json, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println("results: " + out.toAbsolutePath());
        return out;
    }

    private static String number(double d) {
        return Double.isFinite(d) ? String.format(Locale.ROOT, "%.3f", d) : "null";
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** Not a lock: one synchronous create of an ephemeral node, then one delete (the write floor). */
    private static final class WriteFloor implements LockClient {
        private final CuratorFramework curator;

        WriteFloor(String cs) {
            curator = curator(cs);
        }

        @Override
        public Optional<Hold> acquire(String name, Duration maxWait) {
            try {
                ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
                String path = "/" + name;
                zk.create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
                return Optional.of(() -> {
                    try {
                        zk.delete(path, -1);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            curator.close();
        }
    }
}
