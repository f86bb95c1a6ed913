package io.distlock.compare;

import static io.distlock.compare.Html.esc;

import io.distlock.Capabilities;
import java.util.List;
import java.util.Map;

/**
 * The self-contained HTML report (no scripts; SVG charts). It answers the question first: one card
 * per backend with distlock's figures against the peer libraries on the same server and the
 * backend's safety verdict; then the charts grouped by backend, every figure in one table, the
 * declared guarantees, how it was measured with the notes, and the environment.
 */
final class HtmlReport {
    private static final String STYLE = "body{font-family:system-ui,sans-serif;margin:1.5em 2em;max-width:1240px;"
            + "color:#1a202c}h1{margin:0 0 .2em}p.lead{margin:.2em 0 1em;color:#4a5568;max-width:70em}"
            + "table{border-collapse:collapse;margin:1em 0;font-size:0.85em}"
            + "td,th{border:1px solid #cbd5e0;padding:3px 7px;text-align:right}"
            + "th:first-child,td:first-child{text-align:left}"
            + ".cards{display:grid;grid-template-columns:repeat(3,1fr);gap:12px}"
            + ".card{border:1px solid #cbd5e0;border-top:4px solid " + BarChart.OURS + ";border-radius:6px;"
            + "padding:8px 12px;font-size:0.84em;line-height:1.3}"
            + ".card h3{margin:0;font-size:1.25em}.card p.vs{margin:.1em 0 .5em;color:#4a5568}"
            + ".card dl{margin:0}.card dt{font-weight:600;margin-top:.45em}.card dd{margin:0}"
            + ".card .fig{font-weight:700;font-size:1.1em}.card .detail{color:#4a5568}"
            + ".card ul{margin:.1em 0 0;padding-left:1.1em}"
            + ".better{color:#22543d}.worse{color:#9b2c2c}.same{color:#4a5568}"
            + ".safety{padding:4px 6px;border-radius:4px;background:#f0fff4}"
            + ".safety.unsafe{background:#fff5f5}.safety.unknown{background:#f7fafc;color:#4a5568}"
            + ".peer{font-style:italic;color:#4a5568}section.chart{margin:1.5em 0}"
            + ".small-multiples{display:flex;flex-wrap:wrap;gap:10px}"
            + "svg text{font-size:11px}svg text.group{font-weight:700;font-size:12px}svg text.warn{fill:#9b2c2c}"
            + "#method dd{margin:0 0 .5em 1em}#environment td{text-align:left}#servers td{text-align:left}"
            + "p.source{color:#4a5568}";

    private HtmlReport() {}

    static String html(ComparisonResult r, Map<String, SafetyVerdict> safety) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>distlock backend comparison</title><style>")
                .append(STYLE)
                .append("</style></head><body>\n");
        sb.append("<h1>distlock backend comparison</h1>\n<p class=\"lead\">")
                .append(esc(lead(r)))
                .append("</p>\n");
        atAGlance(r, safety, sb);
        Sections.html(r, sb);
        sb.append("<h2>Charts by backend</h2>\n<p>Each chart groups the targets by backend: distlock in blue,"
                + " the peer libraries on the same server in orange and brown, floors in grey.</p>\n");
        sb.append(chart(
                "chart-uncontended", "Uncontended acquire+release latency (µs): p50, p90, p99", Charts.uncontended(r)));
        sb.append(chart(
                "chart-floor",
                "Acquire+release p50 against the round-trip floor (µs): measured, and the floor × the round trips"
                        + " the protocol needs; each backend on its own scale",
                Charts.floor(r)));
        sb.append(chart(
                "chart-roundtrips",
                "Server round trips per acquire+release: measured, and the protocol's floor",
                Charts.roundTrips(r)));
        sb.append(chart(
                "chart-throughput",
                "Contended throughput (acquisitions/s, all clients on one lock; log scale), ranked per server",
                Charts.throughput(r)));
        sb.append(chart(
                "chart-handoff",
                "Hand-off latency p50 with 1 waiter and with many waiters (log scale)",
                Charts.handoff(r)));
        sb.append(chart(
                "chart-distribution",
                "Uncontended latency distribution (µs by percentile), per backend",
                "<div class=\"small-multiples\">" + DistributionChart.svgs(r) + "</div>"));
        sb.append("<h2>Every figure</h2>\n");
        sb.append(SummaryTable.table(r).html("summary"));
        sb.append(guaranteeMatrix(r));
        method(r, sb);
        Sections.servers(r, sb);
        environment(r, sb);
        sb.append("</body></html>\n");
        return sb.toString();
    }

    private static String lead(ComparisonResult r) {
        Map<String, String> env = r.environment();
        String when = env.containsKey("started") ? " on " + env.get("started") : "";
        String machine = env.getOrDefault("cpus", "?") + " CPUs"
                + (env.containsKey("cpu.model") ? " (" + env.get("cpu.model") + ")" : "");
        return "distlock's backends against the lock libraries people use today, on the same servers, in one run"
                + when + " on a machine with " + machine + ", " + r.elapsed().toSeconds() + " s in all. Ratios"
                + " compare figures of this run only; figures from another machine or another run differ.";
    }

    private static void atAGlance(ComparisonResult r, Map<String, SafetyVerdict> safety, StringBuilder sb) {
        sb.append("<section id=\"at-a-glance\"><h2>At a glance</h2>\n<div class=\"cards\">\n");
        for (AtAGlance.Card c : AtAGlance.cards(r)) {
            sb.append("<article class=\"card\" id=\"card-")
                    .append(esc(c.backend()))
                    .append("\"><h3>")
                    .append(esc(c.backend()))
                    .append("</h3><p class=\"vs\">")
                    .append(esc(
                            c.peers().isEmpty()
                                    ? "distlock alone: no other library runs on this backend"
                                    : "distlock against "
                                            + String.join(
                                                    " and ",
                                                    c.peers().stream()
                                                            .map(ComparisonTarget::name)
                                                            .toList())
                                            + " on the same server"))
                    .append("</p><dl>");
            for (AtAGlance.Figure f : c.figures()) {
                sb.append("<dt>")
                        .append(esc(f.title()))
                        .append("</dt><dd><span class=\"fig\">")
                        .append(esc(f.value()))
                        .append("</span>");
                if (!f.detail().isEmpty()) {
                    boolean warn = f.detail().startsWith("unfair") || f.detail().startsWith("failed");
                    sb.append("<br><span class=\"")
                            .append(warn ? "worse" : "detail")
                            .append("\">")
                            .append(esc(f.detail()))
                            .append("</span>");
                }
                if (!f.versus().isEmpty()) {
                    sb.append("<ul>");
                    for (AtAGlance.Versus v : f.versus()) {
                        sb.append("<li class=\"")
                                .append(v.tone().name().toLowerCase(java.util.Locale.ROOT))
                                .append("\">")
                                .append(esc(v.words()))
                                .append("</li>");
                    }
                    sb.append("</ul>");
                }
                sb.append("</dd>");
            }
            safety(safety.get(c.backend()), sb);
            sb.append("</dl></article>\n");
        }
        sb.append("</div>");
        if (!safety.isEmpty()) {
            sb.append("<p class=\"source\">The safety verdicts come from a separate fault-injection run (the"
                    + " nemesis suite: pauses, kills, partitions, server restarts, failovers), not from this"
                    + " comparison.</p>");
        }
        sb.append("</section>\n");
    }

    private static void safety(SafetyVerdict v, StringBuilder sb) {
        sb.append("<dt>Safety under faults</dt>");
        if (v == null) {
            sb.append("<dd class=\"safety unknown\">not measured</dd>");
            return;
        }
        sb.append("<dd class=\"safety")
                .append(v.unsafe() ? " unsafe" : "")
                .append("\"><strong>")
                .append(esc(v.summary()))
                .append("</strong>");
        if (!v.details().isEmpty()) {
            sb.append("<ul>");
            v.details().forEach(d -> sb.append("<li>").append(esc(d)).append("</li>"));
            sb.append("</ul>");
        }
        sb.append("</dd>");
    }

    static String chart(String id, String title, String svg) {
        return "<section class=\"chart\" id=\"" + id + "\"><h3>" + esc(title) + "</h3>\n" + svg + "</section>\n";
    }

    private static void method(ComparisonResult r, StringBuilder sb) {
        sb.append("<section id=\"method\"><h2>How this was measured</h2>\n<p>")
                .append(esc("Every backend's server runs on this machine, and distlock and the peer libraries"
                        + " run against the same server with the same settings, one target after another, so that"
                        + " they do not disturb each other. Each scenario opens fresh clients. How to read each"
                        + " column of the table:"))
                .append("</p>\n<dl>");
        for (SummaryTable.Column c : SummaryTable.columns(r.settings())) {
            sb.append("<dt>")
                    .append(esc(c.header()))
                    .append("</dt><dd>")
                    .append(esc(c.howToRead()))
                    .append("</dd>");
        }
        sb.append("</dl>\n");
        List<String> notes = Notes.of(r);
        if (!notes.isEmpty()) {
            sb.append("<h3>Notes</h3>\n<ul>");
            notes.forEach(n -> sb.append("<li>").append(esc(n)).append("</li>"));
            sb.append("</ul>\n");
        }
        sb.append("</section>\n");
    }

    private static void environment(ComparisonResult r, StringBuilder sb) {
        sb.append("<section id=\"environment\"><h2>Environment</h2><table>");
        r.environment()
                .forEach((k, v) -> sb.append("<tr><td>")
                        .append(esc(k))
                        .append("</td><td>")
                        .append(esc(v))
                        .append("</td></tr>"));
        sb.append("<tr><td>elapsed</td><td>")
                .append(r.elapsed().toSeconds())
                .append(" s</td></tr></table></section>\n");
    }

    private static String guaranteeMatrix(ComparisonResult r) {
        StringBuilder sb = new StringBuilder("<section id=\"guarantees\"><h2>Guarantee matrix (declared capabilities, "
                + "each proven by the TCK)</h2><table><tr><th>backend</th><th>fencing</th><th>fencing survives restart</th>"
                + "<th>automatic renewal</th><th>wake-up</th><th>FIFO</th><th>failover</th></tr>");
        for (ComparisonTarget t : r.targets()) {
            Capabilities c = t.capabilities();
            if (c == null) {
                continue;
            }
            sb.append("<tr><td>")
                    .append(esc(t.name()))
                    .append("</td><td>")
                    .append(c.fencing())
                    .append("</td><td>")
                    .append(c.fencingSurvivesServerRestart())
                    .append("</td><td>")
                    .append(c.automaticRenewal())
                    .append("</td><td>")
                    .append(c.wakeUp())
                    .append("</td><td>")
                    .append(c.fifo())
                    .append("</td><td>")
                    .append(c.failover())
                    .append("</td></tr>");
        }
        return sb.append("</table></section>\n").toString();
    }
}
