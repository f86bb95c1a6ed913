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

    @Test
    void run_memQuick_writesJsonMarkdownAndHtml(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = CompareMain.run(
                new String[] {"--backends", "mem", "--quick", "--duration", "300ms", "--out", dir.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("| mem |");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("mem: contended throughput");
        assertThat(Files.readString(dir.resolve("results.json"))).contains("\"library.jedis\"", "\"UNCONTENDED\"");
        assertThat(Files.readString(dir.resolve("report.html"))).contains("chart-handoff");
        assertThat(dir.resolve("results.md")).exists();
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
    }
}
