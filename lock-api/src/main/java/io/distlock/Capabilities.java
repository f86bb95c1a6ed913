package io.distlock;

import java.util.Objects;

/**
 * What a backend guarantees, stated so that code (and the TCK) can rely on it. The TCK reads these
 * values to decide which rules apply, and verifies each one both ways: a declared capability must
 * work, and an absent one must be reported by the API rather than faked. The README's guarantee
 * matrix is generated from the same values.
 *
 * @param fencing what kind of fencing token {@link Lease#fencingToken()} returns
 * @param fencingSurvivesServerRestart whether tokens keep increasing after the server restarts with
 *     its data (for example Redis with AOF); {@code false} when a restart may reset the counter
 * @param automaticRenewal whether a held lease is kept alive without caller action (a watchdog or a
 *     session keepalive) for as long as the client is healthy
 * @param wakeUp how a waiting acquirer learns that the lock may be free
 * @param fifo whether waiters acquire in the order they started waiting
 * @param reentrant whether the same thread may acquire a lock it already holds
 * @param failover what a server failover or node loss does to locks that are held
 * @param leaseTiming who enforces a lease's own time limits ({@link DistributedLock#withLeaseTime},
 *     {@link Lease#extend}, {@link Lease#releaseAfter}, expiry without renewal): the server, or the
 *     client for as long as it lives
 */
public record Capabilities(
        Fencing fencing,
        boolean fencingSurvivesServerRestart,
        boolean automaticRenewal,
        WakeUp wakeUp,
        boolean fifo,
        boolean reentrant,
        Failover failover,
        LeaseTiming leaseTiming) {

    /** The kind of fencing token a backend hands out. */
    public enum Fencing {
        /** No token; {@link Lease#fencingToken()} is always empty. */
        NONE,
        /** Tokens strictly increase from one holder of a lock to the next holder of the same lock. */
        MONOTONIC_PER_LOCK,
        /** Tokens strictly increase across all locks of the backend (for example etcd revisions). */
        GLOBALLY_MONOTONIC;

        /** {@code true} unless {@link #NONE}. */
        public boolean present() {
            return this != NONE;
        }
    }

    /** How a waiter learns that a lock may have become free. */
    public enum WakeUp {
        /** The backend notifies waiters (pub/sub, watches, row-lock wake-up). */
        NOTIFICATION,
        /** Waiters poll, with backoff bounded by their wait budget. */
        POLLING
    }

    /** What a failover or a lost server does to held locks. */
    public enum Failover {
        /** There is no server to fail over (the in-JVM provider). */
        NOT_APPLICABLE,
        /** Held locks survive as long as a quorum survives (consensus backends). */
        HELD_LOCKS_SURVIVE,
        /**
         * Held locks are lost with the server; the holder is told (its lease is reported lost) and
         * nobody else can acquire until the server is back.
         */
        HELD_LOCKS_LOST,
        /**
         * A failover can grant a held lock to a second client (asynchronous replication, a Redlock
         * node restarted without its data). Fencing is the only protection in that case.
         */
        MAY_GRANT_TWICE
    }

    /** Who enforces the time limits of a lease. */
    public enum LeaseTiming {
        /**
         * The server expires each lock at its own time (a TTL per lock): a lease's lease time, an
         * {@link Lease#extend extension} and a {@link Lease#releaseAfter releaseAfter} delay hold even
         * if the holder crashes right after setting them.
         */
        SERVER,
        /**
         * A lock lives as long as the holder's session or connection: lease times, extensions and
         * {@code releaseAfter} delays are kept by the client's own timers (when one passes, the client
         * frees the lock itself), and a holder that crashes frees its locks when its session or
         * connection ends instead.
         */
        CLIENT
    }

    public Capabilities {
        Objects.requireNonNull(fencing, "fencing");
        Objects.requireNonNull(leaseTiming, "leaseTiming");
        Objects.requireNonNull(wakeUp, "wakeUp");
        Objects.requireNonNull(failover, "failover");
        if (!fencing.present() && fencingSurvivesServerRestart) {
            throw new IllegalArgumentException("fencingSurvivesServerRestart must be false when fencing is NONE");
        }
    }

    /**
     * A builder starting from the most conservative values (no fencing, polling, not FIFO, lease
     * times kept by the client).
     */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this instance's values, to derive a variant. */
    public Builder mutate() {
        return new Builder()
                .fencing(fencing)
                .fencingSurvivesServerRestart(fencingSurvivesServerRestart)
                .automaticRenewal(automaticRenewal)
                .wakeUp(wakeUp)
                .fifo(fifo)
                .reentrant(reentrant)
                .failover(failover)
                .leaseTiming(leaseTiming);
    }

    /** Builder for {@link Capabilities}. */
    public static final class Builder {
        private Fencing fencing = Fencing.NONE;
        private boolean fencingSurvivesServerRestart;
        private boolean automaticRenewal;
        private WakeUp wakeUp = WakeUp.POLLING;
        private boolean fifo;
        private boolean reentrant;
        private Failover failover = Failover.MAY_GRANT_TWICE;
        private LeaseTiming leaseTiming = LeaseTiming.CLIENT;

        private Builder() {}

        public Builder fencing(Fencing fencing) {
            this.fencing = Objects.requireNonNull(fencing, "fencing");
            return this;
        }

        public Builder fencingSurvivesServerRestart(boolean value) {
            this.fencingSurvivesServerRestart = value;
            return this;
        }

        public Builder automaticRenewal(boolean value) {
            this.automaticRenewal = value;
            return this;
        }

        public Builder wakeUp(WakeUp wakeUp) {
            this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp");
            return this;
        }

        public Builder fifo(boolean value) {
            this.fifo = value;
            return this;
        }

        public Builder reentrant(boolean value) {
            this.reentrant = value;
            return this;
        }

        public Builder failover(Failover failover) {
            this.failover = Objects.requireNonNull(failover, "failover");
            return this;
        }

        public Builder leaseTiming(LeaseTiming leaseTiming) {
            this.leaseTiming = Objects.requireNonNull(leaseTiming, "leaseTiming");
            return this;
        }

        public Capabilities build() {
            return new Capabilities(
                    fencing,
                    fencingSurvivesServerRestart,
                    automaticRenewal,
                    wakeUp,
                    fifo,
                    reentrant,
                    failover,
                    leaseTiming);
        }
    }
}
