package io.distlock.compare.cli;

import io.distlock.compare.Comparison;
import io.distlock.compare.ComparisonResult;
import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.SafetyVerdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * {@code ./distlock compare}: starts every backend's server locally, runs the same scenarios through
 * distlock and its peers, prints the Markdown report and writes {@code results.json}, {@code
 * results.md} and {@code report.html} to the output folder; with {@code --docs DIR}, also records the
 * results as {@code DIR/performance-results.json} and generates {@code DIR/performance.md} from them.
 * With {@code --from FILE} it runs nothing and renders the reports from a recorded {@code
 * results.json}.
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
        } catch (CompareOptions.UsageException e) {
            err.println("distlock compare: " + e.getMessage());
            err.println();
            err.println(CompareOptions.usage());
            code = 2;
        }
        System.exit(code);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        CompareOptions o = CompareOptions.parse(args);
        if (o == null) {
            out.println(CompareOptions.usage());
            return 0;
        }
        if (o.from() != null) {
            return regenerate(o, out);
        }
        Comparison comparison = Comparison.of(o.settings()).progress(line -> err.println("  " + line));
        List<Backend> started = new ArrayList<>();
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("command", o.command());
        environment.put("started", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        MachineFacts.cpuModel().ifPresent(v -> environment.put("cpu.model", v));
        MachineFacts.memoryMb().ifPresent(v -> environment.put("memory_mb", v));
        MachineFacts.loadAverage().ifPresent(v -> environment.put("load_average.start", v));
        int failures = 0;
        try {
            for (String b : o.backends()) {
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
                environment.put("server." + b, backend.serverDescription());
                for (ComparisonTarget t : backend.targets(o.peers())) {
                    comparison.target(t);
                }
            }
            err.println("running " + o.settings().scenarios().size() + " scenarios ...");
            ComparisonResult result = comparison.run();
            MachineFacts.loadAverage().ifPresent(v -> environment.put("load_average.end", v));
            result.environment().putAll(environment);
            result.environment().putAll(versions());
            write(result, o.out(), safety(o));
            out.println(result.toMarkdown());
            out.println("results: " + o.out().resolve("results.json") + ", "
                    + o.out().resolve("report.html"));
            long failed = result.measurements().stream()
                    .filter(m -> m.note() != null && m.note().startsWith("failed"))
                    .count();
            if (o.docs() != null) {
                if (failures > 0 || failed > 0) {
                    err.println("not recording the results in " + o.docs() + ": some backends or scenarios failed");
                } else {
                    writeDocs(o.out().resolve("results.json"), o.docs());
                    out.println("recorded: " + o.docs().resolve(PerformancePage.RESULTS) + ", "
                            + o.docs().resolve(PerformancePage.PAGE));
                }
            }
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

    /** {@code --from}: the reports of a recorded run, without running anything. */
    private static int regenerate(CompareOptions o, PrintStream out) {
        String recorded;
        try {
            recorded = Files.readString(o.from(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CompareOptions.UsageException("cannot read --from " + o.from() + ": " + e.getMessage());
        }
        ComparisonResult result;
        try {
            result = ComparisonResult.fromJson(recorded);
        } catch (IllegalArgumentException e) {
            throw new CompareOptions.UsageException(o.from() + " is not a results.json: " + e.getMessage());
        }
        if (o.out() != null) {
            write(result, o.out(), safety(o));
            out.println("rendered " + o.from() + " into " + o.out());
        }
        if (o.docs() != null) {
            writeDocs(o.from(), o.docs());
            out.println("rendered " + o.from() + " into " + o.docs().resolve(PerformancePage.PAGE));
        }
        return 0;
    }

    private static Map<String, SafetyVerdict> safety(CompareOptions o) {
        try {
            return SafetyVerdicts.read(o.nemesisResults());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    "cannot read the nemesis results " + o.nemesisResults() + ": " + e.getMessage(), e);
        }
    }

    private static void write(ComparisonResult r, Path dir, Map<String, SafetyVerdict> safety) {
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("results.json"), r.toJson(), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("results.md"), r.toMarkdown(), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("report.html"), r.toHtml(safety), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write results to " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void writeDocs(Path results, Path docs) {
        try {
            PerformancePage.write(results, docs);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the performance page to " + docs + ": " + e.getMessage(), e);
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
}
