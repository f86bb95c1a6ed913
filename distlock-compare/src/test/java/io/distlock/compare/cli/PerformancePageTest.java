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
                .contains("Every figure on this page comes from one run of `./distlock compare --docs docs")
                .contains(" CPUs")
                .contains("| cpu.model |");
    }

    @Test
    void render_sameResults_sameText() throws Exception {
        String recorded = Files.readString(DOCS.resolve(PerformancePage.RESULTS), StandardCharsets.UTF_8);

        assertThat(PerformancePage.render(recorded)).isEqualTo(PerformancePage.render(recorded));
    }

    /**
     * A synthetic full run with both machine modes, a 1 ms delay, a held-locks curve and existing
     * servers: the page carries every section the report has for them.
     */
    private static final String SYNTHETIC = """
            {
              "environment": {"command": "./distlock compare --docs docs --redis redis://staging:6379",
                "cpus": "2", "machine_modes.wake_up_fast_p50_us": "6.0", "machine_modes.wake_up_idle_p50_us": "55.0",
                "machine_modes.idle_above_us": "16.0", "run_prefix": "distlock-compare-20261127083046-a1b2",
                "server.redis": "existing servers staging:6379",
                "cleanup.redis": "staging:6379: removed 12 keys; none left"},
              "elapsed_s": 61,
              "settings": {"scenarios": ["CONTENDED", "RENEWAL", "UNCONTENDED"], "warmup": 20, "iterations": 200,
                "contended_clients": 4, "contended_duration_s": 1, "handoff_rounds": 30, "many_waiters": 10,
                "hold_before_release_ms": 2, "distinct_names": 100, "renewal_hold_s": 2, "renewal_locks": 5,
                "modes": ["IDLE", "FAST"], "one_way_delays_us": [0, 1000],
                "scale": {"clients": [], "held_locks": [1, 100], "waiters": [], "contended_duration_s": 0.3,
                  "hold_s": 0.5, "max_waiter_clients": 100}},
              "targets": [
                {"name": "redis", "backend": "redis", "peer": false, "server_version": "7.0", "protocol_floor_round_trips": 2},
                {"name": "redisson RLock", "backend": "redis", "peer": true, "server_version": "7.0", "protocol_floor_round_trips": 2}
              ],
              "measurements": [
                {"target": "redis", "scenario": "UNCONTENDED", "mode": "IDLE", "values": {"p50_us": 140, "floor_p50_us": 60,
                  "round_trips_per_op": 2, "wake_up_before_p50_us": 60, "wake_up_after_p50_us": 60}},
                {"target": "redis", "scenario": "UNCONTENDED", "mode": "FAST", "values": {"p50_us": 27, "floor_p50_us": 7,
                  "round_trips_per_op": 2, "wake_up_before_p50_us": 6, "wake_up_after_p50_us": 6}},
                {"target": "redisson RLock", "scenario": "UNCONTENDED", "mode": "IDLE", "values": {"p50_us": 110,
                  "floor_p50_us": 60, "round_trips_per_op": 2.8, "wake_up_before_p50_us": 60, "wake_up_after_p50_us": 60}},
                {"target": "redisson RLock", "scenario": "UNCONTENDED", "mode": "FAST", "values": {"p50_us": 75,
                  "floor_p50_us": 7, "round_trips_per_op": 2.8, "wake_up_before_p50_us": 6, "wake_up_after_p50_us": 6}},
                {"target": "redis", "scenario": "UNCONTENDED", "one_way_delay_us": 1000, "values": {"p50_us": 4300,
                  "floor_p50_us": 2100, "round_trips_per_op": 2}},
                {"target": "redisson RLock", "scenario": "UNCONTENDED", "one_way_delay_us": 1000, "values": {"p50_us": 6000,
                  "floor_p50_us": 2100, "round_trips_per_op": 2.8}},
                {"target": "redis", "scenario": "RENEWAL", "point": 1, "values": {"requests_per_s": 0.3, "connections": 2}},
                {"target": "redis", "scenario": "RENEWAL", "point": 100, "values": {"requests_per_s": 0.3, "connections": 2}},
                {"target": "redisson RLock", "scenario": "RENEWAL", "point": 1, "values": {"requests_per_s": 0.1,
                  "connections": 2}},
                {"target": "redisson RLock", "scenario": "RENEWAL", "point": 100, "values": {"requests_per_s": 10,
                  "connections": 2}}
              ]
            }
            """;

    @Test
    void render_modesDelaysScaleAndExistingServers_everySectionOnThePage() {
        String page = PerformancePage.render(SYNTHETIC);

        assertThat(page)
                .contains("The servers were the ones the command names (not started by the run)")
                .doesNotContain("Every server ran on that machine")
                .contains("## Both machine modes", "## At a distance", "## At scale")
                .contains("**Uncontended acquire+release**: 140 µs idle · 27 µs fast (p50)")
                .contains("| redis | 1.00 ms | 2100 | 2.00 | 4200 | 4300 |")
                .contains("### Distinct locks held by one client")
                .contains("- **cleanup.redis**: staging:6379: removed 12 keys; none left")
                .contains("| server.redis | existing servers staging:6379 |");
    }
}
