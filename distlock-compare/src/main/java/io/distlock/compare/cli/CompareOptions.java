package io.distlock.compare.cli;

import io.distlock.compare.ComparisonSettings;
import io.distlock.compare.MachineMode;
import io.distlock.compare.ScalePoints;
import io.distlock.compare.Scenario;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The options of {@code ./distlock compare}.
 *
 * @param settings the scenarios and their sizes, the machine modes, the delays and the scale curves
 * @param backends the backends to run, in report order
 * @param peers whether to run the peer libraries next to ours
 * @param out the output folder ({@code results.json}, {@code results.md}, {@code report.html}); null
 *     with {@code --from} when not given
 * @param docs the docs folder to write {@code performance-results.json} and {@code performance.md}
 *     to, or null
 * @param from a recorded {@code results.json} to render the reports from instead of running, or null
 * @param existing the user's servers by backend ({@code --redis URI}, …); a backend not in it runs
 *     on servers started here
 * @param command the command line, for the reports (passwords replaced by {@code ***})
 */
record CompareOptions(
        ComparisonSettings settings,
        List<String> backends,
        boolean peers,
        Path out,
        Path docs,
        Path from,
        Map<String, ServerAddress> existing,
        String command) {

    /** The one-way delays of a full run and of {@code --quick}: direct, and 1 ms each way. */
    static final List<Duration> DEFAULT_DELAYS = List.of(Duration.ZERO, Duration.ofMillis(1));

    /** The backends whose existing servers can be given ({@code --redis URI}, …). */
    static final List<String> EXISTING = List.of("redis", "redlock", "zookeeper", "etcd", "mysql", "postgresql");

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
                "  --modes idle,fast    machine modes of the latency and hand-off scenarios (default: both;",
                "                       --quick: idle)",
                "  --rtt 0,200us,1ms    one-way network delays (each direction: a round trip gains twice it) at",
                "                       which latency, throughput and hand-off run again through a TCP proxy per",
                "                       server; 0 is the direct run (default: 0,1ms; none to skip)",
                "  --scale a,b,...      scale curves: clients,locks,waiters, or none (default: all three; each runs",
                "                       with its scenario: contended, renewal, handoff_many)",
                "  --scale-clients 1,8,64        contending clients per point (--quick: 1,4)",
                "  --scale-locks 1,100,10000     locks held by one client per point (--quick: 1,10)",
                "  --scale-waiters 1,50,1000     waiters on one lock per point (--quick: 1,8)",
                "  --redis URI          run against existing servers instead of starting local ones:",
                "  --redlock URI        redis://[user@]host:port[/db], redlock://[user@]h1:p1,h2:p2,...,",
                "  --zookeeper URI      zookeeper://[user@]h:p,...[/chroot], etcd://[user@]h:p,...,",
                "  --etcd URI           mysql://user@host:port/database, postgresql://user@host:port/database;",
                "  --mysql URI          passwords from DISTLOCK_COMPARE_<BACKEND>_PASSWORD (and users from _USER);",
                "  --postgresql URI     everything is created under one run prefix and removed at the end;",
                "                       without --backends, only the backends given run",
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
     * The options in {@code args}, or null for {@code --help}; credentials of existing servers from
     * the process environment.
     *
     * @throws UsageException naming the option that is wrong
     */
    static CompareOptions parse(String[] args) {
        return parse(args, System.getenv());
    }

    /**
     * The options in {@code args}, or null for {@code --help}; credentials of existing servers from
     * {@code env}.
     *
     * @throws UsageException naming the option that is wrong
     */
    static CompareOptions parse(String[] args, Map<String, String> env) {
        ComparisonSettings settings =
                ComparisonSettings.defaults().withOneWayDelays(DEFAULT_DELAYS).withScale(ScalePoints.defaults());
        List<String> backends = null;
        boolean peers = true;
        List<MachineMode> modes = null;
        List<Duration> delays = null;
        Set<String> curves = null;
        Map<String, List<Integer>> points = new LinkedHashMap<>();
        Path out = null;
        Path docs = null;
        Path from = null;
        Map<String, ServerAddress> existing = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick":
                    settings = ComparisonSettings.quick()
                            .withScenarios(settings.scenarios())
                            .withOneWayDelays(DEFAULT_DELAYS)
                            .withScale(ScalePoints.quick());
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
                case "--modes":
                    modes = new ArrayList<>();
                    for (String m : value(args, ++i, a).split(",")) {
                        try {
                            MachineMode parsed = MachineMode.valueOf(m.trim().toUpperCase(Locale.ROOT));
                            if (!modes.contains(parsed)) {
                                modes.add(parsed);
                            }
                        } catch (IllegalArgumentException e) {
                            throw new UsageException("--modes takes idle and/or fast (was '" + m + "')");
                        }
                    }
                    break;
                case "--rtt":
                    delays = new ArrayList<>();
                    String rtt = value(args, ++i, a);
                    if (!rtt.equals("none")) {
                        for (String d : rtt.split(",")) {
                            Duration parsed = duration(d, a, true);
                            if (!delays.contains(parsed)) {
                                delays.add(parsed);
                            }
                        }
                    }
                    break;
                case "--scale":
                    curves = new LinkedHashSet<>();
                    String named = value(args, ++i, a);
                    if (!named.equals("none")) {
                        for (String c : named.split(",")) {
                            if (!List.of("clients", "locks", "waiters").contains(c)) {
                                throw new UsageException(
                                        "--scale takes clients, locks, waiters or none (was '" + c + "')");
                            }
                            curves.add(c);
                        }
                    }
                    break;
                case "--scale-clients":
                case "--scale-locks":
                case "--scale-waiters":
                    points.put(a.substring("--scale-".length()), integers(value(args, ++i, a), a));
                    break;
                case "--redis":
                case "--redlock":
                case "--zookeeper":
                case "--etcd":
                case "--mysql":
                case "--postgresql":
                    String backend = a.substring(2);
                    existing.put(backend, ServerAddress.parse(backend, value(args, ++i, a), env));
                    break;
                case "--duration":
                    settings = settings.withContendedDuration(duration(value(args, ++i, a), a, false));
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
        if (modes != null) {
            if (modes.isEmpty()) {
                throw new UsageException("--modes needs at least one mode");
            }
            settings = settings.withModes(modes);
        }
        if (delays != null) {
            settings = settings.withOneWayDelays(delays);
        }
        settings = settings.withScale(scale(settings.scale(), settings.scenarios(), curves, points));
        if (backends == null) {
            backends = existing.isEmpty()
                    ? new ArrayList<>(CompareMain.knownBackends().keySet())
                    : new ArrayList<>(existing.keySet());
        }
        for (String b : existing.keySet()) {
            if (!backends.contains(b)) {
                throw new UsageException("--" + b + " names servers for a backend that --backends leaves out");
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
                settings,
                List.copyOf(backends),
                peers,
                out,
                docs,
                from,
                Map.copyOf(existing),
                "./distlock compare" + joined(args));
    }

    /**
     * The scale points: the defaults (or --quick's), the points given, the curves {@code --scale} keeps
     * and whose scenario {@code --scenarios} runs (clients: contended, locks: renewal, waiters:
     * handoff_many).
     */
    private static ScalePoints scale(
            ScalePoints base, Set<Scenario> scenarios, Set<String> curves, Map<String, List<Integer>> points) {
        ScalePoints p = base;
        if (points.containsKey("clients")) {
            p = p.withClients(points.get("clients"));
        }
        if (points.containsKey("locks")) {
            p = p.withHeldLocks(points.get("locks"));
        }
        if (points.containsKey("waiters")) {
            p = p.withWaiters(points.get("waiters"));
        }
        if (curves != null) {
            p = p.withClients(curves.contains("clients") ? p.clients() : List.of())
                    .withHeldLocks(curves.contains("locks") ? p.heldLocks() : List.of())
                    .withWaiters(curves.contains("waiters") ? p.waiters() : List.of());
        }
        return p.withClients(scenarios.contains(Scenario.CONTENDED) ? p.clients() : List.of())
                .withHeldLocks(scenarios.contains(Scenario.RENEWAL) ? p.heldLocks() : List.of())
                .withWaiters(scenarios.contains(Scenario.HANDOFF_MANY) ? p.waiters() : List.of());
    }

    /** Where the recorded nemesis results are: next to the docs written, else in {@code docs/}. */
    Path nemesisResults() {
        return (docs == null ? Path.of("docs") : docs).resolve("nemesis-results.json");
    }

    /** The arguments after the command, any password in a URI replaced by {@code ***}. */
    private static String joined(String[] args) {
        StringBuilder sb = new StringBuilder();
        for (String a : args) {
            sb.append(' ').append(ServerAddress.redact(a));
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

    /** Positive, ascending integers: "1,8,64". */
    private static List<Integer> integers(String v, String option) {
        List<Integer> out = new ArrayList<>();
        for (String s : v.split(",")) {
            int n = integer(s.trim(), option);
            if (!out.isEmpty() && n <= out.get(out.size() - 1)) {
                throw new UsageException(option + " must be ascending (was '" + v + "')");
            }
            out.add(n);
        }
        return out;
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
        return duration(v, "a duration", false);
    }

    /**
     * "200us" (or "µs"), "500ms", "5s", "1m"; a bare number is seconds. Zero only if {@code
     * zeroAllowed}; {@code option} names the option in the error.
     */
    static Duration duration(String v, String option, boolean zeroAllowed) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        Duration d;
        try {
            if (s.endsWith("us") || s.endsWith("µs")) {
                d = Duration.ofNanos(Long.parseLong(s.substring(0, s.length() - 2)) * 1_000);
            } else if (s.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            } else if (s.endsWith("s")) {
                d = Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
            } else if (s.endsWith("m")) {
                d = Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
            } else {
                d = Duration.ofSeconds(Long.parseLong(s));
            }
        } catch (NumberFormatException e) {
            throw new UsageException("bad duration '" + v + "' for " + option + " (use 200us, 500ms, 5s or 1m)");
        }
        if (d.isNegative() || (d.isZero() && !zeroAllowed)) {
            throw new UsageException(
                    option + " must be " + (zeroAllowed ? "at least 0" : "positive") + " (was '" + v + "')");
        }
        return d;
    }
}
