package io.distlock.redlock.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code -Dab.split=true}: per variant, the medians of the acquire part and of the release part of
 * an uncontended acquire+release (for the variants that report them), printed at the end.
 */
final class Split {
    private static final boolean ON = Boolean.getBoolean("ab.split");
    private static final int MAX = 200_000;
    private static final Map<String, long[][]> SAMPLES = new ConcurrentHashMap<>();
    private static final Map<String, int[]> COUNTS = new ConcurrentHashMap<>();

    private Split() {}

    static void record(String variant, long acquireNanos, long releaseNanos) {
        if (!ON) {
            return;
        }
        long[][] s = SAMPLES.computeIfAbsent(variant, k -> new long[2][MAX]);
        int[] n = COUNTS.computeIfAbsent(variant, k -> new int[1]);
        if (n[0] < MAX) {
            s[0][n[0]] = acquireNanos;
            s[1][n[0]] = releaseNanos;
            n[0]++;
        }
    }

    static void print() {
        SAMPLES.forEach((variant, s) -> {
            int n = COUNTS.get(variant)[0];
            long[] a = Arrays.copyOf(s[0], n);
            long[] r = Arrays.copyOf(s[1], n);
            Arrays.sort(a);
            Arrays.sort(r);
            System.out.printf(
                    Locale.ROOT,
                    "split %s: acquire p50 %.1f µs, release p50 %.1f µs (%d samples)%n",
                    variant,
                    a[n / 2] / 1e3,
                    r[n / 2] / 1e3,
                    n);
        });
    }
}
