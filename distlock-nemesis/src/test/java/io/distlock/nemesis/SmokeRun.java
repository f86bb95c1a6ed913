package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.testing.servers.MariaDbServer;
import java.nio.file.Path;
import java.nio.file.Paths;

/** The smoke profile over some backends, with the checks every backend must pass. */
final class SmokeRun {
    private SmokeRun() {}

    /**
     * Runs the smoke profile over {@code backends} (reports in {@code target/<dir>}) and checks that each
     * backend passed, ran its baseline and every applicable fault, and that each fault found its target.
     */
    static Results.Run run(MariaDbServer db, java.util.List<String> backends, String dir, Class<?> test)
            throws Exception {
        Path out = Paths.get("target", dir);
        NemesisMain.Options o = new NemesisMain.Options(
                Profile.smoke(),
                backends,
                out,
                null,
                "./mvnw -pl distlock-nemesis -am verify (" + test.getSimpleName() + ")");

        Results.Run run = NemesisMain.run(o, db, line -> System.out.println("[nemesis] " + line));

        System.out.println(ReportWriter.matrix(run, "nemesis-results.md", o.command()));
        assertThat(run.backends()).extracting(Results.Backend::backend).containsExactlyElementsOf(backends);
        for (Results.Backend b : run.backends()) {
            assertThat(b.failures())
                    .as(b.backend() + " (see " + out.toAbsolutePath() + ")")
                    .isEmpty();
            assertThat(b.phases())
                    .as(b.backend() + ": baseline + every applicable fault")
                    .hasSizeGreaterThan(1);
            assertThat(b.phases())
                    .as(b.backend() + ": every fault found its target")
                    .noneMatch(p -> p.note().contains("no holder seen"));
            assertThat(b.phases())
                    .filteredOn(p -> p.fault().equals(FaultKind.KILL_HOLDER.id()))
                    .as(b.backend() + ": kill-holder runs, one recorded kill each")
                    .isNotEmpty()
                    .allSatisfy(p -> assertThat(p.kills()).isEqualTo(1));
        }
        String table = ReadmeSection.render(run, "docs/nemesis-results.md");
        for (String backend : backends) {
            assertThat(table).contains("| " + backend + " | [");
        }
        assertThat(out.resolve("results.json")).exists();
        assertThat(out.resolve("guarantee-matrix.md")).exists();
        return run;
    }

    /** The result of {@code backend} in {@code run}. */
    static Results.Backend backend(Results.Run run, String backend) {
        return run.backends().stream()
                .filter(b -> b.backend().equals(backend))
                .findFirst()
                .orElseThrow(() -> new AssertionError(backend + " did not run"));
    }
}
