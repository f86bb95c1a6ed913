package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import java.util.List;

/**
 * One backend of the comparison: starts its server(s), yields our target and the peers that run on
 * the same server, and stops everything on close.
 */
interface Backend extends AutoCloseable {

    /** Short name used on the command line ({@code --backends}). */
    String name();

    /**
     * Starts what the backend needs.
     *
     * @throws IllegalStateException with an explanation (what to install) if it cannot start
     */
    void start() throws Exception;

    /** Our target, then peers (if {@code peers}). */
    List<ComparisonTarget> targets(boolean peers);

    /** Server version and settings for the report. */
    default String serverDescription() {
        return "";
    }

    @Override
    void close();
}
