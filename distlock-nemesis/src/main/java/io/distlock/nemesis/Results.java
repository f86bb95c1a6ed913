package io.distlock.nemesis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a nemesis run found, per backend and per fault phase. */
final class Results {
    private Results() {}

    /** The time window of one phase: the baseline, or one injected fault until the next one. */
    record Window(
            String fault,
            String description,
            String column,
            long injectedAt,
            long undoneAt,
            String note,
            boolean losesData) {}

    /** The checker's counts for one phase. */
    record Phase(
            String fault,
            String description,
            String column,
            String note,
            int acquisitions,
            int writesAccepted,
            int staleRejected,
            int writeErrors,
            int outOfOrder,
            int duplicateTokens,
            int fencingAdmitted,
            int overlaps,
            double maxOverlapMs,
            int lateWrites,
            int lateWritesAccepted,
            long recoveryMs,
            double durationMs,
            int kills) {

        /** Whether a safety property failed here (accepted writes out of token order or with a reused token). */
        boolean fencingViolated() {
            return outOfOrder > 0 || duplicateTokens > 0;
        }

        /** Whether every fencing violation here is one the backend's capabilities admit. */
        boolean fencingViolationAdmitted() {
            return fencingViolated() && fencingAdmitted == outOfOrder + duplicateTokens;
        }
    }

    /**
     * One backend's run.
     *
     * @param recoveryByNewHolder whether {@link Phase#recoveryMs()} counts only writes by holders
     *     granted the lock after the fault began ({@link Checker}); false for results recorded before
     *     that definition (any accepted write after the fault counted, a frozen old holder's too)
     */
    record Backend(
            String backend,
            String topology,
            String fencing,
            String failover,
            boolean fencingDeclared,
            boolean mayGrantTwice,
            int clients,
            long leaseMs,
            double durationSeconds,
            String clockCheck,
            List<Phase> phases,
            long finalBalance,
            int writesInLog,
            int writesAcknowledged,
            int lostUpdates,
            int acknowledgedButMissing,
            int balanceChainBreaks,
            List<String> examples,
            List<String> failures,
            boolean recoveryByNewHolder) {

        int total(java.util.function.ToIntFunction<Phase> f) {
            return phases.stream().mapToInt(f).sum();
        }

        boolean ok() {
            return failures.isEmpty();
        }

        /** A backend whose run could not complete. */
        /** {@code e} and each of its causes, so that a failed run says why (e.g. why undoing a fault failed). */
        static String withCauses(Throwable e) {
            StringBuilder b = new StringBuilder(String.valueOf(e));
            java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            seen.add(e);
            for (Throwable c = e.getCause(); c != null && seen.add(c); c = c.getCause()) {
                b.append("; caused by ").append(c);
            }
            return b.toString();
        }

        static Backend failed(String backend, Exception e) {
            return new Backend(
                    backend,
                    "(run failed)",
                    "?",
                    "?",
                    false,
                    false,
                    0,
                    0,
                    0,
                    "not run",
                    List.of(),
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    List.of(),
                    List.of(backend + ": the run failed: " + withCauses(e)),
                    true);
        }
    }

    /** Which run measured a row, in the words of the reports. */
    record Provenance(String profile, String started, String host, double durationSeconds, String command) {
        static Provenance of(Run run) {
            return new Provenance(run.profile(), run.started(), run.host(), run.durationSeconds(), run.command());
        }
    }

    /**
     * A whole run.
     *
     * @param earlier for rows measured by an earlier run (results merged with {@link #merge}), that
     *     run, by backend; empty when this run measured every row
     */
    record Run(
            String profile,
            String started,
            String host,
            double durationSeconds,
            List<Backend> backends,
            String command,
            Map<String, Provenance> earlier) {

        /** A run that measured every row itself. */
        Run(
                String profile,
                String started,
                String host,
                double durationSeconds,
                List<Backend> backends,
                String command) {
            this(profile, started, host, durationSeconds, backends, command, Map.of());
        }

        boolean ok() {
            return backends.stream().allMatch(Backend::ok);
        }

        /** The backends an earlier run measured, grouped by that run, in the order of the rows. */
        Map<Provenance, List<String>> earlierByRun() {
            Map<Provenance, List<String>> out = new LinkedHashMap<>();
            for (Backend b : backends) {
                Provenance p = earlier.get(b.backend());
                if (p != null) {
                    out.computeIfAbsent(p, k -> new ArrayList<>()).add(b.backend());
                }
            }
            return out;
        }
    }

    /**
     * The recorded results with {@code fresh}'s backends in them: each of {@code fresh}'s backends
     * replaces the recorded row of the same backend or joins the rows; every other recorded row stays
     * as it was, marked with the run that measured it. Rows are in {@link Topology#BACKENDS} order
     * (others after them); the merged run is headed by {@code fresh}.
     */
    static Run merge(Run recorded, Run fresh) {
        Map<String, Backend> rows = new LinkedHashMap<>();
        Map<String, Provenance> earlier = new LinkedHashMap<>();
        for (Backend b : recorded.backends()) {
            rows.put(b.backend(), b);
            earlier.put(b.backend(), recorded.earlier().getOrDefault(b.backend(), Provenance.of(recorded)));
        }
        for (Backend b : fresh.backends()) {
            rows.put(b.backend(), b);
            earlier.remove(b.backend());
        }
        List<Backend> ordered = new ArrayList<>(rows.values());
        ordered.sort(Comparator.comparingInt(b -> {
            int i = Topology.BACKENDS.indexOf(b.backend());
            return i < 0 ? Integer.MAX_VALUE : i;
        }));
        return new Run(
                fresh.profile(),
                fresh.started(),
                fresh.host(),
                fresh.durationSeconds(),
                List.copyOf(ordered),
                fresh.command(),
                Map.copyOf(earlier));
    }
}
