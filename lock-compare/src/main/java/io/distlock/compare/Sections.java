package io.distlock.compare;

import static io.distlock.compare.Html.esc;

import java.util.Map;

/**
 * The report sections on the machine modes, the network delays, the scale curves and the servers,
 * in HTML and in Markdown: a section appears when the run measured what it shows.
 */
final class Sections {
    private Sections() {}

    static void html(ComparisonResult r, StringBuilder sb) {
        if (ModesReport.any(r)) {
            sb.append("<section id=\"modes\"><h2>")
                    .append(esc(ModesReport.title(r)))
                    .append("</h2>\n<p>")
                    .append(esc(ModesReport.explanation(r)))
                    .append("</p>\n");
            sb.append(HtmlReport.chart(
                    "chart-modes",
                    "Uncontended acquire+release p50 in each machine mode; each backend on its own scale",
                    ModesReport.chart(r)));
            sb.append(ModesReport.table(r).html("modes-table")).append("</section>\n");
        }
        if (DelayReport.any(r)) {
            sb.append("<section id=\"delays\"><h2>At a distance</h2>\n<p>")
                    .append(esc(DelayReport.explanation(r)))
                    .append("</p>\n");
            sb.append(HtmlReport.chart(
                    "chart-delay-latency",
                    "Acquire+release p50 against the one-way delay; dashed: the round trips it took × the round trip",
                    DelayReport.latencyChart(r)));
            sb.append(HtmlReport.chart(
                    "chart-delay-throughput",
                    "Contended throughput against the one-way delay (log scale)",
                    DelayReport.throughputChart(r)));
            sb.append(DelayReport.table(r).html("delays-table")).append("</section>\n");
        }
        boolean scale = ScaleReport.CURVES.stream().anyMatch(c -> ScaleReport.any(r, c));
        if (scale) {
            sb.append("<section id=\"scale\"><h2>At scale</h2>\n<p>")
                    .append(esc(ScaleReport.explanation(r)))
                    .append("</p>\n");
            for (ScaleReport.Curve c : ScaleReport.CURVES) {
                if (!ScaleReport.any(r, c)) {
                    continue;
                }
                String id = "chart-scale-" + c.unit().replace(' ', '-');
                StringBuilder charts = new StringBuilder();
                for (ScaleReport.Figure f : ScaleReport.charted(r, c)) {
                    charts.append("<h4>").append(esc(f.header())).append("</h4>\n");
                    charts.append(ScaleReport.chart(r, c, f));
                }
                sb.append(HtmlReport.chart(id, c.title(), charts.toString()));
                sb.append(ScaleReport.table(r, c).html("scale-" + c.unit().replace(' ', '-') + "-table"));
            }
            sb.append("</section>\n");
        }
    }

    static void markdown(ComparisonResult r, StringBuilder sb) {
        if (ModesReport.any(r)) {
            sb.append("## ")
                    .append(ModesReport.title(r))
                    .append("\n\n")
                    .append(ModesReport.explanation(r))
                    .append("\n\n")
                    .append(ModesReport.table(r).markdown())
                    .append('\n');
        }
        if (DelayReport.any(r)) {
            sb.append("## At a distance\n\n")
                    .append(DelayReport.explanation(r))
                    .append("\n\n")
                    .append(DelayReport.table(r).markdown())
                    .append('\n');
        }
        if (ScaleReport.CURVES.stream().anyMatch(c -> ScaleReport.any(r, c))) {
            sb.append("## At scale\n\n").append(ScaleReport.explanation(r)).append("\n\n");
            for (ScaleReport.Curve c : ScaleReport.CURVES) {
                if (ScaleReport.any(r, c)) {
                    sb.append("### ")
                            .append(c.title())
                            .append("\n\n")
                            .append(ScaleReport.table(r, c).markdown())
                            .append('\n');
                }
            }
        }
    }

    /** Where the servers were and what the run left on them: the {@code server.*} and {@code cleanup.*} facts. */
    static void servers(ComparisonResult r, StringBuilder sb) {
        Map<String, String> env = r.environment();
        if (env.keySet().stream().noneMatch(k -> k.startsWith("cleanup."))) {
            return; // a run that cleaned nothing up: its servers are in the environment table
        }
        sb.append("<section id=\"servers\"><h2>Servers, and what the run left on them</h2>\n<p>")
                .append(esc(serversLead(env)))
                .append("</p><table>");
        env.forEach((k, v) -> {
            if (k.startsWith("server.") || k.startsWith("cleanup.")) {
                sb.append("<tr><td>")
                        .append(esc(k))
                        .append("</td><td>")
                        .append(esc(v))
                        .append("</td></tr>");
            }
        });
        sb.append("</table></section>\n");
    }

    static void serversMarkdown(ComparisonResult r, StringBuilder sb) {
        Map<String, String> env = r.environment();
        if (env.keySet().stream().noneMatch(k -> k.startsWith("cleanup."))) {
            return; // a run that cleaned nothing up: its servers are in the environment table
        }
        sb.append("\n## Servers, and what the run left on them\n\n")
                .append(serversLead(env))
                .append("\n\n");
        env.forEach((k, v) -> {
            if (k.startsWith("server.") || k.startsWith("cleanup.")) {
                sb.append("- **").append(k).append("**: ").append(v).append('\n');
            }
        });
    }

    private static String serversLead(Map<String, String> env) {
        String prefix = env.get("run_prefix");
        return "Every key, node, row and table the run created, distlock's and the peers', was named under "
                + (prefix == null ? "the run's prefix" : "\"" + prefix + "\" (SQL: with underscores)")
                + " and removed at the end; the clean-up lines say what was removed and that nothing was left.";
    }
}
