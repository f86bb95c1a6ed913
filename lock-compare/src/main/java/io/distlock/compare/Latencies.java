package io.distlock.compare;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Percentiles and ratios of latency samples taken in nanoseconds, reported in microseconds. */
final class Latencies {
    private Latencies() {}

    /** count, p50/p90/p99, max and mean (µs) of {@code nanos}; empty for no samples. */
    static Map<String, Double> of(long[] nanos) {
        Map<String, Double> v = new LinkedHashMap<>();
        if (nanos.length == 0) {
            return v;
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        v.put("count", (double) sorted.length);
        v.put("p50_us", pct(sorted, 0.50));
        v.put("p90_us", pct(sorted, 0.90));
        v.put("p99_us", pct(sorted, 0.99));
        v.put("max_us", sorted[sorted.length - 1] / 1e3);
        v.put("mean_us", Arrays.stream(sorted).average().orElse(0) / 1e3);
        return v;
    }

    /** The p50 of {@code nanos}, in µs. */
    static double p50(long[] nanos) {
        return of(nanos).get("p50_us");
    }

    /**
     * The median, over the blocks of {@code block} samples that were taken in turn, of each block's
     * p50 of {@code a} ÷ the same block's p50 of {@code b}. Unlike the ratio of the two overall p50s
     * it compares only samples taken moments apart: on a machine whose round trip changes with where
     * the scheduler put the threads, a run that mixes slow and fast stretches has overall p50s that
     * may fall in different stretches for the two.
     */
    static double medianBlockRatio(long[] a, long[] b, int block) {
        int blocks = Math.min(a.length, b.length) / block;
        if (blocks == 0) {
            return Double.NaN;
        }
        double[] ratios = new double[blocks];
        for (int i = 0; i < blocks; i++) {
            int from = i * block;
            ratios[i] = blockP50(a, from, from + block) / blockP50(b, from, from + block);
        }
        Arrays.sort(ratios);
        return blocks % 2 == 1 ? ratios[blocks / 2] : (ratios[blocks / 2 - 1] + ratios[blocks / 2]) / 2;
    }

    /** The p50 of samples {@code from} to {@code to}, as {@link #of} computes it. */
    private static double blockP50(long[] values, int from, int to) {
        long[] part = Arrays.copyOfRange(values, from, to);
        Arrays.sort(part);
        return pct(part, 0.50);
    }

    private static double pct(long[] sorted, double q) {
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))] / 1e3;
    }

    /** At most about 500 of {@code nanos}, evenly spaced, in µs: the distribution chart's points. */
    static List<Double> samples(long[] nanos) {
        int step = Math.max(1, nanos.length / 500);
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < nanos.length; i += step) {
            out.add(nanos[i] / 1e3);
        }
        return out;
    }
}
