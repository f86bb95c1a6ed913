package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;

import io.distlock.compare.BarChart.Bar;
import io.distlock.compare.BarChart.Series;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The machine modes in the reports: which modes the latency and hand-off scenarios ran in, the mode
 * each measurement actually ran in (from the wake-up probe), a table of those figures by mode and
 * a chart of the uncontended latency in each.
 */
final class ModesReport {
    private ModesReport() {}

    /** Whether any measurement ran in a forced machine mode. */
    static boolean any(ComparisonResult r) {
        return r.measurements().stream().anyMatch(m -> m.condition().mode() != null);
    }

    /** "Both machine modes", or "The idle machine mode" when the run used one. */
    static String title(ComparisonResult r) {
        return r.settings().modes().size() > 1
                ? "Both machine modes"
                : "The " + r.settings().modes().get(0).label() + " machine mode";
    }

    /** The modes {@code target}'s {@code s} was measured in, in the run's order. */
    static List<MachineMode> measured(ComparisonResult r, String target, Scenario s) {
        List<MachineMode> out = new ArrayList<>();
        for (MachineMode m : r.settings().modes()) {
            if (r.find(target, s, Condition.of(m)).isPresent()) {
                out.add(m);
            }
        }
        return out;
    }

    /** {@code metric} of {@code s} in {@code mode}. */
    static OptionalDouble value(ComparisonResult r, String target, Scenario s, MachineMode mode, String metric) {
        return r.valueIfPresent(target, s, Condition.of(mode), metric);
    }

    /**
     * For a measurement forced into {@code mode} that the probe found in another: "its idle-mode run
     * ran in the fast mode"; empty when it ran in the mode asked for or was not probed.
     */
    static Optional<String> mismatch(ComparisonResult r, String target, Scenario s, MachineMode mode) {
        return r.find(target, s, Condition.of(mode)).flatMap(m -> {
            String ran = r.detectedMode(m);
            if (ran.isEmpty() || ran.equals(mode.label())) {
                return Optional.empty();
            }
            return Optional.of(
                    ran.equals("mixed")
                            ? fmt("the %s-mode run ran partly in the other mode", mode.label())
                            : fmt(
                                    "the %s-mode run ran in the %s mode (the machine was %s)",
                                    mode.label(), ran, ran.equals("fast") ? "busy" : "idle"));
        });
    }

    /** How the modes were forced and detected, in sentences; empty if the run has no probe readings. */
    static String explanation(ComparisonResult r) {
        Map<String, String> env = r.environment();
        String fast = env.get(MachineModes.FAST_REFERENCE);
        String idle = env.get(MachineModes.IDLE_REFERENCE);
        String above = env.get(MachineModes.IDLE_ABOVE);
        if (fast == null || idle == null || above == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(fmt(
                "The latency and hand-off scenarios ran in %s. In the fast mode a thread of the comparison spins"
                        + " on one core, so that a reply finds a vCPU awake (%s); in the idle mode nothing is added, and where"
                        + " the machine's other vCPUs have nothing to do, a reply has to rouse a halted one first. A"
                        + " wake-up probe (a round trip between two parked threads, after a pause) tells which mode a"
                        + " measurement ran in: at the start it read %s µs with the core spinning and %s µs with nothing"
                        + " added; a measurement whose probe read more than %s µs just before and just after it ran in"
                        + " the idle mode (\"mixed\": one of each).",
                r.settings().modes().size() > 1
                        ? "both machine modes"
                        : "the " + r.settings().modes().get(0).label() + " mode only",
                SpinnerPriority.SCHED_IDLE.equals(env.get(MachineModes.SPINNER_POLICY))
                        ? "at Linux's lowest priority, SCHED_IDLE: it runs only while nothing else wants the core and"
                                + " gives way at once, so the measured clients and servers keep every core"
                        : "at normal priority: it takes one core's time from the measured clients and servers, which"
                                + " slows a target that runs many processes or threads at once",
                fast,
                idle,
                above));
        if (Double.parseDouble(idle) <= Double.parseDouble(above)) {
            sb.append(" With nothing added the probe already read the fast mode: the machine was busy with other"
                    + " work, so its idle-mode runs may have run in the fast mode too (the \"ran in\" column says).");
        }
        return sb.toString();
    }

    /** Every target's figures by mode: one row per target and mode. */
    static Table table(ComparisonResult r) {
        List<Table.Row> rows = new ArrayList<>();
        for (ComparisonTarget t : r.targets()) {
            for (MachineMode m : r.settings().modes()) {
                Optional<Measurement> u = r.find(t.name(), Scenario.UNCONTENDED, Condition.of(m));
                Optional<Measurement> h1 = r.find(t.name(), Scenario.HANDOFF_1, Condition.of(m));
                Optional<Measurement> hm = r.find(t.name(), Scenario.HANDOFF_MANY, Condition.of(m));
                if (u.isEmpty() && h1.isEmpty() && hm.isEmpty()) {
                    continue;
                }
                List<String> cells = new ArrayList<>();
                cells.add(m.label());
                cells.add(ranIn(r, u, h1, hm));
                OptionalDouble floor = value(r, t.name(), Scenario.UNCONTENDED, m, "floor_p50_us");
                OptionalDouble p50 = value(r, t.name(), Scenario.UNCONTENDED, m, "p50_us");
                cells.add(Figures.fmt(floor, "%.0f"));
                cells.add(Figures.fmt(p50, "%.0f"));
                cells.add(
                        floor.isPresent() && p50.isPresent() && t.floorRequestsPerOperation() > 0
                                ? fmt("%.2f", p50.getAsDouble() / (floor.getAsDouble() * t.floorRequestsPerOperation()))
                                : "–");
                cells.add(Figures.fmt(value(r, t.name(), Scenario.HANDOFF_1, m, "p50_us"), "%.0f") + " / "
                        + Figures.fmt(value(r, t.name(), Scenario.HANDOFF_MANY, m, "p50_us"), "%.0f"));
                rows.add(new Table.Row(t, cells));
            }
        }
        return new Table(
                List.of(
                        SummaryTable.TARGET_HEADER,
                        "mode",
                        "ran in",
                        "floor p50 µs",
                        "acquire+release p50 µs",
                        "× floor",
                        "hand-off p50 µs (1 / many)"),
                rows);
    }

    /** The detected modes of a row's measurements: one word when they agree. */
    @SafeVarargs
    private static String ranIn(ComparisonResult r, Optional<Measurement>... measurements) {
        List<String> seen = new ArrayList<>();
        for (Optional<Measurement> m : measurements) {
            m.map(r::detectedMode).filter(d -> !d.isEmpty()).ifPresent(seen::add);
        }
        if (seen.isEmpty()) {
            return "–";
        }
        return seen.stream().distinct().count() == 1 ? seen.get(0) : String.join(" / ", seen);
    }

    /** The uncontended p50 of every target in each mode, bars grouped by backend. */
    static String chart(ComparisonResult r) {
        List<Series> series = new ArrayList<>();
        for (MachineMode m : r.settings().modes()) {
            series.add(new Series(m.label() + " mode", false));
        }
        return BarChart.svg(
                "modes",
                Charts.groups(r, t -> {
                    List<Bar> bars = new ArrayList<>();
                    for (int i = 0; i < series.size(); i++) {
                        MachineMode m = r.settings().modes().get(i);
                        Series s = series.get(i);
                        value(r, t.name(), Scenario.UNCONTENDED, m, "p50_us")
                                .ifPresent(v -> bars.add(new Bar(s, v, Figures.micros(v) + " " + s.name())));
                    }
                    return bars;
                }),
                series,
                BarChart.Scale.LINEAR_PER_GROUP);
    }
}
