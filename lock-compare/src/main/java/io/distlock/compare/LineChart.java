package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;
import static io.distlock.compare.Html.esc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.DoubleFunction;
import java.util.function.Function;

/**
 * Small line charts in SVG, one per backend (each on its own scale): a figure against a parameter
 * (the network delay, the number of clients, held locks or waiters), one line per target in the
 * targets' colours (distlock blue, peers warm), a dashed line in the same colour for a target's
 * reference (what its round trips predict), every point marked and titled with its value.
 */
final class LineChart {
    private static final int WIDTH = 320;
    private static final int PLOT_HEIGHT = 130;
    private static final int LEFT = 62;
    private static final int RIGHT = 26;
    private static final int TOP = 24;
    /** Below the plot: the x ticks and the x axis title. */
    private static final int BOTTOM = 32;

    private static final int LEGEND_LINE = 13;

    private LineChart() {}

    /** One point: where, and the text its title shows. */
    record Point(double x, double y, String text) {}

    /** One line: its target (its colour), whether it is a dashed reference, its legend name, its points by x. */
    record Line(ComparisonTarget target, int peerIndex, boolean reference, String name, List<Point> points) {}

    /** How an axis is scaled. */
    enum Scale {
        LINEAR,
        LOG
    }

    /** An axis: its scale, how its ticks read, and its title. */
    record Axis(Scale scale, DoubleFunction<String> ticks, String title) {}

    /**
     * One small chart per backend that has a line with a point: {@code lines} gives a backend's lines
     * from its targets (ours first, then the peers, with their colour index).
     */
    static String smallMultiples(ComparisonResult r, String id, Axis x, Axis y, Function<List<Row>, List<Line>> lines) {
        StringBuilder sb = new StringBuilder("<div class=\"small-multiples\">");
        int drawn = 0;
        for (Map.Entry<String, List<ComparisonTarget>> e :
                AtAGlance.byBackend(r).entrySet()) {
            List<Row> rows = new ArrayList<>();
            int peer = 0;
            for (ComparisonTarget t : e.getValue()) {
                rows.add(new Row(t, t.peer() ? peer++ : -1));
            }
            List<Line> ls = lines.apply(rows).stream()
                    .filter(l -> !l.points().isEmpty())
                    .toList();
            if (!ls.isEmpty()) {
                sb.append(svg(id + "-" + e.getKey(), e.getKey(), ls, x, y));
                drawn++;
            }
        }
        if (drawn == 0) {
            sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart-svg\" width=\"")
                    .append(WIDTH)
                    .append("\" height=\"40\" role=\"img\"><text x=\"10\" y=\"20\">no data</text></svg>");
        }
        return sb.append("</div>\n").toString();
    }

    /** A target and its colour index (-1: distlock). */
    record Row(ComparisonTarget target, int peerIndex) {}

    static String svg(String id, String backend, List<Line> lines, Axis x, Axis y) {
        double[] xr = range(lines, true, x.scale());
        double[] yr = range(lines, false, y.scale());
        if (y.scale() == Scale.LINEAR) {
            yr[0] = Math.min(0, yr[0]);
        }
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = PLOT_HEIGHT;
        List<Line> named = lines.stream().filter(l -> !l.reference()).toList();
        int height = TOP + plotH + BOTTOM + LEGEND_LINE * named.size() + 4;
        StringBuilder sb = new StringBuilder();
        sb.append(fmt(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart-svg\" id=\"%s\" width=\"%d\" height=\"%d\""
                        + " role=\"img\">",
                esc(id), WIDTH, height));
        sb.append(fmt("<text class=\"group\" x=\"6\" y=\"14\">%s</text>", esc(backend)));
        sb.append(fmt(
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>",
                LEFT, TOP + plotH, LEFT + plotW, TOP + plotH));
        sb.append(fmt("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", LEFT, TOP, LEFT, TOP + plotH));
        for (double t : ticks(xr, x.scale())) {
            sb.append(fmt(
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    LEFT + plotW * at(t, xr, x.scale()),
                    TOP + plotH + 13,
                    esc(x.ticks().apply(t))));
        }
        for (double t : ticks(yr, y.scale())) {
            double py = TOP + plotH - plotH * at(t, yr, y.scale());
            sb.append(fmt(
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                    LEFT - 4, py + 4, esc(y.ticks().apply(t))));
            sb.append(fmt(
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#edf2f7\"/>",
                    LEFT + 1, py, LEFT + plotW, py));
        }
        sb.append(fmt(
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                LEFT + plotW / 2, TOP + plotH + 27, esc(x.title())));
        for (Line l : lines) {
            String colour = BarChart.colour(l.peerIndex());
            StringJoiner pts = new StringJoiner(" ");
            StringBuilder marks = new StringBuilder();
            for (Point p : l.points()) {
                double px = LEFT + plotW * at(p.x(), xr, x.scale());
                double py = TOP + plotH - plotH * at(p.y(), yr, y.scale());
                pts.add(fmt("%.1f,%.1f", px, py));
                marks.append(fmt(
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>%s: %s</title></circle>",
                        px, py, l.reference() ? "1.5" : "3", colour, esc(l.name()), esc(p.text())));
            }
            sb.append(fmt(
                    "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"%s\">"
                            + "<title>%s</title></polyline>",
                    colour,
                    l.reference() ? "1.5" : "2",
                    l.reference() ? " stroke-dasharray=\"4,3\" stroke-opacity=\"0.6\"" : "",
                    pts,
                    esc(l.name())));
            sb.append(marks);
        }
        int ly = TOP + plotH + BOTTOM + LEGEND_LINE - 2;
        for (Line l : named) {
            String colour = BarChart.colour(l.peerIndex());
            sb.append(fmt(
                    "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"3\" fill=\"%s\"/>"
                            + "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>",
                    LEFT,
                    ly - 4,
                    colour,
                    LEFT + 14,
                    ly,
                    colour,
                    esc(shortName(l.name() + (l.target().peer() ? " (peer)" : "")))));
            ly += LEGEND_LINE;
        }
        return sb.append("</svg>\n").toString();
    }

    private static String shortName(String name) {
        return name.length() > 40 ? name.substring(0, 39) + "…" : name;
    }

    /** Where {@code v} falls in {@code range}, from 0 to 1. */
    private static double at(double v, double[] range, Scale s) {
        if (range[1] <= range[0]) {
            return 0.5;
        }
        if (s == Scale.LOG) {
            double lo = Math.log(Math.max(range[0], 1e-12));
            double hi = Math.log(range[1]);
            return (Math.log(Math.max(v, range[0])) - lo) / (hi - lo);
        }
        return (v - range[0]) / (range[1] - range[0]);
    }

    /** The smallest and largest x (or y) of every point; for a log axis only positive values count. */
    private static double[] range(List<Line> lines, boolean x, Scale s) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (Line l : lines) {
            for (Point p : l.points()) {
                double v = x ? p.x() : p.y();
                if (s == Scale.LOG && v <= 0) {
                    continue;
                }
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        if (lo == Double.POSITIVE_INFINITY) {
            return new double[] {s == Scale.LOG ? 1 : 0, 1};
        }
        if (s == Scale.LOG) {
            lo = Math.pow(10, Math.floor(Math.log10(lo)));
            hi = Math.pow(10, Math.ceil(Math.log10(hi)));
            if (hi <= lo) {
                hi = lo * 10;
            }
        } else if (hi <= lo) {
            hi = lo + 1;
        }
        return new double[] {lo, hi};
    }

    /** Tick values: powers of ten on a log axis, five even steps on a linear one. */
    private static List<Double> ticks(double[] range, Scale s) {
        List<Double> t = new ArrayList<>();
        if (s == Scale.LOG) {
            for (double v = range[0]; v <= range[1] * 1.0001; v *= 10) {
                t.add(v);
            }
        } else {
            for (int i = 0; i <= 4; i++) {
                t.add(range[0] + (range[1] - range[0]) * i / 4);
            }
        }
        return t;
    }
}
