package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;
import static io.distlock.compare.Html.esc;

import java.util.ArrayList;
import java.util.List;

/**
 * A horizontal bar chart in SVG, its rows grouped by backend: distlock's row in blue, each peer's in
 * its own warm colour, the same in every chart; a series is a shade of the row's colour, and a
 * reference (a floor) is grey. A hatched bar is one the report wants read with care (an unfair
 * throughput).
 */
final class BarChart {
    static final String OURS = "#2b6cb0";
    private static final String[] PEERS = {"#dd6b20", "#975a16", "#c05621"};
    static final String REFERENCE = "#a0aec0";
    private static final double[] SHADES = {1.0, 0.6, 0.35};

    private static final int WIDTH = 980;
    private static final int LEFT = 290;
    private static final int TEXT_ROOM = 230;
    private static final int BAR_STEP = 14;

    private BarChart() {}

    /** A series of bars: its name, and whether it is a reference drawn grey (a floor). */
    record Series(String name, boolean reference) {}

    /** One bar: its series, its value (sets the length), the text printed after it. */
    record Bar(Series series, double value, String text, boolean hatched) {
        Bar(Series series, double value, String text) {
            this(series, value, text, false);
        }
    }

    /** One target's bars. */
    record Row(ComparisonTarget target, int peerIndex, List<Bar> bars) {}

    /** The rows of one backend. */
    record Group(String backend, List<Row> rows) {}

    /** How bar lengths are scaled. */
    enum Scale {
        /** Linear, one scale for the whole chart. */
        LINEAR,
        /**
         * Linear, each backend's group on its own scale: its longest bar spans the width, so that
         * ours and the peers of one server can be told apart even when another backend is ten times
         * slower. Lengths do not compare across groups; the printed values do.
         */
        LINEAR_PER_GROUP,
        /**
         * Logarithmic from a tenth of the smallest positive value up to the largest, for figures that
         * span orders of magnitude (a 1 s sleep-and-retry hand-off next to a 0.3 ms notified one).
         */
        LOG
    }

    /** The colour of distlock's rows ({@code peerIndex} -1) or of the {@code peerIndex}-th peer's. */
    static String colour(int peerIndex) {
        return peerIndex < 0 ? OURS : PEERS[peerIndex % PEERS.length];
    }

    /** The chart; {@code id} prefixes the ids it defines. The printed values are always the figures. */
    static String svg(String id, List<Group> groups, List<Series> series, Scale scale) {
        List<Bar> all = new ArrayList<>();
        groups.forEach(g -> g.rows().forEach(r -> all.addAll(r.bars())));
        double chartMax = max(all);
        double base =
                all.stream().mapToDouble(Bar::value).filter(v -> v > 0).min().orElse(1) / 10;
        boolean anyPeer = groups.stream()
                .flatMap(g -> g.rows().stream())
                .anyMatch(r -> r.target().peer());
        int rowHeight = BAR_STEP * series.size() + 6;
        StringBuilder body = new StringBuilder();
        StringBuilder defs = new StringBuilder();
        List<String> hatches = new ArrayList<>();
        int y = 8;
        if (all.isEmpty()) {
            body.append("<text x=\"10\" y=\"20\">no data</text>");
            y += 20;
        }
        for (Group g : groups) {
            List<Bar> inGroup = new ArrayList<>();
            g.rows().forEach(r -> inGroup.addAll(r.bars()));
            double max = scale == Scale.LINEAR_PER_GROUP ? max(inGroup) : chartMax;
            body.append(fmt("<text class=\"group\" x=\"8\" y=\"%d\">%s</text>", y + 13, esc(g.backend())));
            body.append(fmt(
                    "<line x1=\"8\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e2e8f0\"/>", y + 17, WIDTH - 8, y + 17));
            y += 22;
            for (Row row : g.rows()) {
                String colour = colour(row.peerIndex());
                body.append(fmt(
                        "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>",
                        LEFT - 8,
                        y + rowHeight / 2 + 2,
                        esc(row.target().name() + (row.target().peer() ? " (peer)" : ""))));
                for (Bar b : row.bars()) {
                    int si = Math.max(0, series.indexOf(b.series()));
                    double fraction = scale != Scale.LOG
                            ? b.value() / max
                            : b.value() <= base ? 0 : Math.log(b.value() / base) / Math.log(max / base);
                    double w = Math.max(1, (WIDTH - LEFT - TEXT_ROOM) * fraction);
                    int by = y + si * BAR_STEP;
                    String fill = b.series().reference() ? REFERENCE : colour;
                    if (b.hatched()) {
                        String hatch = id + "-hatch-" + (row.peerIndex() + 1);
                        if (!hatches.contains(hatch)) {
                            hatches.add(hatch);
                            defs.append(fmt(
                                    "<pattern id=\"%s\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\""
                                            + " patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\""
                                            + " fill=\"#fff\"/><rect width=\"3\" height=\"6\" fill=\"%s\"/></pattern>",
                                    hatch, colour));
                        }
                        fill = "url(#" + hatch + ")";
                    }
                    body.append(fmt(
                            "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"12\" fill=\"%s\"%s%s>"
                                    + "<title>%s: %s</title></rect>",
                            LEFT,
                            by,
                            w,
                            fill,
                            b.series().reference() ? "" : fmt(" fill-opacity=\"%.2f\"", SHADES[shade(series, b)]),
                            b.hatched() ? " stroke=\"" + colour + "\" data-unfair=\"true\"" : "",
                            esc(b.series().name()),
                            esc(b.text())));
                    body.append(fmt(
                            "<text x=\"%.1f\" y=\"%d\"%s>%s</text>",
                            LEFT + w + 4, by + 10, b.hatched() ? " class=\"warn\"" : "", esc(b.text())));
                }
                y += rowHeight;
            }
            y += 6;
        }
        y += 6;
        String legend = legend(series, anyPeer, !hatches.isEmpty(), y);
        int height = y + 22;
        return fmt(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart-svg\" width=\"%d\" height=\"%d\""
                        + " role=\"img\">%s%s%s</svg>\n",
                WIDTH, height, defs.length() == 0 ? "" : "<defs>" + defs + "</defs>", body, legend);
    }

    private static double max(List<Bar> bars) {
        return Math.max(1e-9, bars.stream().mapToDouble(Bar::value).max().orElse(1));
    }

    /** The shade of {@code b}: its position among the series that are not references. */
    private static int shade(List<Series> series, Bar b) {
        int i = 0;
        for (Series s : series) {
            if (s.equals(b.series())) {
                return Math.min(i, SHADES.length - 1);
            }
            if (!s.reference()) {
                i++;
            }
        }
        return 0;
    }

    private static String legend(List<Series> series, boolean peers, boolean hatched, int y) {
        StringBuilder sb = new StringBuilder();
        int x = LEFT;
        x = swatch(sb, x, y, OURS, 1, "distlock");
        if (peers) {
            x = swatch(sb, x, y, colour(0), 1, "peer library");
        }
        int shade = 0;
        for (Series s : series) {
            if (s.reference()) {
                x = swatch(sb, x, y, REFERENCE, 1, s.name());
            } else if (series.size() > 1) {
                x = swatch(sb, x, y, "#4a5568", SHADES[Math.min(shade++, SHADES.length - 1)], s.name());
            }
        }
        if (hatched) {
            sb.append(fmt(
                    "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"none\" stroke=\"#4a5568\""
                            + " stroke-dasharray=\"2,2\"/><text x=\"%d\" y=\"%d\">hatched: unfair, not ranked</text>",
                    x, y - 9, x + 14, y));
        }
        return sb.toString();
    }

    private static int swatch(StringBuilder sb, int x, int y, String colour, double opacity, String label) {
        sb.append(fmt(
                "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\" fill-opacity=\"%.2f\"/>"
                        + "<text x=\"%d\" y=\"%d\">%s</text>",
                x, y - 9, colour, opacity, x + 14, y, esc(label)));
        return x + 24 + 7 * label.length();
    }
}
