package io.distlock.compare;

/** The scenarios of a comparison; every target runs the same ones with the same parameters. */
public enum Scenario {
    /** The server's raw round trip (PING / a no-op read): the floor line. */
    FLOOR("raw round trip"),
    /** One client acquiring and releasing a free lock: latency p50/p90/p99 and round trips. */
    UNCONTENDED("uncontended acquire+release"),
    /** K clients on one lock: throughput, fairness, lost-update check. */
    CONTENDED("contended throughput"),
    /** Release by A to acquisition by a waiting B, with 1 waiter. */
    HANDOFF_1("hand-off, 1 waiter"),
    /** Release by A to acquisition by a waiting B, with many waiters. */
    HANDOFF_MANY("hand-off, many waiters"),
    /** Acquire and release many distinct, never-used names from one client. */
    MANY_NAMES("many distinct names"),
    /** Server requests per second caused by holding one lock (renewal / keepalive traffic). */
    RENEWAL("renewal traffic");

    private final String title;

    Scenario(String title) {
        this.title = title;
    }

    public String title() {
        return title;
    }
}
