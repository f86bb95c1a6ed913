package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * The README's guarantee table and the two generated docs are what the generator renders from the
 * committed recorded results ({@code docs/nemesis-results.json}): nobody edits them by hand. If this
 * fails, regenerate: {@code ./distlock nemesis --from docs/nemesis-results.json --docs docs --readme
 * README.md} (or run the suite again with {@code --docs docs --readme README.md}).
 */
class ReadmeSectionTest {
    private static final Path ROOT = Paths.get("..");
    private static final Path RESULTS = ROOT.resolve("docs").resolve(NemesisMain.RESULTS_JSON);
    private static final String REGENERATE =
            "regenerate with ./distlock nemesis --from docs/nemesis-results.json --docs docs --readme README.md";

    @Test
    void readme_guaranteeTable_isRenderedFromTheCommittedResults() throws Exception {
        Results.Run run = ResultsJson.read(RESULTS);
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);

        assertThat(ReadmeSection.extract(readme))
                .as("README.md's generated guarantee table; " + REGENERATE)
                .isEqualTo(ReadmeSection.render(run, "docs/nemesis-results.md"));
    }

    @Test
    void docs_matrixAndResults_areRenderedFromTheCommittedResults() throws Exception {
        Results.Run run = ResultsJson.read(RESULTS);
        Path docs = ROOT.resolve("docs");

        assertThat(Files.readString(docs.resolve("guarantee-matrix.md"), StandardCharsets.UTF_8))
                .as("docs/guarantee-matrix.md; " + REGENERATE)
                .isEqualTo(ReportWriter.matrix(run, "nemesis-results.md", run.command()));
        assertThat(Files.readString(docs.resolve("nemesis-results.md"), StandardCharsets.UTF_8))
                .as("docs/nemesis-results.md; " + REGENERATE)
                .isEqualTo(ReportWriter.results(run, run.command()));
    }

    @Test
    void recordedResults_everyBackendAndItsUnsafeCases_areInTheTable() throws Exception {
        Results.Run run = ResultsJson.read(RESULTS);
        String table = ReadmeSection.render(run, "docs/nemesis-results.md");

        assertThat(run.backends()).extracting(Results.Backend::backend).containsExactlyElementsOf(Topology.BACKENDS);
        // the unsafe cases the issue names are said plainly
        assertThat(line(table, "| redis-sentinel |")).contains("**unsafe: granted twice**", "no WAIT");
        assertThat(line(table, "| redlock |")).contains("**unsafe");
        // every cell a run backs links to that run's anchor in nemesis-results.md
        String results = ReportWriter.results(run, run.command());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\(docs/nemesis-results\\.md#([a-z0-9-]+)\\)")
                .matcher(table);
        int links = 0;
        while (m.find()) {
            links++;
            assertThat(results).contains("<a id=\"" + m.group(1) + "\"></a>");
        }
        assertThat(links).isGreaterThan(run.backends().size() * 3);
    }

    @Test
    void render_sameResults_sameText() throws Exception {
        assertThat(ReadmeSection.render(ResultsJson.read(RESULTS), "x.md"))
                .isEqualTo(ReadmeSection.render(ResultsJson.read(RESULTS), "x.md"));
    }

    @Test
    void replace_keepsEverythingOutsideTheMarkers() {
        String readme = "# title\n\n" + ReadmeSection.BEGIN + "\nold table\n" + ReadmeSection.END + "\n\nafter\n";

        String out = ReadmeSection.replace(readme, ReadmeSection.BEGIN + "\nnew\n" + ReadmeSection.END);

        assertThat(out).isEqualTo("# title\n\n" + ReadmeSection.BEGIN + "\nnew\n" + ReadmeSection.END + "\n\nafter\n");
    }

    @Test
    void replace_withoutMarkers_throwsNamingThem() {
        assertThatThrownBy(() -> ReadmeSection.replace("# no table here\n", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ReadmeSection.BEGIN)
                .hasMessageContaining(ReadmeSection.END);
    }

    private static String line(String text, String start) {
        return text.lines().filter(l -> l.startsWith(start)).findFirst().orElseThrow();
    }
}
