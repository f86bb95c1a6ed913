package io.distlock.compare;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.memory.MemoryLockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The report's first section, from a synthetic result: one card per backend, ratios in words, fairness. */
class AtAGlanceTest {

    private static final List<Measurement> MEASUREMENTS = new ArrayList<>();
    private static final List<ComparisonTarget> TARGETS = new ArrayList<>();

    /** A target with the figures the cards read: uncontended p50, throughput, fairness, hand-offs, round trips. */
    private static void target(
            String name, String backend, boolean peer, double p50, double ops, double fair, double handoff, double rt) {
        ComparisonTarget t = ComparisonTarget.of(name, backend, () -> {
                    throw new UnsupportedOperationException("synthetic");
                })
                .withFloor(() -> {}, 2)
                .withCapabilities(peer ? null : MemoryLockProvider.create().capabilities());
        TARGETS.add(peer ? t.asPeer() : t);
        MEASUREMENTS.add(new Measurement(
                name,
                Scenario.UNCONTENDED,
                Map.of("p50_us", p50, "p99_us", 3 * p50, "round_trips_per_op", rt, "floor_p50_us", 20.0),
                List.of(p50, p50, 2 * p50),
                null));
        MEASUREMENTS.add(new Measurement(
                name,
                Scenario.CONTENDED,
                Map.of("ops_per_s", ops, "clients", 8.0, "fair_share_min", fair, "lost_updates", 0.0),
                null,
                null));
        MEASUREMENTS.add(new Measurement(name, Scenario.HANDOFF_1, Map.of("p50_us", handoff), null, null));
        MEASUREMENTS.add(new Measurement(name, Scenario.HANDOFF_MANY, Map.of("p50_us", 2 * handoff), null, null));
    }

    static {
        target("mem", "mem", false, 2, 1_000_000, 0.9, 30, 2);
        target("redis", "redis", false, 100, 3_600, 0.99, 200, 2);
        target("redisson RLock", "redis", true, 260, 700, 0.92, 700, 2.9);
        // the usual unfair one: the most acquisitions, because one client keeps winning
        target("SETNX + 1 s sleep", "redis", true, 55, 5_000, 0.0, 998_000, 2);
        target("redlock", "redlock", false, 400, 350, 0.9, 1_100, 2);
        target("redisson RedissonRedLock", "redlock", true, 1_800, 290, 0.82, 1_700, 3);
        target("zookeeper", "zookeeper", false, 800, 1_270, 1.0, 550, 2);
        target("curator InterProcessMutex", "zookeeper", true, 1_000, 800, 1.0, 950, 3);
        target("etcd", "etcd", false, 900, 480, 1.0, 800, 2);
        target("jetcd Lock", "etcd", true, 880, 80, 1.0, 98_000, 2);
        target("mysql", "mysql", false, 500, 1_160, 0.98, 880, 3);
        target("spring-integration JdbcLockRegistry", "mysql", true, 1_560, 800, 0.69, 100_000, 12);
    }

    private static ComparisonResult result() {
        return new ComparisonResult(
                ComparisonSettings.quick(), List.copyOf(TARGETS), List.copyOf(MEASUREMENTS), Duration.ofSeconds(42));
    }

    @Test
    void html_oneCardPerBackend_inRunOrder_beforeTheCharts() {
        String html = result().toHtml();

        List<String> cards = all(html, "<article class=\"card\" id=\"card-([a-z]+)\"");
        assertThat(cards).containsExactly("mem", "redis", "redlock", "zookeeper", "etcd", "mysql");
        assertThat(html.indexOf("id=\"at-a-glance\""))
                .isPositive()
                .isLessThan(html.indexOf("id=\"chart-uncontended\""))
                .isLessThan(html.indexOf("id=\"summary\""))
                .isLessThan(html.indexOf("id=\"environment\""));
        assertThat(card(html, "mem")).contains("distlock alone");
    }

    @Test
    void html_cards_sayEachRatioInWords_againstThePeerOnTheSameServer() {
        String html = result().toHtml();

        assertThat(card(html, "redis"))
                .contains("distlock against redisson RLock and SETNX + 1 s sleep on the same server")
                .contains("<li class=\"better\">2.6× faster than redisson RLock</li>") // 260 ÷ 100 µs
                .contains("<li class=\"worse\">1.8× slower than SETNX + 1 s sleep</li>") // 100 ÷ 55 µs
                .contains("<li class=\"better\">5.1× faster than redisson RLock</li>") // 3600 ÷ 700 acquisitions/s
                .contains("<li class=\"better\">1.5× fewer round trips than redisson RLock</li>")
                .contains("<li class=\"same\">as many round trips as SETNX + 1 s sleep</li>");
        assertThat(card(html, "etcd")).contains("<li class=\"same\">as fast as jetcd Lock</li>"); // 880 vs 900 µs
        assertThat(card(html, "mysql")).contains("4.0× fewer round trips than spring-integration JdbcLockRegistry");
    }

    @Test
    void html_unfairTarget_markedAndNeverRankedFirst() {
        ComparisonResult r = result();
        String html = r.toHtml();

        // SETNX + sleep has the most acquisitions on the Redis server, but its slowest client got none
        List<AtAGlance.Ranked> ranking = AtAGlance.ranking(r, "redis");
        assertThat(ranking)
                .extracting(x -> x.target().name())
                .containsExactly("redis", "redisson RLock", "SETNX + 1 s sleep");
        assertThat(ranking).extracting(AtAGlance.Ranked::rank).containsExactly(1, 2, 0);
        assertThat(card(html, "redis"))
                .contains("the fastest fair target on this server")
                .contains("<li class=\"same\">1.4× slower than SETNX + 1 s sleep, which is unfair (its slowest"
                        + " client got 0 % of an equal share) and not ranked</li>");
        // in the chart: hatched and labelled, without a rank; the fair ones carry theirs
        String chart = html.substring(html.indexOf("id=\"chart-throughput\""), html.indexOf("id=\"chart-handoff\""));
        assertThat(chart)
                .contains("data-unfair=\"true\"")
                .contains("5000/s  unfair (slowest client 0 %): not ranked")
                .contains("3600/s  #1")
                .contains("700/s  #2")
                .contains("hatched: unfair, not ranked");
        assertThat(all(chart, "data-unfair=\"true\"")).hasSize(1);
    }

    @Test
    void html_safetyVerdict_fromTheGivenVerdicts_elseNotMeasured() {
        String html = result().toHtml(Map.of(
                "redis",
                new SafetyVerdict(
                        "granted twice under: server crash, restart",
                        true,
                        List.of("fencing: held — 0 of 5881 accepted writes out of token order"))));

        assertThat(card(html, "redis"))
                .contains("<dd class=\"safety unsafe\"><strong>granted twice under: server crash, restart</strong>")
                .contains("<li>fencing: held — 0 of 5881 accepted writes out of token order</li>");
        assertThat(card(html, "etcd")).contains("<dd class=\"safety unknown\">not measured</dd>");
    }

    @Test
    void html_scenarioOfOursFailed_cardSaysSoInsteadOfLeavingTheFigureOut() {
        List<Measurement> measurements = new ArrayList<>(MEASUREMENTS);
        measurements.removeIf(m -> m.target().equals("redlock") && m.scenario() == Scenario.UNCONTENDED);
        measurements.add(new Measurement(
                "redlock",
                Scenario.UNCONTENDED,
                Map.of(),
                null,
                "failed: java.lang.IllegalStateException: uncontended lock was not free"));
        ComparisonResult r = new ComparisonResult(
                ComparisonSettings.quick(), List.copyOf(TARGETS), measurements, Duration.ofSeconds(42));

        assertThat(card(r.toHtml(), "redlock"))
                .contains("<dt>Uncontended acquire+release</dt><dd><span class=\"fig\">no figure</span><br><span"
                        + " class=\"worse\">failed: java.lang.IllegalStateException: uncontended lock was not free")
                .contains("<dt>Round trips per acquire+release</dt><dd><span class=\"fig\">no figure</span>")
                .contains("<li class=\"better\">1.2× faster than redisson RedissonRedLock</li>"); // throughput
    }

    @Test
    void markdown_atAGlance_sameWordsAsTheCards() {
        String md = result().toMarkdown();

        assertThat(md.indexOf("## At a glance")).isZero();
        assertThat(md)
                .contains("### redis\n\ndistlock's `redis` against `redisson RLock`, `SETNX + 1 s sleep` on the same"
                        + " server.")
                .contains("- **Uncontended acquire+release**: 100 µs p50 — 2.6× faster than redisson RLock; 1.8×"
                        + " slower than SETNX + 1 s sleep")
                .contains("## Every figure\n\n| target | floor p50 µs |")
                .contains("- **fair share min**: ");
    }

    @Test
    void fromJson_recordedResult_rendersTheSameReports() {
        ComparisonResult r = result();
        ComparisonResult back = ComparisonResult.fromJson(r.toJson());

        assertThat(back.toJson()).isEqualTo(r.toJson());
        assertThat(back.toMarkdown()).isEqualTo(r.toMarkdown());
        assertThat(back.toHtml()).isEqualTo(r.toHtml());
    }

    private static String card(String html, String backend) {
        int from = html.indexOf("<article class=\"card\" id=\"card-" + backend + "\"");
        assertThat(from).as("card of " + backend).isNotNegative();
        return html.substring(from, html.indexOf("</article>", from));
    }

    private static List<String> all(String text, String regex) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            out.add(m.groupCount() > 0 ? m.group(1) : m.group());
        }
        return out;
    }
}
