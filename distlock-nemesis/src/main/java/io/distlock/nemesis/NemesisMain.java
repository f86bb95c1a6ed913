package io.distlock.nemesis;

import io.distlock.testing.servers.MariaDbServer;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code ./distlock nemesis}: runs the nemesis suite against every backend (or those named), writes
 * {@code results.json}, {@code nemesis-results.md} and {@code guarantee-matrix.md} to the output
 * folder (and, with {@code --docs DIR}, the two Markdown files to that folder too), and exits 1 if a
 * backend that declares fencing accepted a stale or out-of-order write or lost an update. With
 * {@code --profile soak} it runs the soak instead ({@link SoakCommand}): {@code soak-results.json} and
 * {@code soak-results.md}, merged into {@code --docs}.
 */
public final class NemesisMain {
    private NemesisMain() {}

    /**
     * Options of one run.
     *
     * @param merge with {@code docs}: merge this run's backends into the results recorded there (the
     *     other backends' rows stay as recorded) instead of replacing them
     */
    public record Options(
            Profile profile,
            List<String> backends,
            Path out,
            Path docs,
            String command,
            Path from,
            Path readme,
            boolean merge) {
        /** Options of a run (not a regeneration), without docs' README. */
        public Options(Profile profile, List<String> backends, Path out, Path docs, String command) {
            this(profile, backends, out, docs, command, null, null, false);
        }
    }

    static final String USAGE = String.join(
            "\n",
            "usage: ./distlock nemesis [--profile smoke|long|soak] [--backends b1,b2,...] [--duration 4m] [--out DIR]",
            "                          [--docs DIR [--readme FILE] [--merge]] [--from results.json]",
            "  --profile   smoke: every backend, every applicable fault once (CI); long (default): several minutes",
            "              per backend, faults every few seconds; soak: an hour per backend under sustained load",
            "              (40 lock threads in 5 client JVMs, faults throughout, heap, threads, connections and",
            "              latency sampled every minute), one backend after the other",
            "  --backends  any of " + String.join(",", Topology.BACKENDS) + " (default: all)",
            "  --duration  long and soak profiles: time per backend (default 4m; soak 60m)",
            "  --out       output folder (default results/nemesis-<time>); never commit it",
            "  --docs      also write nemesis-results.md, guarantee-matrix.md and nemesis-results.json (the",
            "              recorded results, committed) there (e.g. docs); soak: always merges the backends run into",
            "              soak-results.json there (the others' entries stay) and render soak-results.md",
            "  --readme    with --docs: rewrite the guarantee table between the generated-section markers of",
            "              this README (e.g. README.md), linking into the docs folder",
            "  --merge     with --docs: merge the backends of this run (or of --from) into the results recorded",
            "              in DIR/nemesis-results.json, keeping every other backend's row as recorded and",
            "              naming the run each row comes from; without it, --docs replaces the recorded results",
            "  --from FILE do not run: regenerate the reports from a results.json (with --docs and/or --out;",
            "              e.g. --from docs/nemesis-results.json --docs docs --readme README.md; with --merge,",
            "              e.g. --from results/nemesis-x/results.json --docs docs --readme README.md --merge), or the",
            "              soak page from soak results (--from docs/soak-results.json --docs docs; with --merge, the",
            "              backends of a soak run's results join those recorded in DIR/soak-results.json, e.g. runs",
            "              of several backends made side by side: --from results/soak-redis/soak-results.json",
            "              --docs docs --merge)");

    /** Entry point. */
    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        if (o == null) {
            System.out.println(USAGE);
            return;
        }
        if (o.from() != null
                && SoakJson.isSoak(java.nio.file.Files.readString(o.from(), java.nio.charset.StandardCharsets.UTF_8))) {
            SoakCommand.regenerate(o.from(), o.out(), o.docs(), o.merge());
            System.out.println("regenerated from " + o.from() + " into " + (o.docs() == null ? o.out() : o.docs()));
            return;
        }
        if (o.from() != null) {
            Results.Run old = ResultsJson.read(o.from());
            if (old.command().isEmpty()) {
                old = new Results.Run(
                        old.profile(),
                        old.started(),
                        old.host(),
                        old.durationSeconds(),
                        old.backends(),
                        "./distlock nemesis --profile " + old.profile());
            }
            writeReports(old, o.out(), o.docs(), o.readme(), o.merge());
            System.out.println("regenerated from " + o.from() + " into " + (o.docs() == null ? o.out() : o.docs()));
            return;
        }
        if (o.profile().soak().on()) {
            List<SoakResults.Recorded> soaks = SoakCommand.run(o, line -> System.err.println("[soak] " + line));
            boolean ok = true;
            for (SoakResults.Recorded r : soaks) {
                ok &= r.result().ok();
                System.out.println(r.result().backend() + ": "
                        + (r.result().ok()
                                ? "pass"
                                : "FAIL: " + String.join("; ", r.result().failures())));
            }
            System.out.println("results: " + o.out().toAbsolutePath().resolve(SoakCommand.PAGE));
            System.exit(ok ? 0 : 1);
            return;
        }
        Results.Run run = run(o, line -> System.err.println("[nemesis] " + line));
        System.out.println(ReportWriter.matrix(run, "nemesis-results.md", o.command()));
        for (Results.Backend b : run.backends()) {
            System.out.println(b.backend() + ": " + (b.ok() ? "pass" : "FAIL: " + String.join("; ", b.failures())));
        }
        System.out.println("results: " + o.out().toAbsolutePath());
        System.exit(run.ok() ? 0 : 1);
    }

    static Options parse(String[] args) {
        Profile profile = Profile.longRun();
        List<String> backends = Topology.BACKENDS;
        Path out = null;
        Path docs = null;
        Duration duration = null;
        Path from = null;
        Path readme = null;
        boolean merge = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                return null;
            }
            if (a.equals("--merge")) {
                merge = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--profile" -> profile = Profile.named(v);
                case "--backends" -> {
                    backends = Arrays.stream(v.split(",")).map(String::trim).toList();
                    for (String b : backends) {
                        if (!Topology.BACKENDS.contains(b)) {
                            throw new IllegalArgumentException(
                                    "--backends must name some of " + Topology.BACKENDS + " (was '" + b + "')");
                        }
                    }
                }
                case "--duration" -> duration = parseDuration(v);
                case "--out" -> out = Paths.get(v);
                case "--docs" -> docs = Paths.get(v);
                case "--from" -> from = Paths.get(v);
                case "--readme" -> readme = Paths.get(v);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (duration != null) {
            profile = profile.withPerBackend(duration);
        }
        if (readme != null && docs == null) {
            throw new IllegalArgumentException("--readme needs --docs (the README's table links into the docs)");
        }
        if (readme != null && profile.soak().on()) {
            throw new IllegalArgumentException(
                    "--readme does not apply to --profile soak (the README links docs/soak-results.md)");
        }
        if (merge && docs == null) {
            throw new IllegalArgumentException("--merge needs --docs (it merges into the results recorded there)");
        }
        if (out == null) {
            out = Paths.get(
                    "results",
                    "nemesis-"
                            + Instant.now()
                                    .truncatedTo(ChronoUnit.SECONDS)
                                    .toString()
                                    .replace(':', '-'));
        }
        String command = "./distlock nemesis --profile " + profile.name()
                + (backends.equals(Topology.BACKENDS) ? "" : " --backends " + String.join(",", backends))
                + (duration == null
                        ? ""
                        : " --duration "
                                + String.join(" ", args[Arrays.asList(args).indexOf("--duration") + 1]))
                + (docs == null ? "" : " --docs " + docs)
                + (readme == null ? "" : " --readme " + readme)
                + (merge ? " --merge" : "");
        return new Options(profile, backends, out, docs, command, from, readme, merge);
    }

    static Duration parseDuration(String v) {
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new IllegalArgumentException("--duration must look like 90s, 4m or 500ms (was '" + v + "')");
    }

    /** Runs every backend of {@code o} in sequence and writes the reports; returns the results. */
    public static Results.Run run(Options o, Consumer<String> log)
            throws SQLException, IOException, InterruptedException {
        log.accept("starting the guarded resource (MariaDB)");
        try (MariaDbServer db = MariaDbServer.start()) {
            return run(o, db, log);
        }
    }

    /** {@link #run(Options, Consumer)} with the guarded resource on {@code db}. */
    public static Results.Run run(Options o, MariaDbServer db, Consumer<String> log)
            throws SQLException, IOException, InterruptedException {
        long t0 = System.nanoTime();
        String started = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        List<Results.Backend> results = new ArrayList<>();
        Resource resource = new Resource(db.jdbcUrl(), db.user(), db.password());
        for (String backend : o.backends()) {
            Nemesis n = new Nemesis(o.profile(), resource, System.getProperty("java.class.path"), o.out(), log);
            Results.Backend r;
            try {
                r = n.run(backend);
            } catch (RuntimeException | SQLException e) {
                // one backend that cannot run must not hide the others' results
                log.accept(backend + ": the run failed: " + Results.Backend.withCauses(e));
                r = Results.Backend.failed(backend, e);
            }
            log.accept(backend + ": " + (r.ok() ? "pass" : "FAIL " + r.failures()));
            results.add(r);
        }
        Results.Run run = new Results.Run(
                o.profile().name(),
                started,
                Runtime.getRuntime().availableProcessors() + " cores",
                (System.nanoTime() - t0) / 1e9,
                List.copyOf(results),
                o.command());
        writeReports(run, o.out(), o.docs(), o.readme(), o.merge());
        return run;
    }

    /**
     * Writes the reports of {@code run} to {@code out} (if not null); if {@code docs} is not null, the
     * two Markdown files and the recorded results ({@code nemesis-results.json}) to {@code docs} —
     * {@code run}'s, or with {@code merge} the results recorded there with {@code run}'s backends
     * merged in ({@link Results#merge}); if {@code readme} is not null, its generated guarantee table
     * from the same results.
     */
    static void writeReports(Results.Run run, Path out, Path docs, Path readme, boolean merge) throws IOException {
        if (out != null) {
            ReportWriter.write(run, out, run.command());
        }
        if (docs != null && merge && java.nio.file.Files.exists(docs.resolve(RESULTS_JSON))) {
            run = Results.merge(ResultsJson.read(docs.resolve(RESULTS_JSON)), run);
        }
        String command = run.command();
        if (docs != null) {
            java.nio.file.Files.createDirectories(docs);
            java.nio.file.Files.writeString(docs.resolve("nemesis-results.md"), ReportWriter.results(run, command));
            java.nio.file.Files.writeString(
                    docs.resolve("guarantee-matrix.md"), ReportWriter.matrix(run, "nemesis-results.md", command));
            java.nio.file.Files.writeString(docs.resolve(RESULTS_JSON), ReportWriter.json(run));
        }
        if (readme != null) {
            ReadmeSection.rewrite(readme, run, resultsLink(readme, docs));
        }
    }

    /** The recorded results in the docs folder, from which the docs and the README table are generated. */
    static final String RESULTS_JSON = "nemesis-results.json";

    /** The README's link to {@code docs/nemesis-results.md}, with forward slashes. */
    static String resultsLink(Path readme, Path docs) {
        Path base = readme.toAbsolutePath().normalize().getParent();
        Path target = docs.toAbsolutePath().normalize().resolve("nemesis-results.md");
        return base.relativize(target).toString().replace(java.io.File.separatorChar, '/');
    }

    /** Runs one backend (also {@code broken}) without writing reports: for tests. */
    static Results.Backend runOne(Profile profile, String backend, MariaDbServer db, Consumer<String> log)
            throws SQLException, InterruptedException {
        Resource resource = new Resource(db.jdbcUrl(), db.user(), db.password());
        return new Nemesis(profile, resource, System.getProperty("java.class.path"), null, log).run(backend);
    }
}
