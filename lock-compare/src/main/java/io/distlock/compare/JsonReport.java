package io.distlock.compare;

import io.distlock.Capabilities;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Writes a result as {@code results.json}: environment, elapsed time, settings, targets (with their
 * declared capabilities) and every measurement's values, note and down-sampled latency samples.
 * Other tools read this file ({@link ResultsJsonReader}, the generated performance page): its keys
 * are kept stable.
 */
final class JsonReport {
    private JsonReport() {}

    static String json(ComparisonResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\n  \"environment\": ").append(jsonMap(r.environment()));
        sb.append(",\n  \"elapsed_s\": ").append(num(r.elapsed().toMillis() / 1000.0));
        ComparisonSettings s = r.settings();
        sb.append(",\n  \"settings\": {")
                .append("\"scenarios\": ")
                .append(jsonStrings(
                        s.scenarios().stream().map(Enum::name).sorted().toList()))
                .append(", \"warmup\": ")
                .append(s.warmup())
                .append(", \"iterations\": ")
                .append(s.iterations())
                .append(", \"contended_clients\": ")
                .append(s.contendedClients())
                .append(", \"contended_duration_s\": ")
                .append(num(s.contendedDuration().toMillis() / 1000.0))
                .append(", \"handoff_rounds\": ")
                .append(s.handoffRounds())
                .append(", \"many_waiters\": ")
                .append(s.manyWaiters())
                .append(", \"hold_before_release_ms\": ")
                .append(num(s.holdBeforeRelease().toNanos() / 1e6))
                .append(", \"distinct_names\": ")
                .append(s.distinctNames())
                .append(", \"renewal_hold_s\": ")
                .append(num(s.renewalHold().toMillis() / 1000.0))
                .append(", \"renewal_locks\": ")
                .append(s.renewalLocks())
                .append(", \"modes\": ")
                .append(jsonStrings(s.modes().stream().map(Enum::name).toList()))
                .append(", \"one_way_delays_us\": ")
                .append(jsonNumbers(
                        s.oneWayDelays().stream().map(d -> d.toNanos() / 1e3).toList()))
                .append(", \"scale\": {\"clients\": ")
                .append(jsonNumbers(s.scale().clients()))
                .append(", \"held_locks\": ")
                .append(jsonNumbers(s.scale().heldLocks()))
                .append(", \"waiters\": ")
                .append(jsonNumbers(s.scale().waiters()))
                .append(", \"contended_duration_s\": ")
                .append(num(s.scale().contendedDuration().toMillis() / 1000.0))
                .append(", \"hold_s\": ")
                .append(num(s.scale().hold().toMillis() / 1000.0))
                .append(", \"max_waiter_clients\": ")
                .append(s.scale().maxWaiterClients())
                .append("}}");
        sb.append(",\n  \"targets\": [");
        StringJoiner tj = new StringJoiner(",", "\n    ", "\n  ");
        for (ComparisonTarget t : r.targets()) {
            StringBuilder o = new StringBuilder("{");
            o.append("\"name\": ")
                    .append(str(t.name()))
                    .append(", \"backend\": ")
                    .append(str(t.backend()))
                    .append(", \"peer\": ")
                    .append(t.peer())
                    .append(", \"server_version\": ")
                    .append(t.serverVersion() == null ? "null" : str(t.serverVersion()))
                    .append(", \"protocol_floor_round_trips\": ")
                    .append(t.floorRequestsPerOperation());
            if (t.capabilities() != null) {
                Capabilities c = t.capabilities();
                o.append(", \"capabilities\": {")
                        .append("\"fencing\": ")
                        .append(str(c.fencing().name()))
                        .append(", \"fencing_survives_server_restart\": ")
                        .append(c.fencingSurvivesServerRestart())
                        .append(", \"automatic_renewal\": ")
                        .append(c.automaticRenewal())
                        .append(", \"wake_up\": ")
                        .append(str(c.wakeUp().name()))
                        .append(", \"fifo\": ")
                        .append(c.fifo())
                        .append(", \"reentrant\": ")
                        .append(c.reentrant())
                        .append(", \"failover\": ")
                        .append(str(c.failover().name()))
                        .append('}');
            }
            o.append('}');
            tj.add(o);
        }
        sb.append(r.targets().isEmpty() ? "" : tj.toString()).append("]");
        sb.append(",\n  \"measurements\": [");
        StringJoiner mj = new StringJoiner(",", "\n    ", "\n  ");
        for (Measurement m : r.measurements()) {
            StringBuilder o = new StringBuilder("{");
            o.append("\"target\": ")
                    .append(str(m.target()))
                    .append(", \"scenario\": ")
                    .append(str(m.scenario().name()));
            Condition c = m.condition();
            if (c.mode() != null) {
                o.append(", \"mode\": ").append(str(c.mode().name()));
            }
            if (!c.oneWayDelay().isZero()) {
                o.append(", \"one_way_delay_us\": ").append(num(c.oneWayDelay().toNanos() / 1e3));
            }
            if (c.point() > 0) {
                o.append(", \"point\": ").append(c.point());
            }
            o.append(", \"values\": {");
            StringJoiner vj = new StringJoiner(", ");
            m.values().entrySet().stream()
                    .sorted(Map.Entry.comparingByKey())
                    .forEach(e -> vj.add(str(e.getKey()) + ": " + num(e.getValue())));
            o.append(vj).append('}');
            if (m.note() != null) {
                o.append(", \"note\": ").append(str(m.note()));
            }
            if (!m.samplesMicros().isEmpty()) {
                StringJoiner sj = new StringJoiner(",", "[", "]");
                m.samplesMicros().forEach(d -> sj.add(num(d)));
                o.append(", \"samples_us\": ").append(sj);
            }
            o.append('}');
            mj.add(o);
        }
        sb.append(r.measurements().isEmpty() ? "" : mj.toString()).append("]\n}\n");
        return sb.toString();
    }

    private static String jsonMap(Map<String, String> m) {
        StringJoiner j = new StringJoiner(", ", "{", "}");
        m.forEach((k, v) -> j.add(str(k) + ": " + str(v)));
        return j.toString();
    }

    private static String jsonNumbers(List<? extends Number> l) {
        StringJoiner j = new StringJoiner(", ", "[", "]");
        l.forEach(n -> j.add(num(n.doubleValue())));
        return j.toString();
    }

    private static String jsonStrings(List<String> l) {
        StringJoiner j = new StringJoiner(", ", "[", "]");
        l.forEach(s -> j.add(str(s)));
        return j.toString();
    }

    static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        return sb.append('"').toString();
    }

    private static String num(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return "null";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return String.valueOf((long) d);
        }
        // the shortest text that reads back as the same double, so that reports rendered from
        // results.json round figures exactly as the run's own reports did
        return new java.math.BigDecimal(Double.toString(d)).toPlainString();
    }
}
