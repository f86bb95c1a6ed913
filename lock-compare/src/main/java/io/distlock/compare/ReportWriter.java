package io.distlock.compare;

import io.distlock.Capabilities;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.StringJoiner;

/** Writes comparison results as JSON, Markdown and a self-contained HTML page with SVG charts. */
final class ReportWriter {
    private static final String[] COLOURS = {
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"
    };

    private ReportWriter() {}

    // ---------------------------------------------------------------- JSON

    static String json(ComparisonResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\n  \"environment\": ").append(jsonMap(r.environment()));
        sb.append(",\n  \"elapsed_s\": ").append(num(r.elapsed().toMillis() / 1000.0));
        ComparisonSettings s = r.settings();
        sb.append(",\n  \"settings\": {")
                .append("\"scenarios\": ")
                .append(jsonStrings(
                        s.scenarios().stream().map(Enum::name).sorted().toList()))
                .append(", \"warmup\": ")
                .append(s.warmup())
                .append(", \"iterations\": ")
                .append(s.iterations())
                .append(", \"contended_clients\": ")
                .append(s.contendedClients())
                .append(", \"contended_duration_s\": ")
                .append(num(s.contendedDuration().toMillis() / 1000.0))
                .append(", \"handoff_rounds\": ")
                .append(s.handoffRounds())
                .append(", \"many_waiters\": ")
                .append(s.manyWaiters())
                .append(", \"hold_before_release_ms\": ")
                .append(num(s.holdBeforeRelease().toNanos() / 1e6))
                .append(", \"distinct_names\": ")
                .append(s.distinctNames())
                .append(", \"renewal_hold_s\": ")
                .append(num(s.renewalHold().toMillis() / 1000.0))
                .append(", \"renewal_locks\": ")
                .append(s.renewalLocks())
                .append('}');
        sb.append(",\n  \"targets\": [");
        StringJoiner tj = new StringJoiner(",", "\n    ", "\n  ");
        for (ComparisonTarget t : r.targets()) {
            StringBuilder o = new StringBuilder("{");
            o.append("\"name\": ")
                    .append(str(t.name()))
                    .append(", \"backend\": ")
                    .append(str(t.backend()))
                    .append(", \"peer\": ")
                    .append(t.peer())
                    .append(", \"server_version\": ")
                    .append(t.serverVersion() == null ? "null" : str(t.serverVersion()))
                    .append(", \"protocol_floor_round_trips\": ")
                    .append(t.floorRequestsPerOperation());
            if (t.capabilities() != null) {
                Capabilities c = t.capabilities();
                o.append(", \"capabilities\": {")
                        .append("\"fencing\": ")
                        .append(str(c.fencing().name()))
                        .append(", \"fencing_survives_server_restart\": ")
                        .append(c.fencingSurvivesServerRestart())
                        .append(", \"automatic_renewal\": ")
                        .append(c.automaticRenewal())
                        .append(", \"wake_up\": ")
                        .append(str(c.wakeUp().name()))
                        .append(", \"fifo\": ")
                        .append(c.fifo())
                        .append(", \"reentrant\": ")
                        .append(c.reentrant())
                        .append(", \"failover\": ")
                        .append(str(c.failover().name()))
                        .append('}');
            }
            o.append('}');
            tj.add(o);
        }
        sb.append(r.targets().isEmpty() ? "" : tj.toString()).append("]");
        sb.append(",\n  \"measurements\": [");
        StringJoiner mj = new StringJoiner(",", "\n    ", "\n  ");
        for (Measurement m : r.measurements()) {
            StringBuilder o = new StringBuilder("{");
            o.append("\"target\": ")
                    .append(str(m.target()))
                    .append(", \"scenario\": ")
                    .append(str(m.scenario().name()))
                    .append(", \"values\": {");
            StringJoiner vj = new StringJoiner(", ");
            m.values().entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .forEach(e -> vj.add(str(e.getKey()) + ": " + num(e.getValue())));
            o.append(vj).append('}');
            if (m.note() != null) {
                o.append(", \"note\": ").append(str(m.note()));
            }
            if (!m.samplesMicros().isEmpty()) {
                StringJoiner sj = new StringJoiner(",", "[", "]");
                m.samplesMicros().forEach(d -> sj.add(num(d)));
                o.append(", \"samples_us\": ").append(sj);
            }
            o.append('}');
            mj.add(o);
        }
        sb.append(r.measurements().isEmpty() ? "" : mj.toString()).append("]\n}\n");
        return sb.toString();
    }

    private static String jsonMap(Map<String, String> m) {
        StringJoiner j = new StringJoiner(", ", "{", "}");
        m.forEach((k, v) -> j.add(str(k) + ": " + str(v)));
        return j.toString();
    }

    private static String jsonStrings(List<String> l) {
        StringJoiner j = new StringJoiner(", ", "[", "]");
        l.forEach(s -> j.add(str(s)));
        return j.toString();
    }

    static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        return sb.append('"').toString();
    }

    private static String num(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return "null";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return String.valueOf((long) d);
        }
        return String.format(Locale.ROOT, "%.3f", d);
    }

    // ---------------------------------------------------------------- Markdown

    private static String fmt(OptionalDouble v, String pattern) {
        return v.isPresent() ? String.format(Locale.ROOT, pattern, v.getAsDouble()) : "–";
    }

    static String markdown(ComparisonResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append("| target | floor p50 µs | acquire+release p50 / p99 µs | × floor | round trips/op (floor) "
                + "| contended ops/s (K) | lost updates | fair share min | hand-off p50 µs (1 / many) "
                + "| new names acquire+release/s | renewal req/s (1 / N locks) |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (ComparisonTarget t : r.targets()) {
            String n = t.name();
            OptionalDouble floor = floorP50(r, n);
            OptionalDouble p50 = r.valueIfPresent(n, Scenario.UNCONTENDED, "p50_us");
            String ratio = "–";
            if (floor.isPresent() && p50.isPresent() && t.floorRequestsPerOperation() > 0) {
                ratio = String.format(
                        Locale.ROOT, "%.2f", p50.getAsDouble() / (floor.getAsDouble() * t.floorRequestsPerOperation()));
            }
            sb.append("| ")
                    .append(n)
                    .append(t.peer() ? " *(peer)*" : "")
                    .append(" | ")
                    .append(fmt(floor, "%.0f"))
                    .append(" | ")
                    .append(fmt(p50, "%.0f"))
                    .append(" / ")
                    .append(fmt(r.valueIfPresent(n, Scenario.UNCONTENDED, "p99_us"), "%.0f"))
                    .append(" | ")
                    .append(ratio)
                    .append(" | ")
                    .append(fmt(r.valueIfPresent(n, Scenario.UNCONTENDED, "round_trips_per_op"), "%.2f"))
                    .append(t.floorRequestsPerOperation() > 0 ? " (" + t.floorRequestsPerOperation() + ")" : "")
                    .append(" | ")
                    .append(fmt(r.valueIfPresent(n, Scenario.CONTENDED, "ops_per_s"), "%.0f"))
                    .append(" (")
                    .append(fmt(r.valueIfPresent(n, Scenario.CONTENDED, "clients"), "%.0f"))
                    .append(")")
                    .append(" | ")
                    .append(fmt(r.valueIfPresent(n, Scenario.CONTENDED, "lost_updates"), "%.0f"))
                    .append(" | ")
                    .append(fmt(r.valueIfPresent(n, Scenario.CONTENDED, "fair_share_min"), "%.2f"))
                    .append(" | ")
                    .append(fmt(r.valueIfPresent(n, Scenario.HANDOFF_1, "p50_us"), "%.0f"))
                    .append(" / ")
                    .append(fmt(r.valueIfPresent(n, Scenario.HANDOFF_MANY, "p50_us"), "%.0f"))
                    .append(" | ")
                    .append(fmt(r.valueIfPresent(n, Scenario.MANY_NAMES, "ops_per_s"), "%.0f"))
                    .append(" | ")
                    .append(fmt(r.valueIfPresent(n, Scenario.RENEWAL, "requests_per_s_1_lock"), "%.2f"))
                    .append(" / ")
                    .append(fmt(r.valueIfPresent(n, Scenario.RENEWAL, "requests_per_s_n_locks"), "%.2f"))
                    .append(" |\n");
        }
        List<String> notes = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            OptionalDouble byBlocks = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "over_floor_by_blocks");
            if (byBlocks.isPresent() && !Double.isNaN(byBlocks.getAsDouble())) {
                notes.add(String.format(
                        Locale.ROOT,
                        "- %s, × floor block by block (median of each block's p50 ÷ the adjacent floor block's p50 × %d):"
                                + " %.2f",
                        t.name(),
                        t.floorRequestsPerOperation(),
                        byBlocks.getAsDouble()));
            }
        }
        for (ComparisonTarget t : r.targets()) {
            OptionalDouble p50 = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "p50_us");
            for (String metric : t.extraFloors().keySet()) {
                OptionalDouble extra = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, metric + "_p50_us");
                if (extra.isPresent() && p50.isPresent()) {
                    OptionalDouble floor = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "floor_p50_us");
                    String overFloor = floor.isPresent() && t.floorRequestsPerOperation() > 0
                            ? String.format(
                                    Locale.ROOT,
                                    " (%.2f × the round-trip floor)",
                                    extra.getAsDouble() / (floor.getAsDouble() * t.floorRequestsPerOperation()))
                            : "";
                    OptionalDouble byBlocks =
                            r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "over_" + metric + "_by_blocks");
                    notes.add(String.format(
                            Locale.ROOT,
                            "- %s, %s (interleaved): p50 %.0f µs%s; acquire+release = %.2f × it (%s block by block)",
                            t.name(),
                            metric,
                            extra.getAsDouble(),
                            overFloor,
                            p50.getAsDouble() / extra.getAsDouble(),
                            fmt(byBlocks, "%.2f")));
                }
            }
        }
        for (ComparisonTarget t : r.targets()) {
            OptionalDouble vsOurs = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "distlock_over_this_p50");
            if (vsOurs.isPresent()) {
                r.targets().stream()
                        .filter(o -> !o.peer() && o.backend().equals(t.backend()))
                        .findFirst()
                        .ifPresent(o -> notes.add(String.format(
                                Locale.ROOT,
                                "- acquire+release p50, %s ÷ %s (blocks of the two interleaved): %.2f",
                                o.name(),
                                t.name(),
                                vsOurs.getAsDouble())));
            }
        }
        for (ComparisonTarget t : r.targets()) {
            List<String> parts = new ArrayList<>();
            for (Scenario s : List.of(Scenario.HANDOFF_1, Scenario.HANDOFF_MANY)) {
                OptionalDouble p50 = r.valueIfPresent(t.name(), s, "p50_us");
                if (p50.isEmpty()) {
                    continue;
                }
                List<String> floors = new ArrayList<>();
                OptionalDouble floor = r.valueIfPresent(t.name(), s, "handoff_floor_p50_us");
                OptionalDouble idle = r.valueIfPresent(t.name(), s, "handoff_floor_idle_p50_us");
                OptionalDouble roundTrip = r.valueIfPresent(t.name(), s, "floor_after_idle_p50_us");
                if (floor.isPresent()) {
                    floors.add(String.format(
                            Locale.ROOT,
                            "%.2f × the hand-off floor (%.0f µs)",
                            p50.getAsDouble() / floor.getAsDouble(),
                            floor.getAsDouble()));
                }
                if (idle.isPresent()) {
                    floors.add(String.format(
                            Locale.ROOT,
                            "%.2f × it after the hold's idle (%.0f µs)",
                            p50.getAsDouble() / idle.getAsDouble(),
                            idle.getAsDouble()));
                }
                if (roundTrip.isPresent() && roundTrip.getAsDouble() > 0) {
                    floors.add(String.format(
                            Locale.ROOT,
                            "%.1f floor round trips after the same idle (%.0f µs)",
                            p50.getAsDouble() / roundTrip.getAsDouble(),
                            roundTrip.getAsDouble()));
                }
                if (!floors.isEmpty()) {
                    parts.add(s.title() + " " + String.format(Locale.ROOT, "%.0f µs", p50.getAsDouble()) + " = "
                            + String.join(", ", floors));
                }
            }
            if (!parts.isEmpty()) {
                notes.add("- " + t.name()
                        + ", hand-off against its floors (hand-off floor: a raw delete or PUBLISH → the"
                        + " notification at another client + one raw read, back to back and after the scenario's"
                        + " hold as idle"
                        + " time; a floor round trip after the same idle): " + String.join("; ", parts));
            }
        }
        for (Measurement m : r.measurements()) {
            if (m.note() != null) {
                notes.add("- " + m.target() + ", " + m.scenario().title() + ": " + m.note());
            }
        }
        if (!notes.isEmpty()) {
            sb.append("\nNotes:\n").append(String.join("\n", notes)).append('\n');
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------- HTML

    static String html(ComparisonResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>distlock backend comparison</title><style>")
                .append("body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}")
                .append("table{border-collapse:collapse;margin:1em 0;font-size:0.9em}")
                .append("td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}")
                .append("th:first-child,td:first-child{text-align:left}")
                .append("section.chart{margin:2em 0} .peer{font-style:italic;color:#666} svg text{font-size:11px}")
                .append("</style></head><body>\n");
        sb.append(
                        "<h1>distlock backend comparison</h1>\n<p>Same scenarios, same parameters, one target after another. ")
                .append("Peers (other libraries) are marked <span class=\"peer\">(peer)</span>.</p>\n");
        sb.append("<h2>Environment</h2><table>");
        r.environment()
                .forEach((k, v) -> sb.append("<tr><td>")
                        .append(esc(k))
                        .append("</td><td>")
                        .append(esc(v))
                        .append("</td></tr>"));
        sb.append("<tr><td>elapsed</td><td>").append(r.elapsed().toSeconds()).append(" s</td></tr></table>\n");

        sb.append("<h2>Summary</h2>\n").append(markdownTableToHtml(markdown(r)));

        sb.append(chart(
                "chart-uncontended",
                "Uncontended acquire+release latency (µs): p50, p90, p99",
                groupedChart(r, Scenario.UNCONTENDED, new String[] {"p50_us", "p90_us", "p99_us"})));
        sb.append(chart(
                "chart-floor",
                "Acquire+release p50 against the round-trip floor (µs): measured vs floor × round trips the protocol needs",
                floorBars(r)));
        sb.append(chart(
                "chart-roundtrips",
                "Server round trips per acquire+release: measured vs protocol floor",
                roundTrips(r)));
        sb.append(chart(
                "chart-throughput",
                "Contended throughput (acquisitions/s, K clients on one lock; log scale)",
                barChart(grouped(r, Scenario.CONTENDED, new String[] {"ops_per_s"}), List.of("ops_per_s"), true)));
        sb.append(chart(
                "chart-handoff",
                "Hand-off latency p50 (µs) with 1 waiter and with many waiters (log scale)",
                handoff(r)));
        sb.append(
                chart("chart-distribution", "Uncontended latency distribution (µs, percentile on x)", distribution(r)));
        sb.append(guaranteeMatrix(r));
        sb.append("</body></html>\n");
        return sb.toString();
    }

    private static String markdownTableToHtml(String md) {
        StringBuilder sb = new StringBuilder("<table id=\"summary\">");
        boolean header = true;
        for (String line : md.split("\n")) {
            if (!line.startsWith("|")) {
                if (!line.isBlank()) {
                    sb.append("</table><p>").append(esc(line)).append("</p><table>");
                }
                continue;
            }
            if (line.startsWith("|---")) {
                continue;
            }
            String[] cells = line.substring(1, line.length() - 1).split("\\|");
            sb.append("<tr>");
            for (String c : cells) {
                String cell = esc(c.trim()).replace("*(peer)*", "<span class=\"peer\">(peer)</span>");
                sb.append(header ? "<th>" : "<td>").append(cell).append(header ? "</th>" : "</td>");
            }
            sb.append("</tr>");
            header = false;
        }
        return sb.append("</table>\n").toString();
    }

    private static String chart(String id, String title, String svg) {
        return "<section class=\"chart\" id=\"" + id + "\"><h2>" + esc(title) + "</h2>\n" + svg + "</section>\n";
    }

    private record Bar(String label, String series, double value) {}

    private static String groupedChart(ComparisonResult r, Scenario s, String[] metrics) {
        return barChart(grouped(r, s, metrics), List.of(metrics));
    }

    private static List<Bar> grouped(ComparisonResult r, Scenario s, String[] metrics) {
        List<Bar> bars = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            for (String m : metrics) {
                OptionalDouble v = r.valueIfPresent(t.name(), s, m);
                if (v.isPresent()) {
                    bars.add(new Bar(label(t), m, v.getAsDouble()));
                }
            }
        }
        return bars;
    }

    /**
     * The floor a target's latency is compared with: the raw round trips interleaved with its
     * uncontended run (same load), else the separate raw round-trip scenario.
     */
    static OptionalDouble floorP50(ComparisonResult r, String target) {
        OptionalDouble interleaved = r.valueIfPresent(target, Scenario.UNCONTENDED, "floor_p50_us");
        return interleaved.isPresent() ? interleaved : r.valueIfPresent(target, Scenario.FLOOR, "p50_us");
    }

    private static String floorBars(ComparisonResult r) {
        List<Bar> bars = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            OptionalDouble p50 = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "p50_us");
            OptionalDouble floor = floorP50(r, t.name());
            p50.ifPresent(v -> bars.add(new Bar(label(t), "measured p50", v)));
            if (floor.isPresent() && t.floorRequestsPerOperation() > 0) {
                bars.add(new Bar(label(t), "floor", floor.getAsDouble() * t.floorRequestsPerOperation()));
            }
        }
        return barChart(bars, List.of("measured p50", "floor"));
    }

    private static String roundTrips(ComparisonResult r) {
        List<Bar> bars = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "round_trips_per_op")
                    .ifPresent(v -> bars.add(new Bar(label(t), "measured", v)));
            if (t.floorRequestsPerOperation() > 0) {
                bars.add(new Bar(label(t), "protocol floor", t.floorRequestsPerOperation()));
            }
        }
        return barChart(bars, List.of("measured", "protocol floor"));
    }

    private static String handoff(ComparisonResult r) {
        List<Bar> bars = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            r.valueIfPresent(t.name(), Scenario.HANDOFF_1, "p50_us")
                    .ifPresent(v -> bars.add(new Bar(label(t), "1 waiter", v)));
            r.valueIfPresent(t.name(), Scenario.HANDOFF_MANY, "p50_us")
                    .ifPresent(
                            v -> bars.add(new Bar(label(t), (int) r.settings().manyWaiters() + " waiters", v)));
        }
        return barChart(bars, List.of("1 waiter", r.settings().manyWaiters() + " waiters"), true);
    }

    private static String label(ComparisonTarget t) {
        return t.name() + (t.peer() ? " (peer)" : "");
    }

    private static String barChart(List<Bar> bars, List<String> series) {
        return barChart(bars, series, false);
    }

    /**
     * Horizontal grouped bars. With {@code log}, bar length is logarithmic from a tenth of the
     * smallest positive value up to the largest, for figures that span orders of magnitude (a 1 s
     * sleep-and-retry hand-off next to a 0.3 ms notified one); the printed values stay linear.
     */
    private static String barChart(List<Bar> bars, List<String> series, boolean log) {
        List<String> labels = new ArrayList<>();
        for (Bar b : bars) {
            if (!labels.contains(b.label())) {
                labels.add(b.label());
            }
        }
        int rowH = 16 * series.size() + 10;
        int left = 300; // room for "spring-integration JdbcLockRegistry (peer)"
        int width = 980;
        int height = Math.max(40, labels.size() * rowH + 40);
        double max = bars.stream().mapToDouble(Bar::value).max().orElse(1);
        if (max <= 0) {
            max = 1;
        }
        double base =
                bars.stream().mapToDouble(Bar::value).filter(v -> v > 0).min().orElse(1) / 10;
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart-svg\" width=\"")
                .append(width)
                .append("\" height=\"")
                .append(height)
                .append("\" role=\"img\">");
        if (bars.isEmpty()) {
            sb.append("<text x=\"10\" y=\"20\">no data</text>");
        }
        for (int i = 0; i < labels.size(); i++) {
            int y0 = 10 + i * rowH;
            sb.append("<text x=\"")
                    .append(left - 8)
                    .append("\" y=\"")
                    .append(y0 + rowH / 2)
                    .append("\" text-anchor=\"end\">")
                    .append(esc(labels.get(i)))
                    .append("</text>");
            for (Bar b : bars) {
                if (!b.label().equals(labels.get(i))) {
                    continue;
                }
                int si = Math.max(0, series.indexOf(b.series()));
                double fraction = !log
                        ? b.value() / max
                        : b.value() <= base ? 0 : Math.log(b.value() / base) / Math.log(max / base);
                double w = (width - left - 120) * fraction;
                int y = y0 + si * 16;
                sb.append("<rect class=\"bar\" x=\"")
                        .append(left)
                        .append("\" y=\"")
                        .append(y)
                        .append("\" width=\"")
                        .append(String.format(Locale.ROOT, "%.1f", Math.max(1, w)))
                        .append("\" height=\"13\" fill=\"")
                        .append(COLOURS[si % COLOURS.length])
                        .append("\"><title>")
                        .append(esc(b.series()))
                        .append(": ")
                        .append(String.format(Locale.ROOT, "%.1f", b.value()))
                        .append("</title></rect>");
                sb.append("<text x=\"")
                        .append(String.format(Locale.ROOT, "%.1f", left + Math.max(1, w) + 4))
                        .append("\" y=\"")
                        .append(y + 11)
                        .append("\">")
                        .append(String.format(Locale.ROOT, "%.1f", b.value()))
                        .append("</text>");
            }
        }
        int ly = height - 12;
        for (int s = 0; s < series.size(); s++) {
            int x = left + s * 160;
            sb.append("<rect x=\"")
                    .append(x)
                    .append("\" y=\"")
                    .append(ly - 9)
                    .append("\" width=\"10\" height=\"10\" fill=\"")
                    .append(COLOURS[s % COLOURS.length])
                    .append("\"/><text x=\"")
                    .append(x + 14)
                    .append("\" y=\"")
                    .append(ly)
                    .append("\">")
                    .append(esc(series.get(s)))
                    .append("</text>");
        }
        return sb.append("</svg>\n").toString();
    }

    private static String distribution(ComparisonResult r) {
        int width = 900;
        int height = 320;
        int left = 60;
        int bottom = 40;
        double max = 1;
        List<List<Double>> curves = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            r.find(t.name(), Scenario.UNCONTENDED).ifPresent(m -> {
                if (!m.samplesMicros().isEmpty()) {
                    List<Double> sorted = new ArrayList<>(m.samplesMicros());
                    sorted.sort(Double::compare);
                    curves.add(sorted);
                    names.add(label(t));
                }
            });
        }
        for (List<Double> c : curves) {
            // scale to p99 so one outlier does not flatten every curve
            max = Math.max(max, c.get((int) Math.floor(0.99 * (c.size() - 1))));
        }
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart-svg\" width=\"")
                .append(width)
                .append("\" height=\"")
                .append(height)
                .append("\" role=\"img\">");
        sb.append("<line x1=\"")
                .append(left)
                .append("\" y1=\"")
                .append(height - bottom)
                .append("\" x2=\"")
                .append(width - 10)
                .append("\" y2=\"")
                .append(height - bottom)
                .append("\" stroke=\"#999\"/>");
        sb.append("<line x1=\"")
                .append(left)
                .append("\" y1=\"10\" x2=\"")
                .append(left)
                .append("\" y2=\"")
                .append(height - bottom)
                .append("\" stroke=\"#999\"/>");
        for (int q = 0; q <= 100; q += 25) {
            double x = left + (width - left - 10) * q / 100.0;
            sb.append("<text x=\"")
                    .append(String.format(Locale.ROOT, "%.0f", x))
                    .append("\" y=\"")
                    .append(height - bottom + 14)
                    .append("\" text-anchor=\"middle\">p")
                    .append(q)
                    .append("</text>");
        }
        sb.append("<text x=\"")
                .append(left - 4)
                .append("\" y=\"16\" text-anchor=\"end\">")
                .append(String.format(Locale.ROOT, "%.0f", max))
                .append("</text>");
        sb.append("<text x=\"")
                .append(left - 4)
                .append("\" y=\"")
                .append(height - bottom)
                .append("\" text-anchor=\"end\">0</text>");
        if (curves.isEmpty()) {
            sb.append("<text x=\"").append(left + 10).append("\" y=\"40\">no data</text>");
        }
        for (int i = 0; i < curves.size(); i++) {
            List<Double> c = curves.get(i);
            StringJoiner pts = new StringJoiner(" ");
            for (int k = 0; k < c.size(); k++) {
                double x = left + (width - left - 10) * (c.size() == 1 ? 0 : k / (double) (c.size() - 1));
                double y = (height - bottom) - (height - bottom - 10) * Math.min(1, c.get(k) / max);
                pts.add(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
            }
            sb.append("<polyline class=\"curve\" fill=\"none\" stroke-width=\"2\" stroke=\"")
                    .append(COLOURS[i % COLOURS.length])
                    .append("\" points=\"")
                    .append(pts)
                    .append("\"><title>")
                    .append(esc(names.get(i)))
                    .append("</title></polyline>");
            sb.append("<text x=\"")
                    .append(left + 10)
                    .append("\" y=\"")
                    .append(24 + 14 * i)
                    .append("\" fill=\"")
                    .append(COLOURS[i % COLOURS.length])
                    .append("\">")
                    .append(esc(names.get(i)))
                    .append("</text>");
        }
        return sb.append("</svg>\n").toString();
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

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
