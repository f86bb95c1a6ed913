package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import java.util.List;

/**
 * One backend of the comparison: starts its server(s) on this machine, or connects to existing ones,
 * yields our target and the peers that run on the same servers, removes at the end what the run
 * created there, and stops what it started on close.
 */
interface Backend extends AutoCloseable {

    /** Short name used on the command line ({@code --backends}). */
    String name();

    /**
     * Starts what the backend needs.
     *
     * @param existing the user's servers to run against, or null to start local ones
     * @param prefix the run's prefix: everything the run creates on the servers is named under it
     * @param delayLine whether to put a delay line (a proxy per server) in front of the servers for
     *     the delayed targets
     * @throws IllegalStateException with an explanation (what to install) if it cannot start
     */
    void start(ServerAddress existing, RunPrefix prefix, boolean delayLine) throws Exception;

    /** Our target, then peers (if {@code peers}); each with its delayed variant when there is a delay line. */
    List<ComparisonTarget> targets(boolean peers);

    /** Server version and settings for the report. */
    default String serverDescription() {
        return "";
    }

    /**
     * Removes everything the run created on the servers under its prefix and checks that nothing is
     * left; safe to call more than once, also after a failure.
     *
     * @return what it removed and what it found left, for the report
     */
    String cleanUp();

    @Override
    void close();
}
