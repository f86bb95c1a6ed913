package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --merge}: a run of some backends merged into the recorded results replaces their rows,
 * keeps every other row with the run that measured it (also through the JSON), and keeps the rows
 * in {@link Topology#BACKENDS} order.
 */
class ResultsMergeTest {
    private static final Path RESULTS = Paths.get("..", "docs", NemesisMain.RESULTS_JSON);

    private static Results.Run only(Results.Run run, String backend, String started) {
        List<Results.Backend> rows =
                run.backends().stream().filter(b -> b.backend().equals(backend)).toList();
        return new Results.Run("long", started, "2 cores", 200.0, rows, "./distlock nemesis --backends " + backend);
    }

    @Test
    void merge_aRunOfOneBackend_replacesItsRowAndNamesTheEarlierRunOfTheOthers(@TempDir Path dir) throws Exception {
        Results.Run recorded = ResultsJson.read(RESULTS);
        String last = recorded.backends().get(recorded.backends().size() - 1).backend();
        String first = recorded.backends().get(0).backend();
        Results.Run withoutFirst = new Results.Run(
                recorded.profile(),
                recorded.started(),
                recorded.host(),
                recorded.durationSeconds(),
                recorded.backends().subList(1, recorded.backends().size()),
                recorded.command());

        Results.Run merged = Results.merge(withoutFirst, only(recorded, first, "2030-01-01T00:00:00Z"));

        assertThat(merged.backends())
                .extracting(Results.Backend::backend)
                .containsExactlyElementsOf(recorded.backends().stream()
                        .map(Results.Backend::backend)
                        .toList());
        assertThat(merged.started()).isEqualTo("2030-01-01T00:00:00Z");
        assertThat(merged.earlier()).doesNotContainKey(first).containsKey(last);
        assertThat(merged.earlier().get(last).started()).isEqualTo(recorded.started());
        String readme = ReadmeSection.render(merged, "docs/nemesis-results.md");
        assertThat(readme).contains("come from the run of " + recorded.started());

        Path json = dir.resolve("merged.json");
        Files.writeString(json, ReportWriter.json(merged));
        Results.Run read = ResultsJson.read(json);
        assertThat(read.earlier()).isEqualTo(merged.earlier());
        assertThat(ReadmeSection.render(read, "docs/nemesis-results.md")).isEqualTo(readme);
    }

    @Test
    void failedRun_namesTheFailureAndEachOfItsCauses() {
        Exception e = new IllegalStateException(
                "undoing fault kill-1 failed", new RuntimeException("no leader", new java.io.IOException("refused")));

        Results.Backend b = Results.Backend.failed("etcd", e);

        assertThat(b.ok()).isFalse();
        assertThat(b.failures())
                .containsExactly("etcd: the run failed: java.lang.IllegalStateException: undoing fault kill-1 failed"
                        + "; caused by java.lang.RuntimeException: no leader"
                        + "; caused by java.io.IOException: refused");
    }
}
