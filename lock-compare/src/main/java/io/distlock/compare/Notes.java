package io.distlock.compare;

import static io.distlock.compare.Figures.fmt;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeSet;

/**
 * The notes under the table, one plain sentence each: the latency against the floor block by block,
 * against the extra floors, ours against each peer measured in alternating blocks, the hand-offs
 * against their floors, and what went wrong in a scenario.
 */
final class Notes {
    private static final String BY_BLOCKS_PREFIX = "over_";
    private static final String BY_BLOCKS_SUFFIX = "_by_blocks";

    private Notes() {}

    static List<String> of(ComparisonResult r) {
        List<String> notes = new ArrayList<>();
        r.targets().forEach(t -> floorByBlocks(r, t).ifPresent(notes::add));
        r.targets().forEach(t -> notes.addAll(extraFloors(r, t)));
        r.targets().forEach(t -> oursOverPeer(r, t).ifPresent(notes::add));
        List<String> handoffs = new ArrayList<>();
        r.targets().forEach(t -> handoffs.addAll(handoffFloors(r, t)));
        if (!handoffs.isEmpty()) {
            notes.add(HANDOFF_FLOOR_MEANING);
            notes.addAll(handoffs);
        }
        for (Measurement m : r.measurements()) {
            if (m.note() != null) {
                Condition c = m.condition();
                String where = c.point() > 0
                        ? fmt(" at %,d %s", c.point(), Comparison.unit(m.scenario()))
                        : c.label().isEmpty() ? "" : " (" + c.label() + ")";
                notes.add(fmt("%s, %s%s: %s.", m.target(), m.scenario().title(), where, m.note()));
            }
        }
        return notes;
    }

    private static Optional<String> floorByBlocks(ComparisonResult r, ComparisonTarget t) {
        OptionalDouble byBlocks = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "over_floor_by_blocks");
        if (byBlocks.isEmpty() || Double.isNaN(byBlocks.getAsDouble())) {
            return Optional.empty();
        }
        return Optional.of(fmt(
                "%s: block by block, acquire+release took %.2f × the floor of %d round trips (the median, over the"
                        + " interleaved blocks, of each block's p50 ÷ the p50 of the floor block next to it).",
                t.name(), byBlocks.getAsDouble(), t.floorRequestsPerOperation()));
    }

    /**
     * The extra floors a target was measured against, read from its values (a {@code
     * over_<metric>_by_blocks} for every {@code <metric>} other than the round-trip floor), so that
     * a result read back from JSON has the same notes.
     */
    private static List<String> extraFloors(ComparisonResult r, ComparisonTarget t) {
        List<String> out = new ArrayList<>();
        Map<String, Double> values =
                r.find(t.name(), Scenario.UNCONTENDED).map(Measurement::values).orElse(Map.of());
        OptionalDouble p50 = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "p50_us");
        TreeSet<String> metrics = new TreeSet<>();
        for (String key : values.keySet()) {
            if (key.startsWith(BY_BLOCKS_PREFIX) && key.endsWith(BY_BLOCKS_SUFFIX)) {
                String metric = key.substring(BY_BLOCKS_PREFIX.length(), key.length() - BY_BLOCKS_SUFFIX.length());
                if (!metric.equals("floor") && values.containsKey(metric + "_p50_us")) {
                    metrics.add(metric);
                }
            }
        }
        if (p50.isEmpty()) {
            return out;
        }
        for (String metric : metrics) {
            double extra = values.get(metric + "_p50_us");
            OptionalDouble floor = r.valueIfPresent(t.name(), Scenario.UNCONTENDED, "floor_p50_us");
            String overFloor = floor.isPresent() && t.floorRequestsPerOperation() > 0
                    ? fmt(
                            ", %.2f × the round-trip floor",
                            extra / (floor.getAsDouble() * t.floorRequestsPerOperation()))
                    : "";
            out.add(fmt(
                    "%s: the %s, timed in blocks between its operations, took %.0f µs at p50%s; acquire+release"
                            + " took %.2f × it (%s × block by block).",
                    t.name(),
                    metric.replace('_', ' '),
                    extra,
                    overFloor,
                    p50.getAsDouble() / extra,
                    Figures.fmt(
                            r.valueIfPresent(
                                    t.name(), Scenario.UNCONTENDED, BY_BLOCKS_PREFIX + metric + BY_BLOCKS_SUFFIX),
                            "%.2f")));
        }
        return out;
    }

    private static Optional<String> oursOverPeer(ComparisonResult r, ComparisonTarget peer) {
        OptionalDouble vsOurs = r.valueIfPresent(peer.name(), Scenario.UNCONTENDED, "distlock_over_this_p50");
        if (vsOurs.isEmpty()) {
            return Optional.empty();
        }
        return r.targets().stream()
                .filter(o -> !o.peer() && o.backend().equals(peer.backend()))
                .findFirst()
                .map(o -> fmt(
                        "%s: its acquire+release p50 is %.2f × %s's, the two measured in alternating blocks.",
                        o.name(), vsOurs.getAsDouble(), peer.name()));
    }

    private static List<String> handoffFloors(ComparisonResult r, ComparisonTarget t) {
        List<String> out = new ArrayList<>();
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
                floors.add(fmt(
                        "%.2f × the hand-off floor (%.0f µs)",
                        p50.getAsDouble() / floor.getAsDouble(), floor.getAsDouble()));
            }
            if (idle.isPresent()) {
                floors.add(fmt(
                        "%.2f × it after the hold's idle (%.0f µs)",
                        p50.getAsDouble() / idle.getAsDouble(), idle.getAsDouble()));
            }
            if (roundTrip.isPresent() && roundTrip.getAsDouble() > 0) {
                floors.add(fmt(
                        "%.1f floor round trips after the same idle (%.0f µs each)",
                        p50.getAsDouble() / roundTrip.getAsDouble(), roundTrip.getAsDouble()));
            }
            if (!floors.isEmpty()) {
                out.add(fmt(
                        "%s, %s: %.0f µs, that is %s.",
                        t.name(), s.title(), p50.getAsDouble(), String.join(", ", floors)));
            }
        }
        return out;
    }

    /** What the hand-off floor is, said once before the notes that use it. */
    static final String HANDOFF_FLOOR_MEANING = "The hand-off floor is the least a hand-off can take on that server:"
            + " one client's raw release signal (a delete of a watched key or node, or a PUBLISH) reaching another"
            + " client, plus one raw read by that client; it is timed back to back and after the same idle time as"
            + " the holders' hold.";
}
