package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.DoubleFunction;

/**
 * The scale curves in the reports: for each curve (contending clients, held locks, waiters) a table
 * of every target's points with what each point cost (time, connections, threads, heap), and a chart
 * per figure with one small chart per backend.
 */
final class ScaleReport {
    private ScaleReport() {}

    /** One curve: its scenario, what a point counts, its title, its figures (charted) and its table columns. */
    record Curve(Scenario scenario, String unit, String title, List<Figure> charted, List<Figure> columns) {}

    /** A figure of a point: its metric, header, format, and whether its chart has a log y axis. */
    record Figure(String metric, String header, DoubleFunction<String> format, boolean log) {}

    private static final Figure CONNECTIONS =
            new Figure("connections", "connections opened", v -> fmt("%.0f", v), false);
    private static final Figure THREADS = new Figure("client_threads", "client threads", v -> fmt("%.0f", v), false);
    private static final Figure POINT_TIME = new Figure("point_s", "point took s", v -> fmt("%.1f", v), false);

    static final List<Curve> CURVES = List.of(
            new Curve(
                    Scenario.CONTENDED,
                    "clients",
                    "Contending clients on one lock",
                    List.of(
                            new Figure("ops_per_s", "acquisitions/s", v -> fmt("%.0f", v), true),
                            new Figure("p99_wait_us", "p99 wait", Figures::micros, true),
                            new Figure("fair_share_min", "fair share min", v -> fmt("%.2f", v), false)),
                    List.of(CONNECTIONS, THREADS, POINT_TIME)),
            new Curve(
                    Scenario.RENEWAL,
                    "held locks",
                    "Distinct locks held by one client",
                    List.of(
                            new Figure("requests_per_s", "server requests/s while held", v -> fmt("%.1f", v), false),
                            new Figure("round_trips_per_s", "round trips/s while held", v -> fmt("%.1f", v), false),
                            new Figure("client_heap_mb", "client heap after GC, MB", ScaleReport::megabytes, false),
                            CONNECTIONS),
                    List.of(
                            THREADS,
                            new Figure("acquire_s", "acquiring took s", v -> fmt("%.1f", v), false),
                            new Figure("release_s", "releasing took s", v -> fmt("%.1f", v), false),
                            POINT_TIME)),
            new Curve(
                    Scenario.HANDOFF_MANY,
                    "waiters",
                    "Waiters on one lock",
                    List.of(new Figure("p50_us", "hand-off p50", Figures::micros, true), CONNECTIONS),
                    List.of(new Figure("clients", "clients", v -> fmt("%.0f", v), false), THREADS, POINT_TIME)));

    /** A heap difference in MB; below half a megabyte it is noise of the collection: "< 0.5". */
    static String megabytes(double mb) {
        return mb < 0.5 ? "< 0.5" : fmt("%.1f", mb);
    }

    /** The points of {@code c} the run measured (or meant to), ascending. */
    static List<Integer> points(ComparisonResult r, Curve c) {
        return r.settings().scale().points(c.scenario());
    }

    /** Whether any target has a point of {@code c}. */
    static boolean any(ComparisonResult r, Curve c) {
        return r.measurements().stream()
                .anyMatch(m -> m.scenario() == c.scenario() && m.condition().point() > 0);
    }

    /** Whether any point of {@code c} has {@code f}'s figure (a figure no target measured is left out). */
    static boolean measured(ComparisonResult r, Curve c, Figure f) {
        return r.measurements().stream()
                .anyMatch(m -> m.scenario() == c.scenario()
                        && m.condition().point() > 0
                        && m.value(f.metric()).isPresent());
    }

    /** {@code c}'s charted figures that some point has. */
    static List<Figure> charted(ComparisonResult r, Curve c) {
        return c.charted().stream().filter(f -> measured(r, c, f)).toList();
    }

    /** {@code c}'s table columns that some point has. */
    static List<Figure> columns(ComparisonResult r, Curve c) {
        return c.columns().stream().filter(f -> measured(r, c, f)).toList();
    }

    static Optional<Measurement> point(ComparisonResult r, String target, Curve c, int p) {
        return r.find(target, c.scenario(), Condition.point(p));
    }

    static OptionalDouble value(ComparisonResult r, String target, Curve c, int p, String metric) {
        return point(r, target, c, p).map(m -> m.value(metric)).orElse(OptionalDouble.empty());
    }

    static String explanation(ComparisonResult r) {
        ScalePoints s = r.settings().scale();
        return fmt(
                "Each point is a short, bounded measurement with fresh clients, after the other scenarios, with"
                        + " nothing added to the machine. Contending clients: each point contends for %.1f s after a"
                        + " quarter of that unmeasured; the wait is from the acquire call to the lock in hand. Held"
                        + " locks: one client acquires that many distinct locks (from up to %d threads), holds them for"
                        + " %.1f s and counts the server's requests per second after the first fifth of the hold, and the"
                        + " round trips per second through the backend's delay line (its TCP proxies, with no delay"
                        + " added) when the run has one: a client's wait for its server, however many requests it"
                        + " wrote together; the"
                        + " heap is this JVM's after a full collection, against before the client opened. Waiters: hand-offs"
                        + " as in the hand-off scenario, the waiters spread over at most %d clients (beyond that, several"
                        + " threads of a client wait). Connections are the TCP connections from this machine to the"
                        + " server that the point's clients added; client threads, the threads they added to this JVM. A"
                        + " point a library cannot run says why below; a target's points after a failed one are not run.",
                s.contendedDuration().toMillis() / 1000.0,
                HeldLocksScenario.THREADS,
                s.hold().toMillis() / 1000.0,
                s.maxWaiterClients());
    }

    static Table table(ComparisonResult r, Curve c) {
        List<String> headers = new ArrayList<>(List.of(SummaryTable.TARGET_HEADER, c.unit()));
        List<Figure> figures = concat(charted(r, c), columns(r, c));
        figures.forEach(f -> headers.add(f.header()));
        List<Table.Row> rows = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            for (int p : points(r, c)) {
                Optional<Measurement> m = point(r, t.name(), c, p);
                if (m.isEmpty()) {
                    continue;
                }
                List<String> cells = new ArrayList<>();
                cells.add(fmt("%,d", p));
                for (Figure f : figures) {
                    OptionalDouble v = m.get().value(f.metric());
                    cells.add(v.isPresent() ? f.format().apply(v.getAsDouble()) : "–");
                }
                rows.add(new Table.Row(t, cells));
            }
        }
        return new Table(headers, rows);
    }

    private static List<Figure> concat(List<Figure> a, List<Figure> b) {
        List<Figure> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** The small charts of {@code f} for curve {@code c}: the figure against the points, log x. */
    static String chart(ComparisonResult r, Curve c, Figure f) {
        return LineChart.smallMultiples(
                r,
                "scale-" + c.unit().replace(' ', '-') + "-" + f.metric(),
                new LineChart.Axis(LineChart.Scale.LOG, v -> fmt("%,.0f", v), c.unit()),
                new LineChart.Axis(f.log() ? LineChart.Scale.LOG : LineChart.Scale.LINEAR, f.format(), f.header()),
                rows -> {
                    List<LineChart.Line> lines = new ArrayList<>();
                    for (LineChart.Row row : rows) {
                        List<LineChart.Point> pts = new ArrayList<>();
                        for (int p : points(r, c)) {
                            OptionalDouble v = value(r, row.target().name(), c, p, f.metric());
                            if (v.isPresent() && (!f.log() || v.getAsDouble() > 0)) {
                                pts.add(new LineChart.Point(
                                        p, v.getAsDouble(), f.format().apply(v.getAsDouble())));
                            }
                        }
                        lines.add(new LineChart.Line(
                                row.target(),
                                row.peerIndex(),
                                false,
                                row.target().name(),
                                pts));
                    }
                    return lines;
                });
    }
}
