package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;
import static io.distlock.compare.Html.esc;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * The uncontended latency distribution, one small chart per backend (each on its own scale, so that
 * a fast backend's curves are not flattened by a slow one's): the sorted samples of each target as a
 * curve, percentile on x, µs on y up to the largest p99, in the targets' colours.
 */
final class DistributionChart {
    private static final int WIDTH = 470;
    private static final int HEIGHT = 240;
    private static final int LEFT = 56;
    private static final int BOTTOM = 28;
    private static final int TOP = 24;

    private DistributionChart() {}

    /** One chart per backend with samples; "no data" if none has. */
    static String svgs(ComparisonResult r) {
        StringBuilder sb = new StringBuilder();
        AtAGlance.byBackend(r).forEach((backend, targets) -> {
            List<List<Double>> curves = new ArrayList<>();
            List<ComparisonTarget> named = new ArrayList<>();
            List<Integer> colours = new ArrayList<>();
            int peer = 0;
            for (ComparisonTarget t : targets) {
                int colour = t.peer() ? peer++ : -1;
                List<Double> samples = r.find(t.name(), Scenario.UNCONTENDED)
                        .map(Measurement::samplesMicros)
                        .orElse(List.of());
                if (!samples.isEmpty()) {
                    List<Double> sorted = new ArrayList<>(samples);
                    sorted.sort(Double::compare);
                    curves.add(sorted);
                    named.add(t);
                    colours.add(colour);
                }
            }
            if (!curves.isEmpty()) {
                sb.append(svg(backend, curves, named, colours));
            }
        });
        return sb.length() == 0
                ? "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart-svg\" width=\"" + WIDTH
                        + "\" height=\"40\" role=\"img\"><text x=\"10\" y=\"20\">no data</text></svg>\n"
                : sb.toString();
    }

    private static String svg(
            String backend, List<List<Double>> curves, List<ComparisonTarget> targets, List<Integer> colours) {
        double max = 1;
        for (List<Double> c : curves) {
            // scaled to the largest p99, so that one outlier does not flatten every curve
            max = Math.max(max, c.get((int) Math.floor(0.99 * (c.size() - 1))));
        }
        int plotW = WIDTH - LEFT - 24;
        int plotH = HEIGHT - BOTTOM - TOP;
        StringBuilder sb = new StringBuilder();
        sb.append(fmt(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart-svg\" width=\"%d\" height=\"%d\" role=\"img\">",
                WIDTH, HEIGHT));
        sb.append(fmt("<text class=\"group\" x=\"8\" y=\"14\">%s</text>", esc(backend)));
        sb.append(fmt(
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>",
                LEFT, HEIGHT - BOTTOM, LEFT + plotW, HEIGHT - BOTTOM));
        sb.append(fmt(
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", LEFT, TOP, LEFT, HEIGHT - BOTTOM));
        for (int q = 0; q <= 100; q += 25) {
            sb.append(fmt(
                    "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">p%d</text>",
                    LEFT + plotW * q / 100.0, HEIGHT - BOTTOM + 14, q));
        }
        sb.append(fmt("<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f µs</text>", LEFT - 4, TOP + 4, max));
        sb.append(fmt("<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>", LEFT - 4, HEIGHT - BOTTOM));
        for (int i = 0; i < curves.size(); i++) {
            List<Double> c = curves.get(i);
            StringJoiner points = new StringJoiner(" ");
            for (int k = 0; k < c.size(); k++) {
                double x = LEFT + plotW * (c.size() == 1 ? 0 : k / (double) (c.size() - 1));
                double y = (HEIGHT - BOTTOM) - plotH * Math.min(1, c.get(k) / max);
                points.add(fmt("%.1f,%.1f", x, y));
            }
            String colour = BarChart.colour(colours.get(i));
            String label = targets.get(i).name() + (targets.get(i).peer() ? " (peer)" : "");
            sb.append(fmt(
                    "<polyline class=\"curve\" fill=\"none\" stroke-width=\"2\" stroke=\"%s\" points=\"%s\">"
                            + "<title>%s</title></polyline>",
                    colour, points, esc(label)));
            sb.append(fmt(
                    "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>", LEFT + 10, TOP + 12 + 14 * i, colour, esc(label)));
        }
        return sb.append("</svg>\n").toString();
    }
}
