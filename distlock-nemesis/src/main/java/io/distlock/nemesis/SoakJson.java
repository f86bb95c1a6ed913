package io.distlock.nemesis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The recorded soak results ({@code soak-results.json}): one entry per backend, each from its own
 * run, so one backend's new run merges into the file without touching the others'. The page is
 * always rendered from what this reads back.
 */
final class SoakJson {
    /** The {@code format} key's value, which tells soak results from nemesis results. */
    static final String FORMAT = "distlock soak results";

    private SoakJson() {}

    /** Whether {@code json} is recorded soak results (not nemesis results). */
    static boolean isSoak(String json) {
        return ResultsJson.parse(json) instanceof Map<?, ?> m && FORMAT.equals(m.get("format"));
    }

    /**
     * {@code recorded} with each of {@code fresh}'s backends added or replaced, in the order of {@link
     * Topology#BACKENDS} (other names after them, by name).
     */
    static List<SoakResults.Recorded> merge(List<SoakResults.Recorded> recorded, List<SoakResults.Recorded> fresh) {
        Map<String, SoakResults.Recorded> byBackend = new LinkedHashMap<>();
        recorded.forEach(r -> byBackend.put(r.result().backend(), r));
        fresh.forEach(r -> byBackend.put(r.result().backend(), r));
        List<SoakResults.Recorded> out = new ArrayList<>(byBackend.values());
        out.sort(Comparator.comparingInt(
                        (SoakResults.Recorded r) -> order(r.result().backend()))
                .thenComparing(r -> r.result().backend()));
        return List.copyOf(out);
    }

    private static int order(String backend) {
        int i = Topology.BACKENDS.indexOf(backend);
        return i < 0 ? Integer.MAX_VALUE : i;
    }

    static String write(List<SoakResults.Recorded> recorded) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format", FORMAT);
        List<Object> backends = new ArrayList<>();
        for (SoakResults.Recorded r : recorded) {
            SoakResults.Backend b = r.result();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("backend", b.backend());
            m.put("command", r.command());
            m.put("started", r.started());
            m.put("host", r.host());
            m.put("topology", b.topology());
            m.put("fencing", b.fencing());
            m.put("fencingDeclared", b.fencingDeclared());
            m.put("durationSeconds", b.durationSeconds());
            m.put("clientJvms", b.clientJvms());
            m.put("threadsPerJvm", b.threadsPerJvm());
            m.put("keptJvms", b.keptJvms());
            m.put("leaseMs", b.leaseMs());
            m.put("acquisitions", b.acquisitions());
            m.put("timeouts", b.timeouts());
            m.put("writesAccepted", b.writesAccepted());
            m.put("staleRejected", b.staleRejected());
            m.put("lostUpdates", b.lostUpdates());
            m.put("outOfOrder", b.outOfOrder());
            m.put("overlaps", b.overlaps());
            m.put("faultsInjected", b.faultsInjected());
            m.put("faultKinds", b.faultKinds());
            m.put("forcedGcs", b.forcedGcs());
            m.put("fullGcs", b.fullGcs());
            m.put("windowMinutes", b.windowMinutes());
            m.put("connectionsMetric", b.connectionsMetric());
            m.put("ok", b.ok());
            m.put("failures", b.failures());
            List<Object> growth = new ArrayList<>();
            for (SoakResults.Growth g : b.growth()) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("metric", g.metric());
                x.put("unit", g.unit());
                x.put("first", g.first());
                x.put("last", g.last());
                x.put("limit", g.limit());
                x.put("judged", g.judged());
                x.put("grew", g.grew());
                x.put("where", g.where());
                growth.add(x);
            }
            m.put("growth", growth);
            List<Object> minutes = new ArrayList<>();
            for (SoakResults.Minute x : b.minutes()) {
                Map<String, Object> y = new LinkedHashMap<>();
                y.put("minute", x.minute());
                y.put("acquisitions", x.acquisitions());
                y.put("timeouts", x.timeouts());
                y.put("writesAccepted", x.writesAccepted());
                y.put("lostUpdates", x.lostUpdates());
                y.put("outOfOrder", x.outOfOrder());
                y.put("staleRejected", x.staleRejected());
                y.put("p99AcquireMs", x.p99AcquireMs());
                y.put("faults", x.faults());
                y.put("heapMiB", x.heapMiB());
                y.put("threads", x.threads());
                y.put("connections", x.connections());
                y.put("serverRssMiB", x.serverRssMiB());
                minutes.add(y);
            }
            m.put("minutes", minutes);
            List<Object> samples = new ArrayList<>();
            for (SoakResults.ClientSample c : b.clientSamples()) {
                Map<String, Object> y = new LinkedHashMap<>();
                y.put("client", c.client());
                y.put("minute", c.minute());
                y.put("heapBytes", c.heapBytes());
                y.put("threads", c.threads());
                y.put("fullGcs", c.fullGcs());
                y.put("forced", c.forced());
                samples.add(y);
            }
            m.put("clientSamples", samples);
            backends.add(m);
        }
        root.put("backends", backends);
        StringBuilder sb = new StringBuilder();
        ReportWriter.value(sb, root, "");
        return sb.append('\n').toString();
    }

    static List<SoakResults.Recorded> read(String json) {
        if (!isSoak(json)) {
            throw new IllegalArgumentException("not recorded soak results: the format key must be '" + FORMAT + "'");
        }
        Map<String, Object> root = ResultsJson.map(ResultsJson.parse(json));
        List<SoakResults.Recorded> out = new ArrayList<>();
        for (Object o : ResultsJson.list(root.get("backends"))) {
            Map<String, Object> m = ResultsJson.map(o);
            List<SoakResults.Growth> growth = new ArrayList<>();
            for (Object g : ResultsJson.list(m.get("growth"))) {
                Map<String, Object> x = ResultsJson.map(g);
                growth.add(new SoakResults.Growth(
                        ResultsJson.str(x, "metric"),
                        ResultsJson.str(x, "unit"),
                        ResultsJson.dbl(x, "first"),
                        ResultsJson.dbl(x, "last"),
                        ResultsJson.dbl(x, "limit"),
                        bool(x, "judged"),
                        bool(x, "grew"),
                        ResultsJson.str(x, "where")));
            }
            List<SoakResults.Minute> minutes = new ArrayList<>();
            for (Object mo : ResultsJson.list(m.get("minutes"))) {
                Map<String, Object> y = ResultsJson.map(mo);
                minutes.add(new SoakResults.Minute(
                        ResultsJson.num(y, "minute"),
                        ResultsJson.num(y, "acquisitions"),
                        ResultsJson.num(y, "timeouts"),
                        ResultsJson.num(y, "writesAccepted"),
                        ResultsJson.num(y, "lostUpdates"),
                        ResultsJson.num(y, "outOfOrder"),
                        ResultsJson.num(y, "staleRejected"),
                        ResultsJson.dbl(y, "p99AcquireMs"),
                        ResultsJson.str(y, "faults"),
                        ResultsJson.dbl(y, "heapMiB"),
                        ResultsJson.num(y, "threads"),
                        (long) ResultsJson.dbl(y, "connections"),
                        ResultsJson.dbl(y, "serverRssMiB")));
            }
            List<SoakResults.ClientSample> samples = new ArrayList<>();
            for (Object so : ResultsJson.list(m.get("clientSamples"))) {
                Map<String, Object> y = ResultsJson.map(so);
                samples.add(new SoakResults.ClientSample(
                        ResultsJson.str(y, "client"),
                        ResultsJson.num(y, "minute"),
                        (long) ResultsJson.dbl(y, "heapBytes"),
                        ResultsJson.num(y, "threads"),
                        ResultsJson.num(y, "fullGcs"),
                        bool(y, "forced")));
            }
            SoakResults.Backend b = new SoakResults.Backend(
                    ResultsJson.str(m, "backend"),
                    ResultsJson.str(m, "topology"),
                    ResultsJson.str(m, "fencing"),
                    bool(m, "fencingDeclared"),
                    ResultsJson.dbl(m, "durationSeconds"),
                    ResultsJson.num(m, "clientJvms"),
                    ResultsJson.num(m, "threadsPerJvm"),
                    ResultsJson.num(m, "keptJvms"),
                    (long) ResultsJson.dbl(m, "leaseMs"),
                    ResultsJson.num(m, "acquisitions"),
                    ResultsJson.num(m, "timeouts"),
                    ResultsJson.num(m, "writesAccepted"),
                    ResultsJson.num(m, "staleRejected"),
                    ResultsJson.num(m, "lostUpdates"),
                    ResultsJson.num(m, "outOfOrder"),
                    ResultsJson.num(m, "overlaps"),
                    ResultsJson.num(m, "faultsInjected"),
                    ResultsJson.str(m, "faultKinds"),
                    ResultsJson.num(m, "forcedGcs"),
                    ResultsJson.num(m, "fullGcs"),
                    ResultsJson.num(m, "windowMinutes"),
                    ResultsJson.str(m, "connectionsMetric"),
                    growth,
                    minutes,
                    samples,
                    ResultsJson.list(m.get("failures")).stream()
                            .map(String::valueOf)
                            .toList());
            out.add(new SoakResults.Recorded(
                    ResultsJson.str(m, "command"), ResultsJson.str(m, "started"), ResultsJson.str(m, "host"), b));
        }
        return out;
    }

    private static boolean bool(Map<String, Object> m, String k) {
        return Boolean.TRUE.equals(m.get(k));
    }
}
