package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;

import io.distlock.compare.BarChart.Bar;
import io.distlock.compare.BarChart.Group;
import io.distlock.compare.BarChart.Row;
import io.distlock.compare.BarChart.Series;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Function;

/** The bar charts of the HTML report: which figures each chart shows, grouped by backend. */
final class Charts {
    private Charts() {}

    static String uncontended(ComparisonResult r) {
        List<Series> series = List.of(new Series("p50", false), new Series("p90", false), new Series("p99", false));
        return BarChart.svg(
                "uncontended",
                groups(r, t -> {
                    List<Bar> bars = new ArrayList<>();
                    for (Series s : series) {
                        value(r, t, Scenario.UNCONTENDED, s.name() + "_us")
                                .ifPresent(v -> bars.add(new Bar(s, v, fmt("%.0f", v))));
                    }
                    return bars;
                }),
                series,
                BarChart.Scale.LINEAR_PER_GROUP);
    }

    static String floor(ComparisonResult r) {
        Series measured = new Series("measured p50", false);
        Series floor = new Series("floor × round trips the protocol needs", true);
        return BarChart.svg(
                "floor",
                groups(r, t -> {
                    List<Bar> bars = new ArrayList<>();
                    value(r, t, Scenario.UNCONTENDED, "p50_us")
                            .ifPresent(v -> bars.add(new Bar(measured, v, fmt("%.0f", v))));
                    OptionalDouble f = SummaryTable.floorP50(r, t.name());
                    if (f.isPresent() && t.floorRequestsPerOperation() > 0) {
                        double v = f.getAsDouble() * t.floorRequestsPerOperation();
                        bars.add(new Bar(floor, v, fmt("%.0f", v)));
                    }
                    return bars;
                }),
                List.of(measured, floor),
                BarChart.Scale.LINEAR_PER_GROUP);
    }

    static String roundTrips(ComparisonResult r) {
        Series measured = new Series("measured", false);
        Series floor = new Series("protocol floor", true);
        return BarChart.svg(
                "roundtrips",
                groups(r, t -> {
                    List<Bar> bars = new ArrayList<>();
                    value(r, t, Scenario.UNCONTENDED, "round_trips_per_op")
                            .ifPresent(v -> bars.add(new Bar(measured, v, fmt("%.2f", v))));
                    if (t.floorRequestsPerOperation() > 0) {
                        bars.add(new Bar(
                                floor, t.floorRequestsPerOperation(), String.valueOf(t.floorRequestsPerOperation())));
                    }
                    return bars;
                }),
                List.of(measured, floor),
                BarChart.Scale.LINEAR);
    }

    /**
     * Contended throughput, each bar labelled with its rank on its server; an unfair target's bar
     * is hatched and labelled unfair, and it has no rank.
     */
    static String throughput(ComparisonResult r) {
        Series ops = new Series("acquisitions/s", false);
        Map<String, List<ComparisonTarget>> byBackend = AtAGlance.byBackend(r);
        return BarChart.svg(
                "throughput",
                groups(r, t -> {
                    for (AtAGlance.Ranked x : AtAGlance.ranking(r, t.backend())) {
                        if (x.target() == t) {
                            boolean alone = byBackend.get(t.backend()).size() == 1;
                            String text = x.unfair()
                                    ? fmt(
                                            "%.0f/s  unfair (slowest client %s): not ranked",
                                            x.opsPerSecond(), Figures.percent(x.fairShareMin()))
                                    : fmt("%.0f/s", x.opsPerSecond()) + (alone ? "" : "  #" + x.rank());
                            return List.of(new Bar(ops, x.opsPerSecond(), text, x.unfair()));
                        }
                    }
                    return List.of();
                }),
                List.of(ops),
                BarChart.Scale.LOG);
    }

    static String handoff(ComparisonResult r) {
        Series one = new Series("1 waiter", false);
        Series many = new Series(r.settings().manyWaiters() + " waiters", false);
        return BarChart.svg(
                "handoff",
                groups(r, t -> {
                    List<Bar> bars = new ArrayList<>();
                    value(r, t, Scenario.HANDOFF_1, "p50_us")
                            .ifPresent(v -> bars.add(new Bar(one, v, Figures.micros(v))));
                    value(r, t, Scenario.HANDOFF_MANY, "p50_us")
                            .ifPresent(v -> bars.add(new Bar(many, v, Figures.micros(v))));
                    return bars;
                }),
                List.of(one, many),
                BarChart.Scale.LOG);
    }

    /**
     * The rows of every backend, ours first and then the peers in the order they ran, each with the
     * bars {@code bars} gives it; targets without bars and backends without rows are left out.
     */
    static List<Group> groups(ComparisonResult r, Function<ComparisonTarget, List<Bar>> bars) {
        List<Group> groups = new ArrayList<>();
        AtAGlance.byBackend(r).forEach((backend, targets) -> {
            List<Row> rows = new ArrayList<>();
            int peer = 0;
            for (ComparisonTarget t : targets) {
                int colour = t.peer() ? peer++ : -1;
                List<Bar> b = bars.apply(t);
                if (!b.isEmpty()) {
                    rows.add(new Row(t, colour, b));
                }
            }
            if (!rows.isEmpty()) {
                groups.add(new Group(backend, rows));
            }
        });
        return groups;
    }

    private static OptionalDouble value(ComparisonResult r, ComparisonTarget t, Scenario s, String metric) {
        return r.valueIfPresent(t.name(), s, metric);
    }
}
