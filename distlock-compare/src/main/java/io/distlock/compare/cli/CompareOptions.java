package io.distlock.compare.cli;

import io.distlock.compare.ComparisonSettings;
import io.distlock.compare.Scenario;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The options of {@code ./distlock compare}.
 *
 * @param settings the scenarios and their sizes
 * @param backends the backends to run, in report order
 * @param peers whether to run the peer libraries next to ours
 * @param out the output folder ({@code results.json}, {@code results.md}, {@code report.html}); null
 *     with {@code --from} when not given
 * @param docs the docs folder to write {@code performance-results.json} and {@code performance.md}
 *     to, or null
 * @param from a recorded {@code results.json} to render the reports from instead of running, or null
 * @param command the command line, for the reports
 */
record CompareOptions(
        ComparisonSettings settings,
        List<String> backends,
        boolean peers,
        Path out,
        Path docs,
        Path from,
        String command) {

    /** A mistake on the command line: the message says which option and what is allowed. */
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
                        + String.join(",", CompareMain.knownBackends().keySet()) + ")",
                "  --scenarios a,b,...  scenarios (default: all: " + names(EnumSet.allOf(Scenario.class)) + ")",
                "  --quick              a short run (CI smoke test)",
                "  --duration 4s        contended-throughput duration",
                "  --clients 8          clients in the contended scenario",
                "  --waiters 50         waiters in the many-waiters hand-off scenario",
                "  --warmup 10000       uncontended warm-up iterations per target (at most 3 s each)",
                "  --iterations 2000    uncontended iterations",
                "  --no-peers           only distlock, no peer libraries",
                "  --servers MODE       local (default: installed binaries, installed first when root),",
                "                       docker or auto (Testcontainers for Redis and etcd; see lock-testing/README.md)",
                "  --out DIR            output folder (default: results/compare-<timestamp>)",
                "  --docs DIR           also record the results as DIR/" + PerformancePage.RESULTS + " and generate",
                "                       DIR/" + PerformancePage.PAGE
                        + " from them (e.g. --docs docs, after a full run)",
                "  --from FILE          do not run: render the reports from a recorded results.json, into --out",
                "                       and/or --docs (e.g. --from docs/" + PerformancePage.RESULTS + " --docs docs)",
                "The report's safety verdicts come from DIR/nemesis-results.json with --docs, else from",
                "docs/nemesis-results.json, when that file exists.");
    }

    /**
     * The options in {@code args}, or null for {@code --help}.
     *
     * @throws UsageException naming the option that is wrong
     */
    static CompareOptions parse(String[] args) {
        ComparisonSettings settings = ComparisonSettings.defaults();
        List<String> backends = new ArrayList<>(CompareMain.knownBackends().keySet());
        boolean peers = true;
        Path out = null;
        Path docs = null;
        Path from = null;
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
                        if (!CompareMain.knownBackends().containsKey(b)) {
                            throw new UsageException("unknown backend '" + b + "'; known: "
                                    + CompareMain.knownBackends().keySet());
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
                    out = Path.of(value(args, ++i, a));
                    break;
                case "--docs":
                    docs = Path.of(value(args, ++i, a));
                    break;
                case "--from":
                    from = Path.of(value(args, ++i, a));
                    break;
                case "-h":
                case "--help":
                    return null;
                default:
                    throw new UsageException("unknown option '" + a + "'");
            }
        }
        if (from != null && out == null && docs == null) {
            throw new UsageException("--from needs --out DIR and/or --docs DIR (where to write the reports)");
        }
        if (out == null && from == null) {
            out = Path.of(
                    "results", "compare-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        return new CompareOptions(
                settings, List.copyOf(backends), peers, out, docs, from, "./distlock compare" + joined(args));
    }

    /** Where the recorded nemesis results are: next to the docs written, else in {@code docs/}. */
    Path nemesisResults() {
        return (docs == null ? Path.of("docs") : docs).resolve("nemesis-results.json");
    }

    private static String joined(String[] args) {
        StringBuilder sb = new StringBuilder();
        for (String a : args) {
            sb.append(' ').append(a);
        }
        return sb.toString();
    }

    private static String names(Set<Scenario> s) {
        List<String> l = new ArrayList<>();
        s.forEach(x -> l.add(x.name().toLowerCase(Locale.ROOT)));
        return String.join(",", l);
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
