package io.distlock.nemesis;

import io.distlock.testing.servers.MariaDbServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * {@code ./distlock nemesis --profile soak}: runs the backends one after the other, writes {@code
 * soak-results.json} and {@code soak-results.md} (and the nemesis reports of the same runs) to the
 * output folder, and with {@code --docs DIR} merges the new backends' results into {@code
 * DIR/soak-results.json} (the others' entries stay as recorded) and renders {@code
 * DIR/soak-results.md} from it.
 */
final class SoakCommand {
    static final String JSON = "soak-results.json";
    static final String PAGE = "soak-results.md";

    private SoakCommand() {}

    /** Runs {@code o}'s backends; returns each one's recorded soak result. */
    static List<SoakResults.Recorded> run(NemesisMain.Options o, Consumer<String> log)
            throws SQLException, IOException, InterruptedException {
        log.accept("starting the guarded resource (MariaDB)");
        List<SoakResults.Recorded> recorded = new ArrayList<>();
        List<Results.Backend> checked = new ArrayList<>();
        String started = now();
        long t0 = System.nanoTime();
        try (MariaDbServer db = MariaDbServer.start()) {
            Resource resource = new Resource(db.jdbcUrl(), db.user(), db.password());
            for (String backend : o.backends()) {
                String at = now();
                String loadBefore = loadAverage();
                Nemesis n = new Nemesis(o.profile(), resource, System.getProperty("java.class.path"), o.out(), log);
                SoakResults.Backend result;
                try {
                    checked.add(n.run(backend));
                    result = n.soakResult();
                } catch (RuntimeException | SQLException e) {
                    // one backend that cannot run must not hide the others' results
                    log.accept(backend + ": the run failed: " + Results.Backend.withCauses(e));
                    checked.add(Results.Backend.failed(backend, e));
                    result = failed(backend, e);
                }
                log.accept(backend + ": " + (result.ok() ? "pass" : "FAIL " + result.failures()));
                recorded.add(new SoakResults.Recorded(
                        o.command(), at, machine() + "; load average " + loadBefore + " → " + loadAverage(), result));
            }
        }
        Results.Run run = new Results.Run(
                o.profile().name(),
                started,
                Runtime.getRuntime().availableProcessors() + " cores",
                (System.nanoTime() - t0) / 1e9,
                List.copyOf(checked),
                o.command());
        ReportWriter.write(run, o.out(), o.command());
        write(recorded, o.out());
        if (o.docs() != null) {
            Path json = o.docs().resolve(JSON);
            List<SoakResults.Recorded> before =
                    Files.exists(json) ? SoakJson.read(Files.readString(json, StandardCharsets.UTF_8)) : List.of();
            write(SoakJson.merge(before, recorded), o.docs());
        }
        return recorded;
    }

    /**
     * Renders {@code soak-results.md} (and its JSON) from {@code from} into {@code out} and {@code docs}
     * (either may be null); with {@code merge}, {@code docs} gets the results recorded there with the
     * backends of {@code from} replacing their entries.
     */
    static void regenerate(Path from, Path out, Path docs, boolean merge) throws IOException {
        List<SoakResults.Recorded> recorded = SoakJson.read(Files.readString(from, StandardCharsets.UTF_8));
        if (out != null) {
            write(recorded, out);
        }
        if (docs != null) {
            Path json = docs.resolve(JSON);
            List<SoakResults.Recorded> before = merge && Files.exists(json)
                    ? SoakJson.read(Files.readString(json, StandardCharsets.UTF_8))
                    : List.of();
            write(SoakJson.merge(before, recorded), docs);
        }
    }

    /**
     * Writes the JSON, then the page rendered from what the JSON reads back; every run judged by the
     * growth rule from its recorded samples ({@link SoakChecker#rejudged}).
     */
    private static void write(List<SoakResults.Recorded> recorded, Path dir) throws IOException {
        Files.createDirectories(dir);
        String json = SoakJson.write(recorded.stream()
                .map(r ->
                        new SoakResults.Recorded(r.command(), r.started(), r.host(), SoakChecker.rejudged(r.result())))
                .toList());
        Files.writeString(dir.resolve(JSON), json, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(PAGE), SoakReport.page(SoakJson.read(json)), StandardCharsets.UTF_8);
    }

    private static SoakResults.Backend failed(String backend, Exception e) {
        return new SoakResults.Backend(
                backend,
                "(run failed)",
                "?",
                false,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                "",
                0,
                0,
                0,
                "",
                List.of(),
                List.of(),
                List.of(),
                List.of(backend + ": the run failed: " + Results.Backend.withCauses(e)));
    }

    private static String now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /** Cores, memory and system of this machine, in one line. */
    static String machine() {
        long memKb = 0;
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    memKb = Long.parseLong(line.substring(9).replace("kB", "").trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return Runtime.getRuntime().availableProcessors() + " cores, "
                + (memKb == 0 ? "" : String.format(Locale.ROOT, "%.0f GiB, ", memKb / 1024.0 / 1024.0))
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
                + System.getProperty("java.version");
    }

    /** The 1-minute load average ({@code /proc/loadavg}), or "?". */
    private static String loadAverage() {
        try {
            return Files.readString(Paths.get("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
