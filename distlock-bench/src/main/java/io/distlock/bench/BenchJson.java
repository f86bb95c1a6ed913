package io.distlock.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The JSON the benchmarks write: maps (in their order), lists, strings, numbers (doubles with two decimals). */
public final class BenchJson {
    private BenchJson() {}

    /** {@code o} as indented JSON. */
    public static String toJson(Object o) {
        return toJson(o, "");
    }

    private static String toJson(Object o, String indent) {
        if (o instanceof Map<?, ?> map) {
            StringBuilder sb = new StringBuilder("{\n");
            String in = indent + "  ";
            int i = 0;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                sb.append(in).append('"').append(e.getKey()).append("\": ").append(toJson(e.getValue(), in));
                sb.append(++i < map.size() ? ",\n" : "\n");
            }
            return sb.append(indent).append('}').toString();
        }
        if (o instanceof List<?> list) {
            return "["
                    + String.join(
                            ", ", list.stream().map(x -> toJson(x, indent)).toList()) + "]";
        }
        if (o instanceof String s) {
            return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
        }
        if (o instanceof Double d) {
            return String.format(Locale.ROOT, "%.2f", d);
        }
        return String.valueOf(o);
    }
}
