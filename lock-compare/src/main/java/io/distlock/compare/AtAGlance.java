package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The answer first: for each backend, distlock's figures next to each peer library on the same
 * server, as ratios in words ("2.6× faster than redisson RLock"), and the contended-throughput
 * ranking on that server, in which a target that starved some of its clients is marked unfair and
 * not ranked. The HTML cards and the Markdown "At a glance" render this.
 */
final class AtAGlance {
    /**
     * A target whose slowest contended client got less than this share of an equal split is unfair:
     * its throughput came from starving clients.
     */
    static final double UNFAIR_BELOW = 0.5;

    /** Within 5 % either way, two figures read as the same. */
    private static final double SAME_WITHIN = 1.05;

    private AtAGlance() {}

    /** Whether ours reads better, the same or worse than the peer. */
    enum Tone {
        BETTER,
        SAME,
        WORSE
    }

    /** Ours against one peer, in words. */
    record Versus(String peer, String words, Tone tone) {}

    /** One figure of a card: what, ours, a detail (may be empty), and ours against each peer. */
    record Figure(String title, String value, String detail, List<Versus> versus) {}

    /** One target's place in its backend's throughput ranking; {@code rank} 0 for an unfair target. */
    record Ranked(ComparisonTarget target, double opsPerSecond, double fairShareMin, int rank) {
        boolean unfair() {
            return rank == 0;
        }
    }

    /** One backend: ours, its peers, the figures and the throughput ranking. */
    record Card(String backend, ComparisonTarget ours, List<ComparisonTarget> peers, List<Figure> figures) {}

    static List<Card> cards(ComparisonResult r) {
        List<Card> cards = new ArrayList<>();
        byBackend(r).forEach((backend, targets) -> {
            ComparisonTarget ours =
                    targets.stream().filter(t -> !t.peer()).findFirst().orElse(targets.get(0));
            List<ComparisonTarget> peers =
                    targets.stream().filter(t -> t != ours).toList();
            cards.add(new Card(backend, ours, peers, figures(r, ours, peers)));
        });
        return cards;
    }

    /** The targets by backend, in the order the backends first appear. */
    static Map<String, List<ComparisonTarget>> byBackend(ComparisonResult r) {
        Map<String, List<ComparisonTarget>> m = new LinkedHashMap<>();
        r.targets()
                .forEach(t ->
                        m.computeIfAbsent(t.backend(), b -> new ArrayList<>()).add(t));
        return m;
    }

    /**
     * The targets of {@code backend} with a contended throughput: the fair ones by throughput,
     * ranked from 1, then the unfair ones, not ranked, whatever their throughput.
     */
    static List<Ranked> ranking(ComparisonResult r, String backend) {
        List<Ranked> fair = new ArrayList<>();
        List<Ranked> unfair = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            OptionalDouble ops = r.valueIfPresent(t.name(), Scenario.CONTENDED, "ops_per_s");
            if (!t.backend().equals(backend) || ops.isEmpty()) {
                continue;
            }
            double share = r.valueIfPresent(t.name(), Scenario.CONTENDED, "fair_share_min")
                    .orElse(1);
            (share < UNFAIR_BELOW ? unfair : fair).add(new Ranked(t, ops.getAsDouble(), share, 0));
        }
        Comparator<Ranked> fastestFirst =
                Comparator.comparingDouble(Ranked::opsPerSecond).reversed();
        fair.sort(fastestFirst);
        unfair.sort(fastestFirst);
        List<Ranked> out = new ArrayList<>();
        for (int i = 0; i < fair.size(); i++) {
            Ranked f = fair.get(i);
            out.add(new Ranked(f.target(), f.opsPerSecond(), f.fairShareMin(), i + 1));
        }
        out.addAll(unfair);
        return out;
    }

    /** Whether {@code target} starved some of its contended clients. */
    static boolean unfair(ComparisonResult r, String target) {
        OptionalDouble share = r.valueIfPresent(target, Scenario.CONTENDED, "fair_share_min");
        return share.isPresent() && share.getAsDouble() < UNFAIR_BELOW;
    }

    /** "1st", "2nd", "3rd", "4th". */
    static String ordinal(int n) {
        int tens = n % 100;
        String suffix = tens >= 11 && tens <= 13
                ? "th"
                : switch (n % 10) {
                    case 1 -> "st";
                    case 2 -> "nd";
                    case 3 -> "rd";
                    default -> "th";
                };
        return n + suffix;
    }

    private static List<Figure> figures(ComparisonResult r, ComparisonTarget ours, List<ComparisonTarget> peers) {
        List<Figure> figures = new ArrayList<>();
        latency(r, ours, peers, Scenario.UNCONTENDED, "Uncontended acquire+release")
                .ifPresent(figures::add);
        throughput(r, ours, peers).ifPresent(figures::add);
        latency(r, ours, peers, Scenario.HANDOFF_1, "Hand-off to 1 waiter").ifPresent(figures::add);
        latency(
                        r,
                        ours,
                        peers,
                        Scenario.HANDOFF_MANY,
                        fmt("Hand-off among %d waiters", r.settings().manyWaiters()))
                .ifPresent(figures::add);
        roundTrips(r, ours, peers).ifPresent(figures::add);
        CardCurves.distance(r, ours, peers).ifPresent(figures::add);
        CardCurves.curve(r, ours, peers, ScaleReport.CURVES.get(1), "requests_per_s")
                .ifPresent(figures::add);
        CardCurves.curve(r, ours, peers, ScaleReport.CURVES.get(1), "round_trips_per_s")
                .ifPresent(figures::add);
        CardCurves.curve(r, ours, peers, ScaleReport.CURVES.get(2), "p50_us").ifPresent(figures::add);
        return figures;
    }

    /**
     * The p50 of {@code s}: in each machine mode it ran in, side by side ("140 µs idle · 27 µs fast"),
     * ours against each peer mode by mode, and a detail when a mode's run found the machine in the
     * other mode.
     */
    private static Optional<Figure> latency(
            ComparisonResult r, ComparisonTarget ours, List<ComparisonTarget> peers, Scenario s, String title) {
        List<MachineMode> modes = ModesReport.measured(r, ours.name(), s);
        if (modes.size() < 2) {
            return oneMode(r, ours, peers, s, title);
        }
        List<String> values = new ArrayList<>();
        List<String> details = new ArrayList<>();
        List<Versus> versus = new ArrayList<>();
        for (MachineMode m : modes) {
            double mine = ModesReport.value(r, ours.name(), s, m, "p50_us").orElse(Double.NaN);
            values.add(Figures.micros(mine) + " " + m.label());
            ModesReport.mismatch(r, ours.name(), s, m).ifPresent(details::add);
            for (ComparisonTarget p : peers) {
                ModesReport.value(r, p.name(), s, m, "p50_us").ifPresent(theirs -> {
                    Versus v = speed(p.name(), theirs / mine, "faster", "slower", "as fast");
                    versus.add(new Versus(v.peer(), m.label() + ": " + v.words(), v.tone()));
                });
            }
        }
        return Optional.of(
                new Figure(title, String.join(" · ", values) + " (p50)", String.join("; ", details), versus));
    }

    private static Optional<Figure> oneMode(
            ComparisonResult r, ComparisonTarget ours, List<ComparisonTarget> peers, Scenario s, String title) {
        OptionalDouble mine = r.valueIfPresent(ours.name(), s, "p50_us");
        if (mine.isEmpty()) {
            return unmeasured(r, ours, s, title);
        }
        List<Versus> versus = new ArrayList<>();
        for (ComparisonTarget p : peers) {
            r.valueIfPresent(p.name(), s, "p50_us")
                    .ifPresent(theirs ->
                            versus.add(speed(p.name(), theirs / mine.getAsDouble(), "faster", "slower", "as fast")));
        }
        String detail = r.find(ours.name(), s)
                .filter(m -> m.condition().mode() != null)
                .flatMap(m ->
                        ModesReport.mismatch(r, ours.name(), s, m.condition().mode()))
                .orElse("");
        return Optional.of(new Figure(title, Figures.micros(mine.getAsDouble()) + " p50", detail, versus));
    }

    private static Optional<Figure> throughput(
            ComparisonResult r, ComparisonTarget ours, List<ComparisonTarget> peers) {
        OptionalDouble mine = r.valueIfPresent(ours.name(), Scenario.CONTENDED, "ops_per_s");
        if (mine.isEmpty()) {
            return unmeasured(r, ours, Scenario.CONTENDED, "Contended throughput");
        }
        List<Ranked> ranking = ranking(r, ours.backend());
        Ranked me = ranking.stream().filter(x -> x.target() == ours).findFirst().orElseThrow();
        long fairCount = ranking.stream().filter(x -> !x.unfair()).count();
        String detail = me.unfair()
                ? fmt(
                        "unfair: its slowest client got %s of an equal share; not ranked",
                        Figures.percent(me.fairShareMin()))
                : fmt("fair (slowest client: %s of an equal share)", Figures.percent(me.fairShareMin()))
                        + (peers.isEmpty()
                                ? ""
                                : me.rank() == 1
                                        ? "; the fastest fair target on this server"
                                        : fmt(
                                                "; ranked %s of %d fair targets on this server",
                                                ordinal(me.rank()), fairCount));
        List<Versus> versus = new ArrayList<>();
        for (ComparisonTarget p : peers) {
            OptionalDouble theirs = r.valueIfPresent(p.name(), Scenario.CONTENDED, "ops_per_s");
            if (theirs.isEmpty() || theirs.getAsDouble() <= 0) {
                continue;
            }
            Versus v = speed(p.name(), mine.getAsDouble() / theirs.getAsDouble(), "faster", "slower", "as fast");
            if (unfair(r, p.name())) {
                // neither a win nor a loss: the peer's figure came from starving clients
                v = new Versus(
                        v.peer(),
                        v.words()
                                + fmt(
                                        ", which is unfair (its slowest client got %s of an equal share) and not ranked",
                                        Figures.percent(r.value(p.name(), Scenario.CONTENDED, "fair_share_min"))),
                        Tone.SAME);
            }
            versus.add(v);
        }
        String value = fmt(
                "%.0f acquisitions/s with %.0f clients",
                mine.getAsDouble(), r.value(ours.name(), Scenario.CONTENDED, "clients"));
        return Optional.of(new Figure("Contended throughput", value, detail, versus));
    }

    private static Optional<Figure> roundTrips(
            ComparisonResult r, ComparisonTarget ours, List<ComparisonTarget> peers) {
        OptionalDouble mine = r.valueIfPresent(ours.name(), Scenario.UNCONTENDED, "round_trips_per_op");
        if (mine.isEmpty()) {
            return unmeasured(r, ours, Scenario.UNCONTENDED, "Round trips per acquire+release");
        }
        List<Versus> versus = new ArrayList<>();
        for (ComparisonTarget p : peers) {
            r.valueIfPresent(p.name(), Scenario.UNCONTENDED, "round_trips_per_op")
                    .ifPresent(theirs -> versus.add(speed(
                            p.name(),
                            theirs / mine.getAsDouble(),
                            "fewer round trips",
                            "more round trips",
                            "as many round trips")));
        }
        String floor = ours.floorRequestsPerOperation() > 0
                ? fmt(" (the protocol needs %d)", ours.floorRequestsPerOperation())
                : "";
        return Optional.of(
                new Figure("Round trips per acquire+release", fmt("%.2f", mine.getAsDouble()) + floor, "", versus));
    }

    /**
     * A figure that says why ours has no value when its scenario ran and left a note (it failed, or
     * the server gives no count); nothing when the scenario did not run.
     */
    private static Optional<Figure> unmeasured(ComparisonResult r, ComparisonTarget ours, Scenario s, String title) {
        return r.find(ours.name(), s)
                .filter(m -> m.note() != null)
                .map(m -> new Figure(title, "no figure", m.note(), List.of()));
    }

    /**
     * Ours against {@code peer} when ours is {@code factor} times better (more than 1) or worse (less
     * than 1): "2.6× faster than peer", "1.3× slower than peer", "as fast as peer".
     */
    static Versus speed(String peer, double factor, String better, String worse, String same) {
        if (!(factor > 0) || Double.isInfinite(factor)) {
            return new Versus(peer, "not comparable with " + peer, Tone.SAME);
        }
        if (factor >= SAME_WITHIN) {
            return new Versus(peer, Figures.times(factor) + " " + better + " than " + peer, Tone.BETTER);
        }
        if (factor <= 1 / SAME_WITHIN) {
            return new Versus(peer, Figures.times(1 / factor) + " " + worse + " than " + peer, Tone.WORSE);
        }
        return new Versus(peer, same + " as " + peer, Tone.SAME);
    }
}
