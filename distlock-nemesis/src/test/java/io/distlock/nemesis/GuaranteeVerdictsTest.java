package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The guarantee table's verdicts as plain text, from the committed recorded results. */
class GuaranteeVerdictsTest {
    private static final Path RESULTS = Paths.get("..", "docs", NemesisMain.RESULTS_JSON);

    @Test
    void read_committedResults_oneVerdictPerBackend_inTheTablesWords_withoutMarkdown() throws Exception {
        List<GuaranteeVerdicts.Verdict> verdicts = GuaranteeVerdicts.read(RESULTS);

        assertThat(verdicts)
                .extracting(GuaranteeVerdicts.Verdict::backend)
                .containsExactlyElementsOf(Topology.BACKENDS);
        String readme = ReadmeSection.render(ResultsJson.read(RESULTS), "docs/nemesis-results.md");
        for (GuaranteeVerdicts.Verdict v : verdicts) {
            assertThat(v.faults())
                    .extracting(GuaranteeVerdicts.Fault::title)
                    .containsExactly(
                            "holder paused past its lease",
                            "holder killed (-9)",
                            "client partitioned / reset / slow",
                            "server crash, restart",
                            GuaranteeVerdicts.FAILOVER,
                            "lock's shard moved (resharding)");
            assertThat(v.fencing()).doesNotContain("**", "`", "](");
            v.faults().forEach(f -> assertThat(f.text()).doesNotContain("**", "`", "]("));
            // the same words as the README's row, less the Markdown
            String row = readme.lines()
                    .filter(l -> l.startsWith("| " + v.backend() + " |"))
                    .findFirst()
                    .orElseThrow()
                    .replace("**", "")
                    .replace("`", "");
            assertThat(row).contains(v.fencing());
            v.faults().forEach(f -> assertThat(row).contains(f.text()));
        }
        GuaranteeVerdicts.Verdict sentinel = verdicts.get(Topology.BACKENDS.indexOf("redis-sentinel"));
        assertThat(sentinel.faults().get(4).unsafe()).isTrue();
        assertThat(sentinel.faults().get(4).text()).startsWith("unsafe: granted twice");
        GuaranteeVerdicts.Verdict zk = verdicts.get(Topology.BACKENDS.indexOf("zookeeper"));
        assertThat(zk.faults()).noneMatch(GuaranteeVerdicts.Fault::unsafe);
        assertThat(zk.fencingBroken()).isFalse();
    }
}
