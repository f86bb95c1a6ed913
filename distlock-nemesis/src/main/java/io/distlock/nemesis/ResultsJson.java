package io.distlock.nemesis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a {@code results.json} written by {@link ReportWriter}, so reports can be regenerated from it. */
final class ResultsJson {
    private final String s;
    private int i;

    private ResultsJson(String s) {
        this.s = s;
    }

    static Results.Run read(Path file) throws IOException {
        Object root = new ResultsJson(Files.readString(file, StandardCharsets.UTF_8)).value();
        return run(map(root));
    }

    /** The JSON text {@code json} as maps (objects, in order), lists, strings, doubles, booleans and nulls. */
    static Object parse(String json) {
        return new ResultsJson(json).value();
    }

    private static Results.Run run(Map<String, Object> m) {
        List<Results.Backend> backends = new ArrayList<>();
        Map<String, Results.Provenance> earlier = new LinkedHashMap<>();
        for (Object o : list(m.get("backends"))) {
            Map<String, Object> b = map(o);
            if (b.get("run") != null) {
                Map<String, Object> r = map(b.get("run"));
                earlier.put(
                        str(b, "backend"),
                        new Results.Provenance(
                                str(r, "profile"),
                                str(r, "started"),
                                str(r, "host"),
                                dbl(r, "durationSeconds"),
                                str(r, "command")));
            }
            List<Results.Phase> phases = new ArrayList<>();
            for (Object po : list(b.get("phases"))) {
                Map<String, Object> p = map(po);
                phases.add(new Results.Phase(
                        str(p, "fault"),
                        str(p, "description"),
                        str(p, "column"),
                        str(p, "note"),
                        num(p, "acquisitions"),
                        num(p, "writesAccepted"),
                        num(p, "staleRejected"),
                        num(p, "writeErrors"),
                        num(p, "outOfOrder"),
                        num(p, "duplicateTokens"),
                        num(p, "fencingViolationsAdmitted"),
                        num(p, "overlaps"),
                        dbl(p, "maxOverlapMs"),
                        num(p, "lateWrites"),
                        num(p, "lateWritesAccepted"),
                        (long) dbl(p, "recoveryMs"),
                        dbl(p, "durationMs"),
                        num(p, "kills")));
            }
            String fencing = str(b, "fencing");
            String failover = str(b, "failover");
            backends.add(new Results.Backend(
                    str(b, "backend"),
                    str(b, "topology"),
                    fencing,
                    failover,
                    !fencing.equals("NONE") && !fencing.equals("?"),
                    failover.equals("MAY_GRANT_TWICE"),
                    num(b, "clients"),
                    (long) dbl(b, "leaseMs"),
                    dbl(b, "durationSeconds"),
                    str(b, "clockCheck"),
                    phases,
                    (long) dbl(b, "finalBalance"),
                    num(b, "writesAccepted"),
                    num(b, "writesAcknowledged"),
                    num(b, "lostUpdates"),
                    num(b, "acknowledgedButMissing"),
                    num(b, "balanceChainBreaks"),
                    strings(b.get("examples")),
                    strings(b.get("failures")),
                    // results recorded before the key was written counted any accepted write
                    ReportWriter.RECOVERY_BY_NEW_HOLDER.equals(str(b, "recovery"))));
        }
        return new Results.Run(
                str(m, "profile"),
                str(m, "started"),
                str(m, "host"),
                dbl(m, "durationSeconds"),
                backends,
                str(m, "command"),
                Map.copyOf(earlier));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    static List<?> list(Object o) {
        return o == null ? List.of() : (List<?>) o;
    }

    private static List<String> strings(Object o) {
        return list(o).stream().map(String::valueOf).toList();
    }

    static String str(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == null ? "" : v.toString();
    }

    static double dbl(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == null ? 0 : ((Number) v).doubleValue();
    }

    static int num(Map<String, Object> m, String k) {
        return (int) dbl(m, k);
    }

    private Object value() {
        skip();
        char c = s.charAt(i);
        if (c == '{') {
            i++;
            Map<String, Object> m = new LinkedHashMap<>();
            skip();
            if (s.charAt(i) == '}') {
                i++;
                return m;
            }
            while (true) {
                skip();
                String k = string();
                skip();
                expect(':');
                m.put(k, value());
                skip();
                if (s.charAt(i++) == '}') {
                    return m;
                }
            }
        }
        if (c == '[') {
            i++;
            List<Object> l = new ArrayList<>();
            skip();
            if (s.charAt(i) == ']') {
                i++;
                return l;
            }
            while (true) {
                l.add(value());
                skip();
                if (s.charAt(i++) == ']') {
                    return l;
                }
            }
        }
        if (c == '"') {
            return string();
        }
        if (s.startsWith("true", i)) {
            i += 4;
            return Boolean.TRUE;
        }
        if (s.startsWith("false", i)) {
            i += 5;
            return Boolean.FALSE;
        }
        if (s.startsWith("null", i)) {
            i += 4;
            return null;
        }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        if (start == i) {
            throw new IllegalArgumentException("results.json: unexpected '" + c + "' at offset " + i);
        }
        return Double.parseDouble(s.substring(start, i));
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"') {
                return sb.toString();
            }
            if (c == '\\') {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> sb.append(e);
                }
            } else {
                sb.append(c);
            }
        }
    }

    private void expect(char c) {
        if (s.charAt(i) != c) {
            throw new IllegalArgumentException("results.json: expected '" + c + "' at offset " + i);
        }
        i++;
    }

    private void skip() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }
}
