package io.distlock.nemesis;

/** The faults the nemesis injects. Each one is bounded in time and undone afterwards. */
public enum FaultKind {
    /** SIGSTOP the current holder for longer than its lease, then SIGCONT: it writes late. */
    PAUSE_HOLDER("pause-holder", "pause", "holder SIGSTOPped past its lease, then resumed"),
    /** SIGKILL the current holder; a new client JVM replaces it. */
    KILL_HOLDER("kill-holder", "crash", "holder killed with SIGKILL, replaced by a new client"),
    /** Blackhole both directions between the holder and every server, then heal. */
    PARTITION_HOLDER("partition-holder", "partition", "holder cut off from its servers (blackhole), then healed"),
    /** Reset every client connection (RST on both sides). */
    RESET_CONNECTIONS("reset-connections", "partition", "every client connection reset (RST)"),
    /** Add latency to every client connection, then remove it. */
    LATENCY("latency", "partition", "200 ms added each way on every client connection"),
    /** SIGKILL the server and restart it with its data. */
    RESTART_SERVER_KEEP_DATA("restart-server-keep-data", "server", "server SIGKILLed, restarted with its data"),
    /** SIGKILL the server and restart it empty. */
    RESTART_SERVER_LOSE_DATA("restart-server-lose-data", "server", "server SIGKILLed, restarted without its data"),
    /** SIGKILL the leader of a 3-member ZooKeeper ensemble and restart it with an empty data directory. */
    RESTART_MEMBER_LOSE_DATA(
            "restart-member-lose-data",
            "server",
            "leader of the 3-member ensemble SIGKILLed, restarted with an empty data directory (same id)"),
    /** SIGKILL the leader of a 3-node cluster; restart it with its data later. */
    KILL_LEADER("kill-leader", "failover", "leader of the 3-node cluster SIGKILLed, restarted later"),
    /** Sentinel fails over from the killed master to its replica (asynchronous replication). */
    REDIS_FAILOVER(
            "redis-failover",
            "failover",
            "master SIGKILLed while its replica lags, Sentinel promotes the replica (no WAIT)"),
    /** Redis Cluster fails over from the killed master of the lock's slot to its replica (asynchronous replication). */
    CLUSTER_FAILOVER(
            "cluster-failover",
            "failover",
            "master of the lock's slot SIGKILLed while its replica lags, the cluster promotes the replica (no WAIT)"),
    /** Move the lock's hash slot to another Redis Cluster master while the lock is held. */
    SLOT_MIGRATION(
            "slot-migration",
            "migration",
            "the lock's hash slot moved to another master while the lock is held (MIGRATING/IMPORTING, its keys"
                    + " moved one at a time)"),
    /** SIGKILL one of 3 Redlock nodes; restart it later. */
    KILL_ONE_NODE("kill-one-node", "failover", "1 of 3 Redlock nodes SIGKILLed, restarted later without its data"),
    /** SIGKILL two of 3 Redlock nodes (no majority); restart them later. */
    KILL_TWO_NODES(
            "kill-two-nodes",
            "failover",
            "2 of 3 Redlock nodes SIGKILLed (no majority), restarted later without their data"),
    /** Restart 2 of 3 Redlock nodes at once without persistence while the lock is held. */
    RESTART_NODES_WITHOUT_DATA(
            "restart-nodes-without-data",
            "failover",
            "2 of 3 Redlock nodes restarted at once without persistence while the lock is held");

    private final String id;
    private final String column;
    private final String description;

    /** Whether the fault makes servers forget acknowledged writes (lock keys, fencing counters). */
    public boolean losesData() {
        return switch (this) {
            case RESTART_SERVER_LOSE_DATA,
                    REDIS_FAILOVER,
                    CLUSTER_FAILOVER,
                    KILL_ONE_NODE,
                    KILL_TWO_NODES,
                    RESTART_NODES_WITHOUT_DATA -> true;
            default -> false;
        };
    }

    FaultKind(String id, String column, String description) {
        this.id = id;
        this.column = column;
        this.description = description;
    }

    /** A stable id for reports and anchors. */
    public String id() {
        return id;
    }

    /** The guarantee-matrix column this fault backs: pause, crash, partition, server, failover, migration. */
    public String column() {
        return column;
    }

    /** What the fault does, in one line. */
    public String description() {
        return description;
    }
}
