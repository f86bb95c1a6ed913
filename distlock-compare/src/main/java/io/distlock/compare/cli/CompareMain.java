package io.distlock.compare.cli;

import io.distlock.compare.Comparison;
import io.distlock.compare.ComparisonResult;
import io.distlock.compare.ComparisonSettings;
import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.Scenario;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code ./distlock compare}: starts every backend's server locally, runs the same scenarios through
 * distlock and its peers, prints a Markdown table and writes {@code results.json}, {@code results.md}
 * and {@code report.html} to the output folder.
 */
public final class CompareMain {

    /** Every backend the command knows, in report order. */
    static Map<String, Supplier<Backend>> knownBackends() {
        Map<String, Supplier<Backend>> m = new LinkedHashMap<>();
        m.put("mem", MemBackend::new);
        m.put("redis", RedisBackend::new);
        m.put("redlock", RedlockBackend::new);
        m.put("zookeeper", ZooKeeperBackend::new);
        m.put("etcd", EtcdBackend::new);
        m.put("mysql", MySqlBackend::new);
        m.put("postgresql", PostgresBackend::new);
        return m;
    }

    private CompareMain() {}

    public static void main(String[] args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        int code;
        try {
            code = run(args, out, err);
        } catch (UsageException e) {
            err.println("distlock compare: " + e.getMessage());
            err.println();
            err.println(usage());
            code = 2;
        }
        System.exit(code);
    }

    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    static String usage() {
        return String.join(
                "\n",
                "usage: ./distlock compare [options]",
                "  --backends a,b,...   backends to run (default: all: "
                        + String.join(",", knownBackends().keySet()) + ")",
                "  --scenarios a,b,...  scenarios (default: all: " + names(EnumSet.allOf(Scenario.class)) + ")",
                "  --quick              a short run (CI smoke test)",
                "  --duration 5s        contended-throughput duration",
                "  --clients 8          clients in the contended scenario",
                "  --waiters 50         waiters in the many-waiters hand-off scenario",
                "  --warmup 10000       uncontended warm-up iterations per target (at most 3 s each)",
                "  --iterations 2000    uncontended iterations",
                "  --no-peers           only distlock, no peer libraries",
                "  --servers MODE       local (default: installed binaries, installed first when root),",
                "                       docker or auto (Testcontainers for Redis and etcd; see lock-testing/README.md)",
                "  --out DIR            output folder (default: results/compare-<timestamp>)");
    }

    private static String names(Set<Scenario> s) {
        List<String> l = new ArrayList<>();
        s.forEach(x -> l.add(x.name().toLowerCase(Locale.ROOT)));
        return String.join(",", l);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        ComparisonSettings settings = ComparisonSettings.defaults();
        List<String> backends = new ArrayList<>(knownBackends().keySet());
        boolean peers = true;
        Path outDir = Path.of(
                "results", "compare-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick":
                    settings = ComparisonSettings.quick().withScenarios(settings.scenarios());
                    break;
                case "--no-peers":
                    peers = false;
                    break;
                case "--servers":
                    String mode = value(args, ++i, a);
                    if (!List.of("local", "docker", "auto").contains(mode)) {
                        throw new UsageException("--servers must be local, docker or auto (was '" + mode + "')");
                    }
                    System.setProperty("distlock.servers", mode);
                    break;
                case "--backends":
                    backends = List.of(value(args, ++i, a).split(","));
                    for (String b : backends) {
                        if (!knownBackends().containsKey(b)) {
                            throw new UsageException("unknown backend '" + b + "'; known: "
                                    + knownBackends().keySet());
                        }
                    }
                    break;
                case "--scenarios":
                    Set<Scenario> set = EnumSet.noneOf(Scenario.class);
                    for (String s : value(args, ++i, a).split(",")) {
                        try {
                            set.add(Scenario.valueOf(s.trim().toUpperCase(Locale.ROOT)));
                        } catch (IllegalArgumentException e) {
                            throw new UsageException("unknown scenario '" + s + "'");
                        }
                    }
                    settings = settings.withScenarios(set);
                    break;
                case "--duration":
                    settings = settings.withContendedDuration(duration(value(args, ++i, a)));
                    break;
                case "--clients":
                    settings = settings.withContendedClients(integer(value(args, ++i, a), a));
                    break;
                case "--waiters":
                    settings = settings.withManyWaiters(integer(value(args, ++i, a), a));
                    break;
                case "--warmup":
                    settings = settings.withWarmup(integer(value(args, ++i, a), a));
                    break;
                case "--iterations":
                    settings = settings.withIterations(integer(value(args, ++i, a), a));
                    break;
                case "--out":
                    outDir = Path.of(value(args, ++i, a));
                    break;
                case "-h":
                case "--help":
                    out.println(usage());
                    return 0;
                default:
                    throw new UsageException("unknown option '" + a + "'");
            }
        }

        Comparison comparison = Comparison.of(settings).progress(line -> err.println("  " + line));
        List<Backend> started = new ArrayList<>();
        Map<String, String> servers = new LinkedHashMap<>();
        int failures = 0;
        try {
            for (String b : backends) {
                Backend backend = knownBackends().get(b).get();
                err.println("starting " + b + " ...");
                try {
                    backend.start();
                } catch (Exception e) {
                    err.println("  cannot start " + b + ": " + e.getMessage());
                    backend.close();
                    failures++;
                    continue;
                }
                started.add(backend);
                servers.put("server." + b, backend.serverDescription());
                for (ComparisonTarget t : backend.targets(peers)) {
                    comparison.target(t);
                }
            }
            err.println("running " + settings.scenarios().size() + " scenarios ...");
            ComparisonResult result = comparison.run();
            result.environment().putAll(servers);
            result.environment().putAll(versions());
            write(result, outDir);
            out.println(result.toMarkdown());
            out.println("results: " + outDir.resolve("results.json") + ", " + outDir.resolve("report.html"));
            long failed = result.measurements().stream()
                    .filter(m -> m.note() != null && m.note().startsWith("failed"))
                    .count();
            return failures > 0 || failed > 0 ? 1 : 0;
        } finally {
            for (Backend b : started) {
                try {
                    b.close();
                } catch (RuntimeException e) {
                    err.println("  stopping " + b.name() + " failed: " + e);
                }
            }
        }
    }

    private static void write(ComparisonResult r, Path dir) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("results.json"), r.toJson(), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("results.md"), r.toMarkdown(), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("report.html"), r.toHtml(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write results to " + dir + ": " + e.getMessage(), e);
        }
    }

    static Map<String, String> versions() {
        Map<String, String> m = new LinkedHashMap<>();
        Properties p = new Properties();
        try (InputStream in = CompareMain.class.getResourceAsStream("/distlock-compare-versions.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException ignored) {
            // versions are informative only
        }
        p.stringPropertyNames().stream().sorted().forEach(k -> m.put("library." + k, p.getProperty(k)));
        return m;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new UsageException("option " + option + " needs a value");
        }
        return args[i];
    }

    private static int integer(String v, String option) {
        try {
            int n = Integer.parseInt(v);
            if (n <= 0) {
                throw new UsageException(option + " must be positive (was " + v + ")");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(option + " must be a number (was '" + v + "')");
        }
    }

    static Duration duration(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            }
            if (s.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
            }
            if (s.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
            }
            return Duration.ofSeconds(Long.parseLong(s));
        } catch (NumberFormatException e) {
            throw new UsageException("bad duration '" + v + "' (use 500ms, 5s or 1m)");
        }
    }
}
