package io.distlock.compare.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompareMainTest {

    private static int run(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) {
        return CompareMain.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void run_memQuick_writesJsonMarkdownAndHtml(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = run(out, err, "--backends", "mem", "--quick", "--duration", "300ms", "--out", dir.toString());
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("## At a glance", "| mem |");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("mem: contended throughput");
        assertThat(Files.readString(dir.resolve("results.json")))
                .contains("\"library.jedis\"", "\"UNCONTENDED\"", "\"command\": \"./distlock compare --backends mem");
        assertThat(Files.readString(dir.resolve("report.html"))).contains("chart-handoff", "id=\"card-mem\"");
        assertThat(dir.resolve("results.md")).exists();
    }

    @Test
    void run_withDocs_recordsTheResultsAndGeneratesThePageFromThem_fromRendersItAgain(@TempDir Path dir)
            throws Exception {
        Path docs = dir.resolve("docs");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = run(
                out,
                err,
                "--backends",
                "mem",
                "--quick",
                "--scenarios",
                "uncontended,contended",
                "--duration",
                "300ms",
                "--out",
                dir.resolve("out").toString(),
                "--docs",
                docs.toString());
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();

        String recorded = Files.readString(docs.resolve(PerformancePage.RESULTS));
        assertThat(recorded).isEqualTo(Files.readString(dir.resolve("out").resolve("results.json")));
        String page = Files.readString(docs.resolve(PerformancePage.PAGE));
        assertThat(page)
                .isEqualTo(PerformancePage.render(recorded))
                .contains("one run of `./distlock compare --backends mem --quick")
                .contains("How to read each column")
                .contains("| cpus |");

        Path again = dir.resolve("again");
        assertThat(run(
                        new ByteArrayOutputStream(),
                        new ByteArrayOutputStream(),
                        "--from",
                        docs.resolve(PerformancePage.RESULTS).toString(),
                        "--docs",
                        again.toString(),
                        "--out",
                        again.toString()))
                .isZero();
        assertThat(Files.readString(again.resolve(PerformancePage.PAGE))).isEqualTo(page);
        assertThat(Files.readString(again.resolve("report.html"))).contains("id=\"card-mem\"");
    }

    @Test
    void run_unknownBackendOrOption_isUsageError() {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThatThrownBy(() -> CompareMain.run(new String[] {"--backends", "nosuch"}, sink, sink))
                .hasMessageContaining("unknown backend 'nosuch'");
        assertThatThrownBy(() -> CompareMain.run(new String[] {"--frobnicate"}, sink, sink))
                .hasMessageContaining("unknown option");
        assertThatThrownBy(() -> CompareMain.run(new String[] {"--clients", "0"}, sink, sink))
                .hasMessageContaining("--clients must be positive");
        assertThatThrownBy(() -> CompareMain.run(new String[] {"--from", "results.json"}, sink, sink))
                .hasMessageContaining("--from needs --out DIR and/or --docs DIR");
    }
}
