package io.distlock.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The report sections on the machine modes, the network delay and the scale curves, from a synthetic
 * result: both modes side by side on the cards, the mode each run actually ran in, the latency at a
 * distance against what its round trips predict, the curves with the points a library cannot run.
 */
class ConditionsReportTest {
    private static final Duration MS = Duration.ofMillis(1);
    private static final Condition IDLE = Condition.of(MachineMode.IDLE);
    private static final Condition FAST = Condition.of(MachineMode.FAST);

    private final List<ComparisonTarget> targets = new ArrayList<>();
    private final List<Measurement> measurements = new ArrayList<>();

    private void target(String name, boolean peer) {
        ComparisonTarget t = ComparisonTarget.of(name, "redis", () -> {
                    throw new UnsupportedOperationException("synthetic");
                })
                .withFloor(() -> {}, 2);
        targets.add(peer ? t.asPeer() : t);
    }

    /** A measurement whose wake-up probe read {@code probeUs} before and after it. */
    private void add(String target, Scenario s, Condition c, double probeUs, Map<String, Double> values) {
        Map<String, Double> v = new LinkedHashMap<>(values);
        v.put(MachineModes.BEFORE, probeUs);
        v.put(MachineModes.AFTER, probeUs);
        measurements.add(new Measurement(target, s, c, v, null, null));
    }

    private ComparisonResult result() {
        target("redis", false);
        target("redisson RLock", true);
        // ours: slower than the peer in the idle mode, faster in the fast mode; its idle run found the machine busy
        add(
                "redis",
                Scenario.UNCONTENDED,
                IDLE,
                6,
                Map.of("p50_us", 140.0, "floor_p50_us", 60.0, "round_trips_per_op", 2.0));
        add(
                "redis",
                Scenario.UNCONTENDED,
                FAST,
                6,
                Map.of("p50_us", 27.0, "floor_p50_us", 7.0, "round_trips_per_op", 2.0));
        add(
                "redisson RLock",
                Scenario.UNCONTENDED,
                IDLE,
                60,
                Map.of("p50_us", 110.0, "floor_p50_us", 60.0, "round_trips_per_op", 2.8));
        add(
                "redisson RLock",
                Scenario.UNCONTENDED,
                FAST,
                6,
                Map.of("p50_us", 75.0, "floor_p50_us", 7.0, "round_trips_per_op", 2.8));
        add(
                "redis",
                Scenario.CONTENDED,
                Condition.BASE,
                60,
                Map.of("ops_per_s", 4000.0, "clients", 8.0, "fair_share_min", 0.99));
        add(
                "redisson RLock",
                Scenario.CONTENDED,
                Condition.BASE,
                60,
                Map.of("ops_per_s", 900.0, "clients", 8.0, "fair_share_min", 0.9));
        // at 1 ms each way: both take their round trips × the round trip
        Condition d = Condition.delayed(MS);
        add(
                "redis",
                Scenario.UNCONTENDED,
                d,
                60,
                Map.of(
                        "p50_us",
                        4_300.0,
                        "floor_p50_us",
                        2_100.0,
                        "round_trips_per_op",
                        2.0,
                        "delay_lateness_p50_us",
                        0.2));
        add(
                "redisson RLock",
                Scenario.UNCONTENDED,
                d,
                60,
                Map.of("p50_us", 6_000.0, "floor_p50_us", 2_100.0, "round_trips_per_op", 2.8));
        add("redis", Scenario.CONTENDED, d, 60, Map.of("ops_per_s", 340.0));
        add("redisson RLock", Scenario.CONTENDED, d, 60, Map.of("ops_per_s", 210.0));
        // held locks: ours flat, the peer's renewal traffic grows with the locks; its largest point not run
        for (int n : List.of(1, 100, 10_000)) {
            add(
                    "redis",
                    Scenario.RENEWAL,
                    Condition.point(n),
                    60,
                    Map.of(
                            "requests_per_s",
                            0.3,
                            "round_trips_per_s",
                            0.2,
                            "client_heap_mb",
                            n / 2000.0,
                            "connections",
                            2.0));
        }
        add(
                "redisson RLock",
                Scenario.RENEWAL,
                Condition.point(1),
                60,
                Map.of("requests_per_s", 0.1, "connections", 2.0));
        add(
                "redisson RLock",
                Scenario.RENEWAL,
                Condition.point(100),
                60,
                Map.of("requests_per_s", 10.0, "connections", 2.0));
        measurements.add(new Measurement(
                "redisson RLock",
                Scenario.RENEWAL,
                Condition.point(10_000),
                Map.of(),
                null,
                "not measured: too slow here"));
        Map<String, String> env = new LinkedHashMap<>();
        env.put(MachineModes.FAST_REFERENCE, "6.0");
        env.put(MachineModes.IDLE_REFERENCE, "55.0");
        env.put(MachineModes.IDLE_ABOVE, "16.0");
        env.put("run_prefix", "distlock-compare-test");
        env.put("server.redis", "redis-server 127.0.0.1:6379");
        env.put("cleanup.redis", "127.0.0.1:6379: removed 12 keys; none left");
        ComparisonSettings settings = ComparisonSettings.quick()
                .withModes(List.of(MachineMode.IDLE, MachineMode.FAST))
                .withOneWayDelays(List.of(Duration.ZERO, MS))
                .withScale(ScalePoints.NONE.withHeldLocks(List.of(1, 100, 10_000)));
        return new ComparisonResult(settings, targets, measurements, Duration.ofSeconds(42), env);
    }

    @Test
    void cards_bothModesSideBySide_eachComparedWithThePeer_andTheModeARunActuallyRanIn() {
        String md = result().toMarkdown();

        assertThat(md)
                .contains("**Uncontended acquire+release**: 140 µs idle · 27 µs fast (p50)")
                .contains("the idle-mode run ran in the fast mode (the machine was busy)")
                .contains("idle: 1.3× slower than redisson RLock")
                .contains("fast: 2.8× faster than redisson RLock");
    }

    @Test
    void modesTable_oneRowPerTargetAndMode_withTheModeItRanIn() {
        String md = result().toMarkdown();

        assertThat(md).contains("## Both machine modes", "read 6.0 µs with the core spinning and 55.0 µs");
        assertThat(md).contains("| redis | idle | fast | 60 | 140 | 1.17 |");
        assertThat(md).contains("| redisson RLock *(peer)* | idle | idle | 60 | 110 | 0.92 |");
        assertThat(md).contains("| redis | fast | fast | 7 | 27 | 1.93 |");
    }

    @Test
    void modesText_saysAtWhichPriorityTheSpinnerRan() {
        assertThat(result().toMarkdown())
                .as("a run that does not record the spinner's policy ran it at normal priority")
                .contains("at normal priority: it takes one core's time");
        ComparisonResult r = result();
        Map<String, String> env = new LinkedHashMap<>(r.environment());
        env.put(MachineModes.SPINNER_POLICY, "SCHED_IDLE");
        String md = new ComparisonResult(r.settings(), r.targets(), r.measurements(), r.elapsed(), env).toMarkdown();
        assertThat(md).contains("at Linux's lowest priority, SCHED_IDLE").doesNotContain("at normal priority");
    }

    @Test
    void distance_latencyAgainstRoundTripsTimesTheRoundTrip_andCharted() {
        ComparisonResult r = result();
        String md = r.toMarkdown();
        String html = r.toHtml();

        assertThat(md).contains("## At a distance");
        // 2 round trips × 2100 µs = 4200 µs predicted, 4300 µs taken
        assertThat(md).contains("| redis | 1.00 ms | 2100 | 2.00 | 4200 | 4300 | 1.02 | 340 | – | 0.2 |");
        assertThat(md).contains("| redis | 0 (direct) | 60 | 2.00 | 120 | 140 | 1.17 | 4000 |");
        assertThat(md)
                .contains("**Acquire+release at 1.00 ms each way**: 4.30 ms p50 (2.0 round trips of 2.10 ms;"
                        + " the server counted 2.0) — 1.4× faster than redisson RLock (2.9 round trips of 2.10 ms;"
                        + " the server counted 2.8)");
        String latency = section(html, "chart-delay-latency");
        assertThat(count(latency, "<polyline class=\"line\"")).isEqualTo(4); // measured and predicted, twice
        assertThat(section(html, "chart-delay-throughput")).contains("redisson RLock (peer)");
    }

    @Test
    void scale_pointsInATable_pointsNotRunSayWhy_andTheCardComparesAlongTheCurve() {
        ComparisonResult r = result();
        String md = r.toMarkdown();
        String html = r.toHtml();

        assertThat(md).contains("### Distinct locks held by one client");
        assertThat(md).contains("| redis | 10,000 | 0.3 | 0.2 | 5.0 | 2 |");
        assertThat(md).contains("| redisson RLock *(peer)* | 100 | 10.0 | – | – | 2 |");
        assertThat(md).contains("redisson RLock, renewal traffic at 10,000 held locks: not measured: too slow here.");
        assertThat(md)
                .contains("**Server requests/s while held at 1 / 100 / 10,000 held locks**: 0.3 / 0.3 / 0.3 —"
                        + " redisson RLock: 0.1 / 10.0 / not run");
        assertThat(md).contains("**Round trips/s while held at 1 / 100 / 10,000 held locks**: 0.2 / 0.2 / 0.2");
        // requests, round trips, heap and connections for ours; the peer has no heap or round-trip figure
        assertThat(count(section(html, "chart-scale-held-locks"), "<polyline class=\"line\""))
                .isEqualTo(6);
        assertThat(html).doesNotContain("id=\"chart-scale-clients\"");
    }

    @Test
    void servers_whatTheRunCreatedAndRemoved() {
        ComparisonResult r = result();

        assertThat(r.toMarkdown())
                .contains("named under \"distlock-compare-test\"")
                .contains("- **cleanup.redis**: 127.0.0.1:6379: removed 12 keys; none left");
        assertThat(r.toHtml()).contains("<section id=\"servers\">");
    }

    @Test
    void oldResults_withoutConditions_renderWithoutTheNewSections() {
        ComparisonResult r = new ComparisonResult(
                ComparisonSettings.quick(),
                List.of(ComparisonTarget.of("mem", "mem", () -> null)),
                List.of(new Measurement("mem", Scenario.UNCONTENDED, Map.of("p50_us", 2.0), null, null)),
                Duration.ofSeconds(1));

        assertThat(r.toMarkdown()).doesNotContain("machine mode", "## At a distance", "## At scale");
        assertThat(r.toHtml()).doesNotContain("id=\"modes\"", "id=\"delays\"", "id=\"scale\"");
    }

    private static String section(String html, String id) {
        int from = html.indexOf("id=\"" + id + "\"");
        assertThat(from).as(id).isNotNegative();
        return html.substring(from, html.indexOf("</section>", from));
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
