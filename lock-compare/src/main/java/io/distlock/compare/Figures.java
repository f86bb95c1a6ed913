package io.distlock.compare;

import java.util.Locale;
import java.util.OptionalDouble;

/** How the reports print figures: the same number reads the same in the table, the cards and the notes. */
final class Figures {
    private Figures() {}

    /** {@code v} with {@code pattern}, or "–" if absent. */
    static String fmt(OptionalDouble v, String pattern) {
        return v.isPresent() ? String.format(Locale.ROOT, pattern, v.getAsDouble()) : "–";
    }

    static String fmt(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }

    /** A latency in µs, in the unit that reads best: "86 µs", "1.5 ms", "1.00 s". */
    static String micros(double us) {
        if (us < 1_000) {
            return fmt("%.0f µs", us);
        }
        if (us < 1_000_000) {
            return fmt(us < 10_000 ? "%.2f ms" : "%.1f ms", us / 1e3);
        }
        return fmt("%.2f s", us / 1e6);
    }

    /** A factor: "2.6×", "14×", "4400×". */
    static String times(double factor) {
        return fmt(factor < 10 ? "%.1f×" : "%.0f×", factor);
    }

    /** A share as a percentage: "99 %". */
    static String percent(double share) {
        return fmt("%.0f %%", share * 100);
    }
}
