package io.distlock.compare;

import io.distlock.Capabilities;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reads a {@code results.json} written by {@link JsonReport} back into a {@link ComparisonResult},
 * so that the reports (Markdown, HTML, the generated performance page) can be rendered again from a
 * recorded run. The targets it returns describe what ran; they cannot open clients.
 */
final class ResultsJsonReader {
    private ResultsJsonReader() {}

    static ComparisonResult read(String json) {
        Map<String, Object> root = map(JsonParser.parse(json), "the file");
        Map<String, String> environment = new LinkedHashMap<>();
        map(root.get("environment"), "environment").forEach((k, v) -> environment.put(k, String.valueOf(v)));
        List<ComparisonTarget> targets = new ArrayList<>();
        for (Object o : list(root.get("targets"), "targets")) {
            targets.add(target(map(o, "a target")));
        }
        List<Measurement> measurements = new ArrayList<>();
        for (Object o : list(root.get("measurements"), "measurements")) {
            measurements.add(measurement(map(o, "a measurement")));
        }
        Duration elapsed = Duration.ofMillis(Math.round(number(root, "elapsed_s") * 1000));
        return new ComparisonResult(
                settings(map(root.get("settings"), "settings")),
                List.copyOf(targets),
                List.copyOf(measurements),
                elapsed,
                environment);
    }

    private static ComparisonSettings settings(Map<String, Object> s) {
        Set<Scenario> scenarios = EnumSet.noneOf(Scenario.class);
        for (Object name : list(s.get("scenarios"), "settings.scenarios")) {
            scenarios.add(Scenario.valueOf(String.valueOf(name)));
        }
        return new ComparisonSettings(
                scenarios,
                (int) number(s, "warmup"),
                (int) number(s, "iterations"),
                (int) number(s, "contended_clients"),
                Duration.ofMillis(Math.round(number(s, "contended_duration_s") * 1000)),
                (int) number(s, "handoff_rounds"),
                // not recorded: the time cap only bounds a run, no figure depends on it
                ComparisonSettings.defaults().handoffMaxDuration(),
                (int) number(s, "many_waiters"),
                Duration.ofNanos(Math.round(number(s, "hold_before_release_ms") * 1e6)),
                (int) number(s, "distinct_names"),
                Duration.ofMillis(Math.round(number(s, "renewal_hold_s") * 1000)),
                (int) number(s, "renewal_locks"),
                modes(s),
                delays(s),
                scale(s));
    }

    /** The recorded modes; a file from before modes were recorded ran one, with nothing added. */
    private static List<MachineMode> modes(Map<String, Object> s) {
        if (s.get("modes") == null) {
            return List.of(MachineMode.IDLE);
        }
        List<MachineMode> modes = new ArrayList<>();
        for (Object m : list(s.get("modes"), "settings.modes")) {
            modes.add(MachineMode.valueOf(String.valueOf(m)));
        }
        return modes;
    }

    private static List<Duration> delays(Map<String, Object> s) {
        List<Duration> delays = new ArrayList<>();
        if (s.get("one_way_delays_us") != null) {
            for (Object d : list(s.get("one_way_delays_us"), "settings.one_way_delays_us")) {
                delays.add(Duration.ofNanos(Math.round(((Double) d) * 1e3)));
            }
        }
        return delays;
    }

    private static ScalePoints scale(Map<String, Object> s) {
        if (s.get("scale") == null) {
            return ScalePoints.NONE;
        }
        Map<String, Object> scale = map(s.get("scale"), "settings.scale");
        return new ScalePoints(
                integers(scale, "clients"),
                integers(scale, "held_locks"),
                integers(scale, "waiters"),
                Duration.ofMillis(Math.round(number(scale, "contended_duration_s") * 1000)),
                Duration.ofMillis(Math.round(number(scale, "hold_s") * 1000)),
                (int) number(scale, "max_waiter_clients"));
    }

    private static List<Integer> integers(Map<String, Object> m, String key) {
        List<Integer> out = new ArrayList<>();
        for (Object o : list(m.get(key), "settings.scale." + key)) {
            out.add(((Double) o).intValue());
        }
        return out;
    }

    private static ComparisonTarget target(Map<String, Object> t) {
        String name = text(t, "name");
        Supplier<LockClient> noClients = () -> {
            throw new IllegalStateException("target '" + name + "' was read from results.json: it cannot open clients");
        };
        Object version = t.get("server_version");
        Capabilities caps =
                t.get("capabilities") == null ? null : capabilities(map(t.get("capabilities"), "capabilities"));
        return new ComparisonTarget(
                name,
                text(t, "backend"),
                Boolean.TRUE.equals(t.get("peer")),
                noClients,
                null,
                null,
                (int) number(t, "protocol_floor_round_trips"),
                version == null ? null : String.valueOf(version),
                caps,
                Map.of(),
                null);
    }

    private static Capabilities capabilities(Map<String, Object> c) {
        return Capabilities.builder()
                .fencing(Capabilities.Fencing.valueOf(text(c, "fencing")))
                .fencingSurvivesServerRestart(Boolean.TRUE.equals(c.get("fencing_survives_server_restart")))
                .automaticRenewal(Boolean.TRUE.equals(c.get("automatic_renewal")))
                .wakeUp(Capabilities.WakeUp.valueOf(text(c, "wake_up")))
                .fifo(Boolean.TRUE.equals(c.get("fifo")))
                .reentrant(Boolean.TRUE.equals(c.get("reentrant")))
                .failover(Capabilities.Failover.valueOf(text(c, "failover")))
                .build();
    }

    private static Measurement measurement(Map<String, Object> m) {
        Map<String, Double> values = new LinkedHashMap<>();
        map(m.get("values"), "values").forEach((k, v) -> {
            if (v instanceof Double d) { // null: NaN or infinite when written
                values.put(k, d);
            }
        });
        List<Double> samples = new ArrayList<>();
        if (m.get("samples_us") != null) {
            for (Object o : list(m.get("samples_us"), "samples_us")) {
                samples.add((Double) o);
            }
        }
        Object note = m.get("note");
        Object mode = m.get("mode");
        Object delay = m.get("one_way_delay_us");
        Object point = m.get("point");
        Condition condition = new Condition(
                mode == null ? null : MachineMode.valueOf(String.valueOf(mode)),
                delay == null ? Duration.ZERO : Duration.ofNanos(Math.round(((Double) delay) * 1e3)),
                point == null ? 0 : ((Double) point).intValue());
        return new Measurement(
                text(m, "target"),
                Scenario.valueOf(text(m, "scenario")),
                condition,
                values,
                samples,
                note == null ? null : String.valueOf(note));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o, String what) {
        if (!(o instanceof Map)) {
            throw new IllegalArgumentException("results.json: " + what + " must be an object (was " + o + ")");
        }
        return (Map<String, Object>) o;
    }

    private static List<?> list(Object o, String what) {
        if (!(o instanceof List)) {
            throw new IllegalArgumentException("results.json: " + what + " must be an array (was " + o + ")");
        }
        return (List<?>) o;
    }

    private static String text(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof String s)) {
            throw new IllegalArgumentException("results.json: '" + key + "' must be a string (was " + v + ")");
        }
        return s;
    }

    private static double number(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof Double d)) {
            throw new IllegalArgumentException("results.json: '" + key + "' must be a number (was " + v + ")");
        }
        return d;
    }
}
