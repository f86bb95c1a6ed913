package io.distlock.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/soak-results.md} is what the generator renders from the committed {@code
 * docs/soak-results.json}: nobody edits it by hand. If this fails, regenerate: {@code ./distlock
 * nemesis --from docs/soak-results.json --docs docs} (or run the soak again with {@code --docs docs}).
 */
class SoakPageTest {
    private static final Path DOCS = Paths.get("..", "docs");

    @Test
    void docs_soakPage_isRenderedFromTheCommittedResults() throws Exception {
        List<SoakResults.Recorded> recorded =
                SoakJson.read(Files.readString(DOCS.resolve(SoakCommand.JSON), StandardCharsets.UTF_8));

        assertThat(Files.readString(DOCS.resolve(SoakCommand.PAGE), StandardCharsets.UTF_8))
                .as(
                        "docs/soak-results.md; regenerate with ./distlock nemesis --from docs/soak-results.json --docs docs")
                .isEqualTo(SoakReport.page(recorded));
        // the page shows every recorded backend's row, its command and its machine
        String page = SoakReport.page(recorded);
        for (SoakResults.Recorded r : recorded) {
            assertThat(page)
                    .contains(
                            "| [" + r.result().backend() + "](#" + r.result().backend() + ") |", r.command(), r.host());
        }
    }

    @Test
    void readme_guaranteeSection_linksTheSoakPage() throws Exception {
        String readme = Files.readString(Paths.get("..", "README.md"), StandardCharsets.UTF_8);
        String section = readme.substring(readme.indexOf("## Backends and what they guarantee"));
        section = section.substring(0, section.indexOf("\n## ", 1));

        assertThat(section).contains("(docs/soak-results.md)");
    }

    @Test
    void json_writeThenRead_sameResults() {
        List<SoakResults.Recorded> recorded = List.of(recorded("etcd", "./distlock nemesis --profile soak"));

        assertThat(SoakJson.read(SoakJson.write(recorded))).isEqualTo(recorded);
    }

    @Test
    void merge_oneBackendsNewRun_replacesItsEntryAndKeepsTheOthersInBackendOrder() {
        List<SoakResults.Recorded> committed = List.of(recorded("redis", "old redis"), recorded("etcd", "old etcd"));

        List<SoakResults.Recorded> merged = SoakJson.merge(
                committed, List.of(recorded("zookeeper", "new zookeeper"), recorded("redis", "new redis")));

        assertThat(merged)
                .extracting(SoakResults.Recorded::command)
                .containsExactly("new redis", "new zookeeper", "old etcd");
    }

    @Test
    void regenerate_withMerge_addsTheRunsBackendsToTheRecordedOnes(@TempDir Path dir) throws Exception {
        Path docs = Files.createDirectories(dir.resolve("docs"));
        Files.writeString(
                docs.resolve(SoakCommand.JSON),
                SoakJson.write(List.of(recorded("redis", "old redis"), recorded("etcd", "old etcd"))));
        Path run = dir.resolve("run.json");
        Files.writeString(run, SoakJson.write(List.of(recorded("etcd", "new etcd"))));

        SoakCommand.regenerate(run, null, docs, true);

        List<SoakResults.Recorded> now = SoakJson.read(Files.readString(docs.resolve(SoakCommand.JSON)));
        assertThat(now).extracting(SoakResults.Recorded::command).containsExactly("old redis", "new etcd");
        assertThat(Files.readString(docs.resolve(SoakCommand.PAGE))).isEqualTo(SoakReport.page(now));

        SoakCommand.regenerate(run, null, docs, false);

        assertThat(SoakJson.read(Files.readString(docs.resolve(SoakCommand.JSON))))
                .extracting(SoakResults.Recorded::command)
                .as("without merge, the run replaces what was recorded")
                .containsExactly("new etcd");
    }

    @Test
    void read_nemesisResults_isRefusedNamingTheFormat() throws Exception {
        String nemesis = Files.readString(DOCS.resolve(NemesisMain.RESULTS_JSON), StandardCharsets.UTF_8);

        assertThat(SoakJson.isSoak(nemesis)).isFalse();
        assertThatThrownBy(() -> SoakJson.read(nemesis))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(SoakJson.FORMAT);
    }

    @Test
    void page_runShorterThanTheDefaultHour_saysSo() {
        String page = SoakReport.page(List.of(recorded("etcd", "x")));

        assertThat(page)
                .contains("| 20.0 min (shortened with `--duration`; the profile's default is 60 min) |")
                .contains("started 2026-11-23T10:00:00Z, 20.0 min (shortened with `--duration`");
    }

    @Test
    void page_growthAndFailures_saidPlainly() {
        SoakResults.Backend b = recorded("redis", "x").result();
        SoakResults.Backend grew = new SoakResults.Backend(
                b.backend(),
                b.topology(),
                b.fencing(),
                true,
                b.durationSeconds(),
                5,
                8,
                4,
                1000,
                10,
                0,
                10,
                0,
                0,
                0,
                0,
                2,
                "pause-holder",
                1,
                0,
                1,
                "connected_clients",
                List.of(new SoakResults.Growth("heap", "MiB", 10.0, 30.0, 12.0, true, true, "c2")),
                b.minutes(),
                b.clientSamples(),
                List.of("redis: heap grew from 10.0 to 30.0 MiB (c2)"));

        String page = SoakReport.page(List.of(new SoakResults.Recorded("cmd", "t", "machine", grew)));

        assertThat(page)
                .contains("**10.0 → 30.0: grew**", "| **FAIL** |", "heap: 10.0 → 30.0 MiB (c2), limit 12.0: **grew**");
    }

    private static SoakResults.Recorded recorded(String backend, String command) {
        SoakResults.Backend b = new SoakResults.Backend(
                backend,
                "3 servers",
                "GLOBALLY_MONOTONIC",
                true,
                1200.5,
                5,
                8,
                4,
                1000,
                1000,
                20,
                990,
                3,
                0,
                0,
                1,
                40,
                "pause-holder, kill-holder",
                12,
                3,
                10,
                "zk_num_alive_connections",
                List.of(
                        new SoakResults.Growth("heap", "MiB", 12.5, 12.7, 14.5, true, false, "c3"),
                        new SoakResults.Growth("p99 acquire", "ms", 800.0, 900.0, 880.0, false, false, "")),
                List.of(
                        new SoakResults.Minute(1, 500, 10, 495, 0, 0, 2, 812.3, "pause-holder", 12.5, 25, 6, 310.2),
                        new SoakResults.Minute(2, 500, 10, 495, 0, 0, 1, -1, "", -1, -1, -1, 311.0)),
                List.of(new SoakResults.ClientSample("c1", 0, 13_107_200, 25, 0, true)),
                List.of());
        return new SoakResults.Recorded(command, "2026-11-23T10:00:00Z", "2 cores", b);
    }
}
