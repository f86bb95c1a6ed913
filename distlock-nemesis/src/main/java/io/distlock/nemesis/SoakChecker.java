package io.distlock.nemesis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Checks a soak run: the nemesis {@link Checker}'s verdict on the whole run (no lost update, no write
 * accepted out of token order where fencing is declared), its counts again per minute, and whether the
 * client JVMs' heap and threads or the servers' connections grew from the first minutes to the last
 * ({@link #GROWTH_RULE}).
 */
final class SoakChecker {
    private static final double MIB = 1024.0 * 1024.0;
    private static final double TOLERANCE = 0.10;
    private static final double HEAP_SLACK_MIB = 2;
    private static final double COUNT_SLACK = 2;

    /** What "growth" means, in words (the page and the README say it). */
    static final String GROWTH_RULE = "a figure grew when its level in the last window exceeds its level in the"
            + " first window by more than 10 % and by more than a small absolute slack (2 MiB of heap, 2 threads,"
            + " 2 connections); the windows are the first and the last 10 minutes, or the first and the last third"
            + " of the minutes for a run shorter than 20 minutes. The level is the median of the window's samples,"
            + " except for threads: their lower quartile, because a client's thread pools grow while a fault is"
            + " under way and shrink after it, so that a sample depends on the fault of its minute, while a leak"
            + " raises every sample. Heap (after a full GC) and threads are checked for each kept client JVM on"
            + " its own (the row shows the one that grew most); connections are the servers' total, over the"
            + " minutes in which every node answered";

    private SoakChecker() {}

    /**
     * What the soak check reads.
     *
     * @param nemesis the run's events, fault windows and resource log, as the {@link Checker} read them
     * @param checked the {@link Checker}'s verdict on the whole run
     * @param startNanos the start of minute 1
     * @param everyNanos the length of a minute (shorter in tests)
     * @param minutes the complete minutes sampled
     * @param keptClients the client JVMs kept for the whole run
     * @param clientJvms client JVMs at a time
     * @param threadsPerJvm lock threads per client JVM
     * @param faultKinds the faults cycled
     * @param connectionsMetric what the servers' connection count is
     */
    record Input(
            Checker.Input nemesis,
            Results.Backend checked,
            long startNanos,
            long everyNanos,
            int minutes,
            List<String> keptClients,
            int clientJvms,
            int threadsPerJvm,
            String faultKinds,
            String connectionsMetric,
            List<SoakResults.ClientSample> clientSamples,
            List<SoakResults.ServerSample> serverSamples) {}

    static SoakResults.Backend check(Input in) {
        int m = in.minutes();
        Checker.Input n = in.nemesis();
        // the nemesis checker once more, with one phase per minute (and one for the rest of the run)
        List<Results.Window> perMinute = new ArrayList<>();
        for (int k = 0; k <= m; k++) {
            long at = in.startNanos() + k * in.everyNanos();
            perMinute.add(new Results.Window("minute " + (k + 1), "", "minute", at, at, "", false));
        }
        Results.Backend byMinute = Checker.check(new Checker.Input(
                n.backend(),
                n.topology(),
                n.fencing(),
                n.failover(),
                n.fencingDeclared(),
                n.mayGrantTwice(),
                n.clients(),
                n.leaseMs(),
                n.startNanos(),
                n.endNanos(),
                n.clockCheck(),
                n.events(),
                perMinute,
                n.writes(),
                n.finalBalance()));

        int[] timeouts = new int[m + 1];
        List<List<Long>> waits = new ArrayList<>();
        for (int k = 0; k <= m; k++) {
            waits.add(new ArrayList<>());
        }
        Map<String, Long> ackedAt = new HashMap<>();
        Map<String, Long> acquiredAt = new HashMap<>();
        for (Event e : n.events()) {
            int k = Checker.phase(perMinute, e.nanos());
            switch (e.type()) {
                case "NOT_ACQUIRED" -> timeouts[k]++;
                case "ACQUIRED" -> {
                    acquiredAt.put(e.holdKey(), e.nanos());
                    if (e.detail().startsWith("wait=")) {
                        waits.get(k).add(Long.parseLong(e.detail().substring(5)));
                    }
                }
                case "WRITE_OK" -> ackedAt.put(e.holdKey(), e.nanos());
                default -> {}
            }
        }
        int[] lost = lostPerMinute(n, perMinute, ackedAt, acquiredAt);
        Map<Integer, List<String>> faults = new HashMap<>();
        for (Results.Window w : n.windows()) {
            if (!w.fault().equals("baseline")) {
                faults.computeIfAbsent(Checker.phase(perMinute, w.injectedAt()), k -> new ArrayList<>())
                        .add(w.fault());
            }
        }
        List<SoakResults.ClientSample> kept = in.clientSamples().stream()
                .filter(s -> in.keptClients().contains(s.client()))
                .toList();
        Map<Integer, SoakResults.ServerSample> servers = new HashMap<>();
        in.serverSamples().forEach(s -> servers.put(s.minute(), s));

        List<SoakResults.Minute> minutes = new ArrayList<>();
        for (int k = 0; k < m; k++) {
            Results.Phase p = byMinute.phases().get(k);
            int minute = k;
            SoakResults.ServerSample s = servers.get(k);
            minutes.add(new SoakResults.Minute(
                    k + 1,
                    p.acquisitions(),
                    timeouts[k],
                    p.writesAccepted(),
                    lost[k],
                    p.outOfOrder() + p.duplicateTokens(),
                    p.staleRejected(),
                    p99Ms(waits.get(k)),
                    String.join(", ", faults.getOrDefault(k, List.of())),
                    kept.stream()
                            .filter(c -> c.minute() == minute)
                            .mapToDouble(c -> c.heapBytes() / MIB)
                            .max()
                            .orElse(-1),
                    kept.stream()
                            .filter(c -> c.minute() == minute)
                            .mapToInt(SoakResults.ClientSample::threads)
                            .max()
                            .orElse(-1),
                    s == null ? -1 : s.connections(),
                    s == null ? -1 : s.rssBytes() / MIB));
        }

        int window = window(m);
        List<SoakResults.Growth> growth = new ArrayList<>();
        List<String> failures = new ArrayList<>(in.checked().failures());
        if (m == 0) {
            failures.add(n.backend() + ": no complete minute was sampled");
        } else {
            growth.addAll(growth(kept, in.keptClients(), minutes, m));
            failures.addAll(growthFailures(n.backend(), growth));
        }
        Results.Backend c = in.checked();
        return new SoakResults.Backend(
                n.backend(),
                n.topology(),
                n.fencing(),
                n.fencingDeclared(),
                c.durationSeconds(),
                in.clientJvms(),
                in.threadsPerJvm(),
                in.keptClients().size(),
                n.leaseMs(),
                c.total(Results.Phase::acquisitions),
                Arrays.stream(timeouts).sum(),
                c.writesInLog(),
                c.total(Results.Phase::staleRejected),
                c.lostUpdates(),
                c.total(Results.Phase::outOfOrder) + c.total(Results.Phase::duplicateTokens),
                c.total(Results.Phase::overlaps),
                c.phases().size() - 1,
                in.faultKinds(),
                (int) kept.stream().filter(SoakResults.ClientSample::forced).count(),
                kept.stream().mapToInt(SoakResults.ClientSample::fullGcs).sum(),
                window,
                in.connectionsMetric(),
                growth,
                minutes,
                in.clientSamples(),
                failures);
    }

    /**
     * The growth of each figure ({@link #GROWTH_RULE}) over {@code m} complete minutes: heap and
     * threads of each of {@code keptClients} ({@code kept}: their samples), the servers' connections,
     * memory and the p99 acquire latency of {@code minutes}.
     */
    static List<SoakResults.Growth> growth(
            List<SoakResults.ClientSample> kept, List<String> keptClients, List<SoakResults.Minute> minutes, int m) {
        int window = window(m);
        List<SoakResults.Growth> growth = new ArrayList<>();
        growth.add(perClient(
                "heap",
                "MiB",
                kept,
                keptClients,
                m,
                window,
                c -> c.heapBytes() / MIB,
                HEAP_SLACK_MIB,
                SoakChecker::median));
        growth.add(perClient(
                "threads",
                "threads",
                kept,
                keptClients,
                m,
                window,
                c -> c.threads(),
                COUNT_SLACK,
                SoakChecker::lowerQuartile));
        growth.add(compare(
                "connections",
                "connections",
                minutes,
                m,
                window,
                x -> x.connections() < 0 ? Double.NaN : x.connections(),
                COUNT_SLACK,
                true));
        growth.add(compare(
                "server memory",
                "MiB",
                minutes,
                m,
                window,
                x -> x.serverRssMiB() < 0 ? Double.NaN : x.serverRssMiB(),
                0,
                false));
        growth.add(compare(
                "p99 acquire",
                "ms",
                minutes,
                m,
                window,
                x -> x.p99AcquireMs() < 0 ? Double.NaN : x.p99AcquireMs(),
                0,
                false));
        return growth;
    }

    /** The length in minutes of the first and the last window of a run of {@code m} complete minutes. */
    static int window(int m) {
        return m >= 20 ? 10 : Math.max(1, m / 3);
    }

    /** The failures {@code growth} makes: a judged figure that grew, or that has no samples in a window. */
    static List<String> growthFailures(String backend, List<SoakResults.Growth> growth) {
        List<String> failures = new ArrayList<>();
        for (SoakResults.Growth g : growth) {
            if (!g.judged()) {
                continue;
            }
            if (g.first() < 0 || g.last() < 0) {
                failures.add(backend + ": no " + g.metric() + " samples in the first or the last window");
            } else if (g.grew()) {
                failures.add(String.format(
                        Locale.ROOT,
                        "%s: %s grew from %.1f to %.1f %s%s (more than the limit %.1f)",
                        backend,
                        g.metric(),
                        g.first(),
                        g.last(),
                        g.unit(),
                        g.where().isEmpty() ? "" : " (" + g.where() + ")",
                        g.limit()));
            }
        }
        return failures;
    }

    /**
     * {@code recorded} judged again by the growth rule ({@link #GROWTH_RULE}) from its recorded
     * samples, so that the page reads every recorded run by one rule; its other failures stay. The
     * kept client JVMs are {@code c1} to {@code c<keptJvms>} (a soak run keeps its lowest-numbered
     * initial clients).
     */
    static SoakResults.Backend rejudged(SoakResults.Backend recorded) {
        int m = recorded.minutes().size();
        if (m == 0 || recorded.clientSamples().isEmpty()) {
            return recorded; // a run that failed before its first minute: nothing to judge again
        }
        List<String> keptClients = new ArrayList<>();
        for (int i = 1; i <= recorded.keptJvms(); i++) {
            keptClients.add("c" + i);
        }
        List<SoakResults.ClientSample> kept = recorded.clientSamples().stream()
                .filter(c -> keptClients.contains(c.client()))
                .toList();
        List<SoakResults.Growth> growth = new ArrayList<>();
        for (SoakResults.Growth g : growth(kept, keptClients, recorded.minutes(), m)) {
            // a figure shown, not judged, stays as recorded (the minutes recorded are rounded)
            growth.add(
                    g.judged()
                            ? g
                            : recorded.growth().stream()
                                    .filter(r -> r.metric().equals(g.metric()))
                                    .findFirst()
                                    .orElse(g));
        }
        List<String> failures = new ArrayList<>();
        String prefix = recorded.backend() + ": ";
        for (String f : recorded.failures()) {
            boolean fromGrowth = growth.stream()
                    .anyMatch(g -> f.startsWith(prefix + g.metric() + " grew from ")
                            || f.startsWith(prefix + "no " + g.metric() + " samples in the first or the last"));
            if (!fromGrowth) {
                failures.add(f);
            }
        }
        failures.addAll(growthFailures(recorded.backend(), growth));
        return new SoakResults.Backend(
                recorded.backend(),
                recorded.topology(),
                recorded.fencing(),
                recorded.fencingDeclared(),
                recorded.durationSeconds(),
                recorded.clientJvms(),
                recorded.threadsPerJvm(),
                recorded.keptJvms(),
                recorded.leaseMs(),
                recorded.acquisitions(),
                recorded.timeouts(),
                recorded.writesAccepted(),
                recorded.staleRejected(),
                recorded.lostUpdates(),
                recorded.outOfOrder(),
                recorded.overlaps(),
                recorded.faultsInjected(),
                recorded.faultKinds(),
                recorded.forcedGcs(),
                recorded.fullGcs(),
                window(m),
                recorded.connectionsMetric(),
                growth,
                recorded.minutes(),
                recorded.clientSamples(),
                List.copyOf(failures));
    }

    /**
     * Accepted writes that did not read the previous write's balance (by the minute of the write), and
     * acknowledged writes missing from the log (by the minute of the acknowledgement).
     */
    private static int[] lostPerMinute(
            Checker.Input n, List<Results.Window> perMinute, Map<String, Long> ackedAt, Map<String, Long> acquiredAt) {
        int[] lost = new int[perMinute.size()];
        java.util.Set<String> inLog = new java.util.HashSet<>();
        for (int i = 0; i < n.writes().size(); i++) {
            Resource.Write w = n.writes().get(i);
            String key = w.client() + "#" + w.hold();
            inLog.add(key);
            if (w.balanceBefore() != i) {
                Long at = ackedAt.getOrDefault(key, acquiredAt.get(key));
                lost[Checker.phase(perMinute, at == null ? n.endNanos() : at)]++;
            }
        }
        ackedAt.forEach((key, at) -> {
            if (!inLog.contains(key)) {
                lost[Checker.phase(perMinute, at)]++;
            }
        });
        return lost;
    }

    /** The nearest-rank 99th percentile of {@code waitsNanos} in milliseconds, or -1 if there is none. */
    static double p99Ms(List<Long> waitsNanos) {
        if (waitsNanos.isEmpty()) {
            return -1;
        }
        long[] sorted = waitsNanos.stream().mapToLong(Long::longValue).sorted().toArray();
        int rank = (int) Math.ceil(0.99 * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1e6;
    }

    /**
     * Each kept client's growth of {@code value}: one without samples in a window if there is one,
     * else the one that came closest to its limit (or passed it furthest).
     */
    private static SoakResults.Growth perClient(
            String metric,
            String unit,
            List<SoakResults.ClientSample> samples,
            List<String> clients,
            int minutes,
            int window,
            ToDoubleFunction<SoakResults.ClientSample> value,
            double slack,
            Level level) {
        SoakResults.Growth worst = growth(metric, unit, Double.NaN, Double.NaN, slack, true, "");
        for (String client : clients) {
            Map<Integer, Double> byMinute = new LinkedHashMap<>();
            samples.stream()
                    .filter(s -> s.client().equals(client))
                    .forEach(s -> byMinute.put(s.minute(), value.applyAsDouble(s)));
            SoakResults.Growth g = growth(
                    metric,
                    unit,
                    level.of(byMinute, 0, window),
                    level.of(byMinute, minutes - window, minutes),
                    slack,
                    true,
                    client);
            if (g.first() < 0 || g.last() < 0) {
                return g;
            }
            if (worst.first() < 0 || g.last() - g.limit() > worst.last() - worst.limit()) {
                worst = g;
            }
        }
        return worst;
    }

    private static SoakResults.Growth compare(
            String metric,
            String unit,
            List<SoakResults.Minute> minutes,
            int m,
            int window,
            ToDoubleFunction<SoakResults.Minute> value,
            double slack,
            boolean judged) {
        Map<Integer, Double> byMinute = new LinkedHashMap<>();
        for (SoakResults.Minute x : minutes) {
            byMinute.put(x.minute() - 1, value.applyAsDouble(x));
        }
        return growth(metric, unit, median(byMinute, 0, window), median(byMinute, m - window, m), slack, judged, "");
    }

    /** The growth of a figure from {@code first} to {@code last} (NaN: no samples, recorded as -1). */
    private static SoakResults.Growth growth(
            String metric, String unit, double first, double last, double slack, boolean judged, String where) {
        if (Double.isNaN(first) || Double.isNaN(last)) {
            return new SoakResults.Growth(
                    metric,
                    unit,
                    Double.isNaN(first) ? -1 : first,
                    Double.isNaN(last) ? -1 : last,
                    -1,
                    judged,
                    false,
                    where);
        }
        double limit = first + Math.max(first * TOLERANCE, slack);
        return new SoakResults.Growth(metric, unit, first, last, limit, judged, judged && last > limit, where);
    }

    /** A figure's level over a window of minutes. */
    @FunctionalInterface
    interface Level {
        /** The level of the values of minutes {@code from} (inclusive) to {@code to}, NaN values left out; NaN if none. */
        double of(Map<Integer, Double> byMinute, int from, int to);
    }

    /** The median of the values of minutes {@code from} (inclusive) to {@code to}, NaN values left out; NaN if none. */
    static double median(Map<Integer, Double> byMinute, int from, int to) {
        return quantile(byMinute, from, to, 0.5);
    }

    /**
     * The lower quartile (25th percentile, linear between the two nearest samples) of the values of
     * minutes {@code from} (inclusive) to {@code to}, NaN values left out; NaN if none.
     */
    static double lowerQuartile(Map<Integer, Double> byMinute, int from, int to) {
        return quantile(byMinute, from, to, 0.25);
    }

    /** The {@code q} quantile, linear between the two nearest ranks (the median of an even count: their mean). */
    private static double quantile(Map<Integer, Double> byMinute, int from, int to, double q) {
        double[] v = byMinute.entrySet().stream()
                .filter(e -> e.getKey() >= from && e.getKey() < to && !Double.isNaN(e.getValue()))
                .mapToDouble(Map.Entry::getValue)
                .sorted()
                .toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        double at = q * (v.length - 1);
        int below = (int) Math.floor(at);
        int above = Math.min(v.length - 1, below + 1);
        return v[below] + (v[above] - v[below]) * (at - below);
    }
}
