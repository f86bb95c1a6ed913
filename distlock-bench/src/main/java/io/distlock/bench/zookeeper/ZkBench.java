package io.distlock.bench.zookeeper;

import io.distlock.LockOptions;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/** What the ZooKeeper benchmarks share: how they open clients, their statistics and their JSON results. */
final class ZkBench {
    private ZkBench() {}

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
}
