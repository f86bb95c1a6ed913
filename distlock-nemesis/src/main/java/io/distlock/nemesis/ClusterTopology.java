package io.distlock.nemesis;

import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.core.RedisKeys;
import io.distlock.testing.faults.Fault;
import io.distlock.testing.servers.RedisCluster;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster of 3 masters with a replica each; clients reach every node through their own
 * proxies (a Jedis address mapper, {@link MappedRedis}, turns the addresses the cluster names into
 * the client's proxies). Besides the client faults: the lock's hash slot moves to another master
 * while the lock is held (repeated), and, once at the end, the master serving it fails over to its
 * replica after the replica's link was cut (replication lag).
 */
final class ClusterTopology extends Topology {
    /** Pause after each key moved: the slot stays half moved for a few hundred ms. */
    private static final Duration PAUSE_BETWEEN_KEYS = Duration.ofMillis(150);

    private final RedisCluster cluster = RedisCluster.start(3, 1);
    private final List<String> addresses =
            cluster.nodes().stream().map(TestServer::address).toList();
    private final int slot = cluster.slot(new RedisKeys(RedisLockOptions.DEFAULT_KEY_PREFIX).lockKey(lockName()));
    /** The master whose replica {@link #prepare} detached: the failover's target. */
    private volatile RedisServer failoverTarget;

    private volatile String lastMigration = "";

    ClusterTopology(long leaseMs) {
        // a failover takes longer than a short lease (node timeout 2 s + election): with a short
        // lease every holder's belief ends before the replica is promoted
        super(Math.max(leaseMs, 10_000));
    }

    @Override
    String name() {
        return "redis-cluster";
    }

    @Override
    String describe() {
        return "Redis Cluster: 3 masters + 1 replica each (asynchronous replication, no WAIT); the lock's hash slot"
                + " is moved between masters, and its master's replica link is cut just before the failover"
                + " (replication lag)";
    }

    @Override
    List<FaultKind> faults() {
        return clientFaultsAnd(FaultKind.SLOT_MIGRATION, FaultKind.CLUSTER_FAILOVER);
    }

    /** A failover leaves the slot's master without a replica (the killed node stays down). */
    @Override
    boolean repeatable(FaultKind kind) {
        return kind != FaultKind.CLUSTER_FAILOVER;
    }

    @Override
    String describe(FaultKind kind) {
        return kind == FaultKind.SLOT_MIGRATION && !lastMigration.isEmpty()
                ? kind.description() + "; " + lastMigration
                : kind.description();
    }

    /** Every node, masters first, then the replicas. */
    @Override
    List<String> nodes() {
        return addresses;
    }

    /** Every node, masters and replicas: {@code connected_clients} of each one's {@code INFO clients}. */
    @Override
    List<ServerProbe> probes() {
        return cluster.nodes().stream().map(ServerProbe::redis).toList();
    }

    @Override
    String uri(List<String> a) {
        List<String> map = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            map.add(addresses.get(i) + ">" + a.get(i));
        }
        return "redis-cluster://" + String.join(",", a) + "?leaseTime=" + lease(leaseMs) + MappedRedis.MARK
                + String.join(",", map);
    }

    /**
     * Before the failover: detaches the replica of the master serving the lock's slot, so the lock
     * key of the next acquisition is on the master only, as when asynchronous replication lags (a
     * wrong {@code masterauth} keeps the replica from reconnecting). The cluster promotes it anyway.
     */
    @Override
    long prepare(FaultKind kind) {
        if (kind != FaultKind.CLUSTER_FAILOVER) {
            return Long.MIN_VALUE;
        }
        RedisServer master = cluster.masterOf(slot);
        RedisServer replica = cluster.replicasOf(master).get(0);
        try {
            replica.call("CONFIG", "SET", "masterauth", "nemesis-detached");
            replica.call("CLIENT", "KILL", "TYPE", "master");
            if (!replica.call("INFO", "replication").contains("master_link_status:down")) {
                throw new IllegalStateException("the replica's link to its master is still up");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot detach the replica", e);
        }
        failoverTarget = master;
        // an acquisition that returns this much later was sent after the link was cut
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
    }

    @Override
    Fault serverFault(FaultKind kind, Duration d) {
        return switch (kind) {
            case CLUSTER_FAILOVER ->
                // the old master stays dead (a restarted one would rejoin as the new master's replica)
                Fault.inject(
                        "cluster-failover",
                        () -> cluster.failover(failoverTarget, Duration.ofSeconds(30)),
                        () -> {},
                        d);
            case SLOT_MIGRATION -> Fault.inject("slot-migration", this::migrate, () -> {}, d);
            default -> super.serverFault(kind, d);
        };
    }

    /** Moves the lock's slot to the next master (the move is the fault; it ends when the slot is moved). */
    private void migrate() {
        RedisServer from = cluster.masterOf(slot);
        List<RedisServer> masters = new ArrayList<>();
        for (RedisServer n : cluster.nodes()) {
            if (n.isRunning() && n != from && isMaster(n)) {
                masters.add(n);
            }
        }
        RedisServer to = masters.get(0);
        long t0 = System.nanoTime();
        int moved = cluster.migrateSlot(slot, to, PAUSE_BETWEEN_KEYS);
        lastMigration = "slot " + slot + " from :" + from.port() + " to :" + to.port() + ", " + moved + " keys, "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms";
    }

    private static boolean isMaster(RedisServer n) {
        try {
            return n.call("ROLE").startsWith("[master");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    protected void closeServers() {
        cluster.close();
    }
}
