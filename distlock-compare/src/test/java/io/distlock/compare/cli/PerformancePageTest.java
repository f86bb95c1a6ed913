package io.distlock.compare.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/performance.md} is what the generator renders from the committed recorded results
 * ({@code docs/performance-results.json}): nobody edits it by hand. If this fails, render it again:
 * {@code ./distlock compare --from docs/performance-results.json --docs docs} (or record a new full
 * run with {@code ./distlock compare --docs docs}).
 */
class PerformancePageTest {
    private static final Path DOCS = Paths.get("..", "docs");

    @Test
    void docs_performancePage_isRenderedFromTheCommittedResults() throws Exception {
        String recorded = Files.readString(DOCS.resolve(PerformancePage.RESULTS), StandardCharsets.UTF_8);

        assertThat(Files.readString(DOCS.resolve(PerformancePage.PAGE), StandardCharsets.UTF_8))
                .as("docs/performance.md; render it again with ./distlock compare --from"
                        + " docs/performance-results.json --docs docs")
                .isEqualTo(PerformancePage.render(recorded));
    }

    @Test
    void docs_committedResults_areAFullRunOfEveryBackend_namingTheCommandAndTheMachine() throws Exception {
        String page = Files.readString(DOCS.resolve(PerformancePage.PAGE), StandardCharsets.UTF_8);

        for (String backend : CompareMain.knownBackends().keySet()) {
            assertThat(page).contains("### " + backend + "\n");
        }
        assertThat(page)
                .contains("Every figure on this page comes from one run of `./distlock compare --docs docs`")
                .contains(" CPUs")
                .contains("| cpu.model |");
    }

    @Test
    void render_sameResults_sameText() throws Exception {
        String recorded = Files.readString(DOCS.resolve(PerformancePage.RESULTS), StandardCharsets.UTF_8);

        assertThat(PerformancePage.render(recorded)).isEqualTo(PerformancePage.render(recorded));
    }
}
