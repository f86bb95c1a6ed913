package io.distlock.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TckReportExtensionTest {

    @Test
    void quote_specialCharacters_escapedPerJson() {
        assertThat(TckReportExtension.quote("a\"b\\c\nd\te\u0001f\u2028"))
                .isEqualTo("\"a\\\"b\\\\c\\nd\\te\\u0001f\\u2028\"");
        assertThat(TckReportExtension.quote("lock \uD83D\uDD12")).isEqualTo("\"lock \uD83D\uDD12\"");
        assertThat(TckReportExtension.quote("bad \uD800 x")).isEqualTo("\"bad \\ud800 x\"");
    }

    @Test
    void compareRules_numericOrder() {
        assertThat(TckReportExtension.compareRules("TCK-1.10", "TCK-1.9")).isPositive();
        assertThat(TckReportExtension.compareRules("TCK-2.1", "TCK-10.1")).isNegative();
    }

    @Test
    void report_outcomes_renderedInBothFormats() {
        List<TckReportExtension.Outcome> outcomes = List.of(
                new TckReportExtension.Outcome("TCK-1.1", "free lock", "m1", TckReportExtension.Status.PASSED, ""),
                new TckReportExtension.Outcome(
                        "TCK-3.5", "connections", "m2", TckReportExtension.Status.SKIPPED, "hook | missing"),
                new TckReportExtension.Outcome(
                        "TCK-6.1", "owner", "m3", TckReportExtension.Status.FAILED, "line1\nline2 \"q\""));

        String md = TckReportExtension.markdown("redis", "x.RedisTckIT", outcomes);
        String json = TckReportExtension.json("redis", "x.RedisTckIT", outcomes);

        assertThat(md)
                .contains("3 rules: 1 passed, 1 failed, 1 skipped")
                .contains("| TCK-3.5 | connections | skipped | hook \\| missing |")
                .contains("line1<br>line2");
        assertThat(json)
                .contains("\"backend\": \"redis\"")
                .contains("\"failed\": 1")
                .contains("\"detail\": \"line1\\nline2 \\\"q\\\"\"")
                .doesNotContain("\nline2");
    }
}
