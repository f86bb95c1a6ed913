package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The network delays in the reports: for each target at each one-way delay, the round trip through
 * the delay line, the round trips an acquire+release needs, what those predict and what it took,
 * the contended throughput and the hand-off; and latency and throughput charted against the delay.
 */
final class DelayReport {
    private DelayReport() {}

    /** Whether the run measured anything at a delay above zero. */
    static boolean any(ComparisonResult r) {
        return r.measurements().stream()
                .anyMatch(m -> !m.condition().oneWayDelay().isZero());
    }

    /** The delays to show: the run's, 0 meaning the direct figures. */
    static List<Duration> delays(ComparisonResult r) {
        return r.settings().oneWayDelays();
    }

    /** {@code target}'s {@code s} at {@code delay}: the direct measurement at 0. */
    static Optional<Measurement> at(ComparisonResult r, String target, Scenario s, Duration delay) {
        return delay.isZero() ? r.find(target, s) : r.find(target, s, Condition.delayed(delay));
    }

    static OptionalDouble value(ComparisonResult r, String target, Scenario s, Duration delay, String metric) {
        return at(r, target, s, delay).map(m -> m.value(metric)).orElse(OptionalDouble.empty());
    }

    /** The round trip at {@code delay}: the floor interleaved with the uncontended run there. */
    static OptionalDouble roundTrip(ComparisonResult r, String target, Duration delay) {
        return delay.isZero()
                ? SummaryTable.floorP50(r, target)
                : value(r, target, Scenario.UNCONTENDED, delay, "floor_p50_us");
    }

    /** Round trips per acquire+release at {@code delay} times the round trip there, in µs. */
    static OptionalDouble predicted(ComparisonResult r, String target, Duration delay) {
        OptionalDouble trips = value(r, target, Scenario.UNCONTENDED, delay, "round_trips_per_op");
        OptionalDouble rt = roundTrip(r, target, delay);
        return trips.isPresent() && rt.isPresent()
                ? OptionalDouble.of(trips.getAsDouble() * rt.getAsDouble())
                : OptionalDouble.empty();
    }

    static String explanation(ComparisonResult r) {
        return "At each one-way delay every connection of every target, ours and the peers', went through a TCP"
                + " proxy per server that holds each chunk for the delay in each direction and delivers it in order"
                + " (lock-testing's TcpProxy; \"proxy late\" is how long after its due time it delivered a chunk, at"
                + " the median); 0 is the direct run, without a proxy. The round trip is the raw request timed through"
                + " the proxy, in blocks between the target's operations: twice the delay plus what the proxy's own"
                + " hops cost. An acquire+release should take the round trips it needs, counted by the server, times"
                + " that round trip: the ratio column says how close it came, and the ranking at a distance follows"
                + " the round trips.";
    }

    static Table table(ComparisonResult r) {
        List<Table.Row> rows = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            for (Duration d : delays(r)) {
                if (!d.isZero()
                        && at(r, t.name(), Scenario.UNCONTENDED, d).isEmpty()
                        && at(r, t.name(), Scenario.CONTENDED, d).isEmpty()) {
                    continue;
                }
                OptionalDouble p50 = value(r, t.name(), Scenario.UNCONTENDED, d, "p50_us");
                OptionalDouble predicted = predicted(r, t.name(), d);
                List<String> cells = new ArrayList<>();
                cells.add(d.isZero() ? "0 (direct)" : Figures.micros(d.toNanos() / 1e3));
                cells.add(Figures.fmt(roundTrip(r, t.name(), d), "%.0f"));
                cells.add(Figures.fmt(value(r, t.name(), Scenario.UNCONTENDED, d, "round_trips_per_op"), "%.2f"));
                cells.add(Figures.fmt(predicted, "%.0f"));
                cells.add(Figures.fmt(p50, "%.0f"));
                cells.add(
                        p50.isPresent() && predicted.isPresent() && predicted.getAsDouble() > 0
                                ? fmt("%.2f", p50.getAsDouble() / predicted.getAsDouble())
                                : "–");
                cells.add(Figures.fmt(value(r, t.name(), Scenario.CONTENDED, d, "ops_per_s"), "%.0f"));
                cells.add(Figures.fmt(value(r, t.name(), Scenario.HANDOFF_1, d, "p50_us"), "%.0f"));
                cells.add(Figures.fmt(value(r, t.name(), Scenario.UNCONTENDED, d, "delay_lateness_p50_us"), "%.1f"));
                rows.add(new Table.Row(t, cells));
            }
        }
        return new Table(
                List.of(
                        SummaryTable.TARGET_HEADER,
                        "one-way delay",
                        "round trip p50 µs",
                        "round trips/op",
                        "round trips × round trip µs",
                        "acquire+release p50 µs",
                        "÷ round trips × round trip",
                        "contended ops/s",
                        "hand-off p50 µs (1 waiter)",
                        "proxy late p50 µs"),
                rows);
    }

    private static final LineChart.Axis DELAY_AXIS =
            new LineChart.Axis(LineChart.Scale.LINEAR, us -> us == 0 ? "0" : Figures.micros(us), "one-way delay");

    /** Acquire+release p50 against the delay, per backend; dashed: round trips × round trip. */
    static String latencyChart(ComparisonResult r) {
        return LineChart.smallMultiples(
                r,
                "delay-latency",
                DELAY_AXIS,
                new LineChart.Axis(LineChart.Scale.LINEAR, us -> Figures.micros(us), "acquire+release p50"),
                rows -> {
                    List<LineChart.Line> lines = new ArrayList<>();
                    for (LineChart.Row row : rows) {
                        String name = row.target().name();
                        List<LineChart.Point> measured = new ArrayList<>();
                        List<LineChart.Point> expected = new ArrayList<>();
                        for (Duration d : delays(r)) {
                            double x = d.toNanos() / 1e3;
                            value(r, name, Scenario.UNCONTENDED, d, "p50_us")
                                    .ifPresent(v -> measured.add(new LineChart.Point(x, v, Figures.micros(v))));
                            predicted(r, name, d)
                                    .ifPresent(v -> expected.add(new LineChart.Point(x, v, Figures.micros(v))));
                        }
                        if (measured.size() > 1) {
                            lines.add(new LineChart.Line(row.target(), row.peerIndex(), false, name, measured));
                            lines.add(new LineChart.Line(
                                    row.target(),
                                    row.peerIndex(),
                                    true,
                                    name + ": round trips × round trip",
                                    expected));
                        }
                    }
                    return lines;
                });
    }

    /** Contended throughput against the delay, per backend (log scale). */
    static String throughputChart(ComparisonResult r) {
        return LineChart.smallMultiples(
                r,
                "delay-throughput",
                DELAY_AXIS,
                new LineChart.Axis(LineChart.Scale.LOG, v -> fmt("%.0f/s", v), "contended acquisitions/s"),
                rows -> {
                    List<LineChart.Line> lines = new ArrayList<>();
                    for (LineChart.Row row : rows) {
                        String name = row.target().name();
                        List<LineChart.Point> points = new ArrayList<>();
                        for (Duration d : delays(r)) {
                            double x = d.toNanos() / 1e3;
                            value(r, name, Scenario.CONTENDED, d, "ops_per_s")
                                    .ifPresent(v -> points.add(new LineChart.Point(x, v, fmt("%.0f/s", v))));
                        }
                        if (points.size() > 1) {
                            lines.add(new LineChart.Line(row.target(), row.peerIndex(), false, name, points));
                        }
                    }
                    return lines;
                });
    }
}
