package io.distlock.nemesis;

import java.util.List;

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
                    List.of(backend + ": the run failed: " + e),
                    true);
        }
    }

    /** A whole run. */
    record Run(
            String profile,
            String started,
            String host,
            double durationSeconds,
            List<Backend> backends,
            String command) {
        boolean ok() {
            return backends.stream().allMatch(Backend::ok);
        }
    }
}
