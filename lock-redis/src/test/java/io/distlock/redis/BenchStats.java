package io.distlock.redis;

import java.util.Arrays;
import java.util.List;

/** Small statistics shared by this module's benchmark harnesses (plain mains, not tests). */
final class BenchStats {
    private BenchStats() {}

    /** The median of {@code nanos} (upper one for an even count), in µs. */
    static double p50Micros(long[] nanos) {
        long[] c = nanos.clone();
        Arrays.sort(c);
        return c[c.length / 2] / 1_000.0;
    }

    /** The median of {@code v} (upper one for an even count). */
    static double median(List<Double> v) {
        double[] c = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return c[c.length / 2];
    }
}
