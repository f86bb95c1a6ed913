package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;

import io.distlock.compare.AtAGlance.Figure;
import io.distlock.compare.AtAGlance.Versus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The card figures beyond the scenarios' own: ours against the peers at the largest network delay
 * (latency against what the round trips predict), and along a scale curve (its figure at every
 * point, ours and each peer's).
 */
final class CardCurves {
    private CardCurves() {}

    /**
     * "At 1 ms each way": our acquire+release p50 and the round trips it took; each peer's, faster
     * or slower, with its round trips.
     */
    static Optional<Figure> distance(ComparisonResult r, ComparisonTarget ours, List<ComparisonTarget> peers) {
        List<Duration> delays = DelayReport.delays(r);
        if (delays.isEmpty() || delays.get(delays.size() - 1).isZero()) {
            return Optional.empty();
        }
        Duration d = delays.get(delays.size() - 1);
        OptionalDouble mine = DelayReport.value(r, ours.name(), Scenario.UNCONTENDED, d, "p50_us");
        if (mine.isEmpty()) {
            return Optional.empty();
        }
        String title = "Acquire+release at " + Figures.micros(d.toNanos() / 1e3) + " each way";
        List<Versus> versus = new ArrayList<>();
        for (ComparisonTarget p : peers) {
            DelayReport.value(r, p.name(), Scenario.UNCONTENDED, d, "p50_us").ifPresent(theirs -> {
                Versus v = AtAGlance.speed(p.name(), theirs / mine.getAsDouble(), "faster", "slower", "as fast");
                versus.add(new Versus(v.peer(), v.words() + " (" + trips(r, p.name(), d) + ")", v.tone()));
            });
        }
        return Optional.of(new Figure(
                title, Figures.micros(mine.getAsDouble()) + " p50 (" + trips(r, ours.name(), d) + ")", "", versus));
    }

    /** "2.0 round trips of 2.12 ms": the round trips an acquire+release took at {@code d}. */
    private static String trips(ComparisonResult r, String target, Duration d) {
        OptionalDouble p50 = DelayReport.value(r, target, Scenario.UNCONTENDED, d, "p50_us");
        OptionalDouble rt = DelayReport.roundTrip(r, target, d);
        OptionalDouble counted = DelayReport.value(r, target, Scenario.UNCONTENDED, d, "round_trips_per_op");
        if (p50.isEmpty() || rt.isEmpty() || rt.getAsDouble() <= 0) {
            return "no round trip measured";
        }
        return fmt("%.1f round trips of %s", p50.getAsDouble() / rt.getAsDouble(), Figures.micros(rt.getAsDouble()))
                + (counted.isPresent() ? fmt("; the server counted %.1f", counted.getAsDouble()) : "");
    }

    /**
     * A scale curve's {@code metric} at each of its points: ours as "a / b / c", each peer's the same,
     * compared at the largest point both have.
     */
    static Optional<Figure> curve(
            ComparisonResult r,
            ComparisonTarget ours,
            List<ComparisonTarget> peers,
            ScaleReport.Curve c,
            String metric) {
        List<Integer> points = ScaleReport.points(r, c);
        if (points.isEmpty() || !ScaleReport.any(r, c)) {
            return Optional.empty();
        }
        ScaleReport.Figure f = c.charted().stream()
                .filter(x -> x.metric().equals(metric))
                .findFirst()
                .orElseThrow();
        if (!ScaleReport.measured(r, c, f)) {
            return Optional.empty();
        }
        String title = fmt(
                "%s at %s %s",
                f.header().substring(0, 1).toUpperCase(java.util.Locale.ROOT)
                        + f.header().substring(1),
                String.join(" / ", points.stream().map(p -> fmt("%,d", p)).toList()),
                c.unit());
        List<Versus> versus = new ArrayList<>();
        for (ComparisonTarget p : peers) {
            String theirs = along(r, p.name(), c, f, points);
            double[] last = lastBoth(r, ours.name(), p.name(), c, metric, points);
            Versus v = last == null
                    ? new Versus(p.name(), p.name() + ": " + theirs, AtAGlance.Tone.SAME)
                    : new Versus(
                            p.name(),
                            p.name() + ": " + theirs,
                            last[0] < last[1] / 1.05
                                    ? AtAGlance.Tone.BETTER
                                    : last[0] > last[1] * 1.05 ? AtAGlance.Tone.WORSE : AtAGlance.Tone.SAME);
            versus.add(v);
        }
        return Optional.of(new Figure(title, along(r, ours.name(), c, f, points), "", versus));
    }

    /** The figure at each point, "–" or "not run" where there is none. */
    private static String along(
            ComparisonResult r, String target, ScaleReport.Curve c, ScaleReport.Figure f, List<Integer> points) {
        List<String> out = new ArrayList<>();
        for (int p : points) {
            Optional<Measurement> m = ScaleReport.point(r, target, c, p);
            OptionalDouble v = m.map(x -> x.value(f.metric())).orElse(OptionalDouble.empty());
            out.add(
                    v.isPresent()
                            ? f.format().apply(v.getAsDouble())
                            : m.filter(x -> x.note() != null && x.note().startsWith("not measured"))
                                    .map(x -> "not run")
                                    .orElse("–"));
        }
        return String.join(" / ", out);
    }

    /** Ours and theirs at the largest point both measured (lower is better), or null. */
    private static double[] lastBoth(
            ComparisonResult r, String ours, String theirs, ScaleReport.Curve c, String metric, List<Integer> points) {
        for (int i = points.size() - 1; i >= 0; i--) {
            OptionalDouble a = ScaleReport.value(r, ours, c, points.get(i), metric);
            OptionalDouble b = ScaleReport.value(r, theirs, c, points.get(i), metric);
            if (a.isPresent() && b.isPresent()) {
                return new double[] {a.getAsDouble(), b.getAsDouble()};
            }
        }
        return null;
    }
}
