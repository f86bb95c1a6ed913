package io.distlock.nemesis;

import java.util.List;

/** What a soak run recorded, per backend and per minute, and what it concluded. */
final class SoakResults {
    private SoakResults() {}

    /**
     * One client JVM's answer to a {@code SAMPLE} ({@link JvmSample}).
     *
     * @param client the client JVM's id
     * @param minute the minute it was asked for (0 = the first)
     * @param heapBytes heap in use right after the last full GC
     * @param threads live threads
     * @param fullGcs full GCs since the previous sample, not counting a forced one
     * @param forced whether the sample forced a full GC ({@code System.gc()}) because none had run
     */
    record ClientSample(String client, int minute, long heapBytes, int threads, int fullGcs, boolean forced) {
        /** Parses the part after {@code "M "} of a client's sample line. */
        static ClientSample parse(String client, String line) {
            String[] f = line.split(" ");
            if (f.length != 6) {
                throw new IllegalArgumentException("sample line must have 6 fields: '" + line + "'");
            }
            return new ClientSample(
                    client,
                    Integer.parseInt(f[0]),
                    Long.parseLong(f[2]),
                    Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]),
                    f[5].equals("1"));
        }
    }

    /**
     * The servers at the end of one minute.
     *
     * @param minute 0 = the first
     * @param connections the sum of every node's client connections as the server counts them, or -1
     *     when a node did not answer (it was being restarted)
     * @param rssBytes the sum of the server processes' resident memory ({@code VmRSS}), of the nodes
     *     that run
     * @param nodes nodes that answered, of {@code of}
     * @param of nodes
     */
    record ServerSample(int minute, long connections, long rssBytes, int nodes, int of) {}

    /**
     * One minute of a soak run.
     *
     * @param minute 1 = the first
     * @param acquisitions grants of the lock
     * @param timeouts {@code tryAcquire} calls that waited their whole time in vain
     * @param writesAccepted writes the resource accepted
     * @param lostUpdates accepted writes that did not read the previous write's balance, and
     *     acknowledged writes missing from the log
     * @param outOfOrder accepted writes out of token order or with another holding's token
     * @param staleRejected stale writes the resource rejected
     * @param p99AcquireMs the 99th percentile of the time a granted {@code tryAcquire} took, or -1
     * @param faults the faults injected in this minute
     * @param heapMiB the largest live heap (after a full GC) of the kept client JVMs, or -1
     * @param threads the most live threads of a kept client JVM, or -1
     * @param connections the servers' client connections, or -1 (see {@link ServerSample})
     * @param serverRssMiB the servers' resident memory
     */
    record Minute(
            int minute,
            int acquisitions,
            int timeouts,
            int writesAccepted,
            int lostUpdates,
            int outOfOrder,
            int staleRejected,
            double p99AcquireMs,
            String faults,
            double heapMiB,
            int threads,
            long connections,
            double serverRssMiB) {}

    /**
     * One figure's first window against its last ({@link SoakChecker#GROWTH_RULE}).
     *
     * @param metric heap, threads, connections, server memory or p99 acquire
     * @param unit MiB, threads, connections or ms
     * @param first the median of the first window's samples
     * @param last the median of the last window's samples
     * @param limit the most {@code last} may be without counting as growth
     * @param judged whether growth fails the run (heap, threads, connections)
     * @param grew whether {@code last > limit}
     * @param where which client JVM (heap and threads: the one that grew most), or ""
     */
    record Growth(
            String metric,
            String unit,
            double first,
            double last,
            double limit,
            boolean judged,
            boolean grew,
            String where) {}

    /**
     * One backend's soak run.
     *
     * @param durationSeconds from the start of the servers to the end of the check
     * @param clientJvms client JVMs running at a time
     * @param keptJvms client JVMs kept for the whole run (the heap and thread figures are theirs)
     * @param faultsInjected faults injected, of {@code faultKinds}
     * @param forcedGcs samples that forced a full GC (none had run in the minute)
     * @param fullGcs full GCs the kept client JVMs ran by themselves
     * @param windowMinutes the length of the first and the last window the growth check compares
     * @param connectionsMetric what the servers' connection count is, for this backend
     * @param growth heap, threads and connections (judged), server memory and p99 acquire (shown)
     * @param failures why the run failed; empty if it passed
     */
    record Backend(
            String backend,
            String topology,
            String fencing,
            boolean fencingDeclared,
            double durationSeconds,
            int clientJvms,
            int threadsPerJvm,
            int keptJvms,
            long leaseMs,
            int acquisitions,
            int timeouts,
            int writesAccepted,
            int staleRejected,
            int lostUpdates,
            int outOfOrder,
            int overlaps,
            int faultsInjected,
            String faultKinds,
            int forcedGcs,
            int fullGcs,
            int windowMinutes,
            String connectionsMetric,
            List<Growth> growth,
            List<Minute> minutes,
            List<ClientSample> clientSamples,
            List<String> failures) {

        boolean ok() {
            return failures.isEmpty();
        }
    }

    /**
     * One backend's soak run as recorded: by which command, when and where.
     *
     * @param command the command that ran it
     * @param started when it started (UTC)
     * @param host the machine: cores, memory, system, the load average before and after
     */
    record Recorded(String command, String started, String host, Backend result) {}
}
