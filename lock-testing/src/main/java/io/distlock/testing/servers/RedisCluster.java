package io.distlock.testing.servers;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of N masters, optionally with replicas, cluster-enabled local test-speed servers,
 * joined by {@code CLUSTER MEET}, the 16384 slots split evenly among the masters with {@code CLUSTER
 * ADDSLOTSRANGE}, each replica attached to its master with {@code CLUSTER REPLICATE}. Ready when every
 * node's {@code CLUSTER INFO} says {@code cluster_state:ok} and every replica's link is up.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(3)) {
 *     LockProviders.open("redis-cluster://" + cluster.addresses());
 * }
 * }</pre>
 *
 * Without replicas, killing a node makes its slots unavailable (the cluster state turns to fail
 * after {@code cluster-node-timeout}, 2000 ms). With replicas, {@link #failover} kills a master and
 * returns once the cluster has promoted its replica, and {@link #rejoin} brings the killed node back
 * (as a replica of the promoted one). {@link #migrateSlot} moves a hash slot to another master the way
 * {@code redis-cli --cluster reshard} does, one key at a time.
 */
public final class RedisCluster implements AutoCloseable {
    /** Number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;

    private final List<RedisServer> nodes;
    private final int masters;

    private RedisCluster(List<RedisServer> nodes, int masters) {
        this.nodes = List.copyOf(nodes);
        this.masters = masters;
    }

    /** Starts {@code masters} nodes (at least 3, as Redis requires) and joins them. */
    public static RedisCluster start(int masters) {
        return start(masters, 0);
    }

    /**
     * Starts {@code masters} masters (at least 3, as Redis requires) and {@code replicasPerMaster}
     * replicas of each, and joins them.
     */
    public static RedisCluster start(int masters, int replicasPerMaster) {
        if (masters < 3) {
            throw new IllegalArgumentException("masters must be at least 3 for a Redis Cluster (was " + masters + ")");
        }
        if (replicasPerMaster < 0) {
            throw new IllegalArgumentException(
                    "replicasPerMaster must not be negative (was " + replicasPerMaster + ")");
        }
        int total = masters * (1 + replicasPerMaster);
        List<RedisServer> nodes = new ArrayList<>();
        int[] busPorts = new int[total];
        try {
            for (int i = 0; i < total; i++) {
                busPorts[i] = Ports.free();
                nodes.add(RedisServer.builder()
                        .local()
                        .kind("redis-cluster")
                        .args(
                                "--cluster-enabled",
                                "yes",
                                // the default bus port (port + 10000) may be taken or out of range
                                "--cluster-port",
                                Integer.toString(busPorts[i]),
                                "--cluster-config-file",
                                "nodes.conf",
                                "--cluster-node-timeout",
                                "2000")
                        .start());
            }
            for (int i = 0; i < masters; i++) {
                int from = i * SLOTS / masters;
                int to = (i + 1) * SLOTS / masters - 1;
                nodes.get(i).call("CLUSTER", "ADDSLOTSRANGE", Integer.toString(from), Integer.toString(to));
            }
            RedisServer first = nodes.get(0);
            for (int i = 1; i < total; i++) {
                first.call(
                        "CLUSTER",
                        "MEET",
                        nodes.get(i).host(),
                        Integer.toString(nodes.get(i).port()),
                        Integer.toString(busPorts[i]));
            }
            RedisCluster cluster = new RedisCluster(nodes, masters);
            cluster.awaitState("ok", Duration.ofSeconds(30));
            for (int i = masters; i < total; i++) {
                RedisServer replica = nodes.get(i);
                String masterId = cluster.id(nodes.get((i - masters) % masters));
                // the replica must know the master's id before it can follow it
                Probes.await(
                        replica.address() + " to know " + masterId,
                        Duration.ofSeconds(30),
                        null,
                        () -> replica.call("CLUSTER", "NODES").contains(masterId));
                replica.call("CLUSTER", "REPLICATE", masterId);
            }
            for (int i = masters; i < total; i++) {
                cluster.awaitReplicaLink(nodes.get(i), Duration.ofSeconds(30));
            }
            cluster.awaitState("ok", Duration.ofSeconds(30));
            return cluster;
        } catch (IOException e) {
            ServerStartException failure = new ServerStartException("cannot join the Redis Cluster: " + e, e);
            nodes.forEach(n -> RedisServers.closeQuietly(n, failure));
            throw failure;
        } catch (RuntimeException e) {
            nodes.forEach(n -> RedisServers.closeQuietly(n, e));
            throw e;
        }
    }

    /** Waits until every running node reports {@code cluster_state:<state>} and knows all nodes. */
    public void awaitState(String state, Duration timeout) {
        Probes.await("Redis Cluster " + addresses() + " state " + state, timeout, null, () -> {
            for (RedisServer n : nodes) {
                if (!n.isRunning()) {
                    continue;
                }
                String info = n.call("CLUSTER", "INFO");
                if (!info.contains("cluster_state:" + state) || !info.contains("cluster_known_nodes:" + nodes.size())) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Every node, masters first (in start order), then the replicas; stable across failovers. */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** The node at {@code index} of {@link #nodes()} (the masters as started come first). */
    public RedisServer node(int index) {
        return nodes.get(index);
    }

    /** Number of masters (slot owners): what {@link #start(int, int)} was given. */
    public int masterCount() {
        return masters;
    }

    /** The node's cluster id ({@code CLUSTER MYID}). */
    public String id(RedisServer node) {
        try {
            return node.call("CLUSTER", "MYID").trim();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the cluster id of " + node.address(), e);
        }
    }

    /** The hash slot of {@code key} ({@code CLUSTER KEYSLOT}, asked of a running node). */
    public int slot(String key) {
        try {
            return Integer.parseInt(running().call("CLUSTER", "KEYSLOT", key).trim());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the slot of " + key, e);
        }
    }

    /** The running node that serves {@code slot} as master now (asked of a running node). */
    public RedisServer masterOf(int slot) {
        String id = ownerId(running(), slot);
        return nodes.stream()
                .filter(n -> n.isRunning() && id.equals(id(n)))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException("no running node serves slot " + slot + " (owner " + id + ")"));
    }

    /** The running replicas of {@code master}. */
    public List<RedisServer> replicasOf(RedisServer master) {
        String id = id(master);
        List<RedisServer> replicas = new ArrayList<>();
        for (String line : clusterNodes(running())) {
            String[] f = line.split(" ");
            if (f.length > 3 && f[3].equals(id) && f[2].contains("slave")) {
                for (RedisServer n : nodes) {
                    if (n.isRunning() && f[0].equals(id(n))) {
                        replicas.add(n);
                    }
                }
            }
        }
        return replicas;
    }

    /**
     * Kills {@code master} (SIGKILL) and waits until one of its replicas serves its slots as master
     * and every running node reports the cluster {@code ok}. The killed node stays down until {@link
     * #rejoin}.
     *
     * @return the promoted replica
     */
    public RedisServer failover(RedisServer master, Duration timeout) {
        List<RedisServer> replicas = replicasOf(master);
        if (replicas.isEmpty()) {
            throw new IllegalStateException(master.address() + " has no replica to fail over to");
        }
        int slot = firstSlotOf(master);
        master.kill();
        RedisServer[] promoted = new RedisServer[1];
        Probes.await("a replica of " + master.address() + " to be promoted", timeout, null, () -> {
            for (RedisServer r : replicas) {
                if (r.call("ROLE").startsWith("[master") && id(r).equals(ownerId(r, slot))) {
                    promoted[0] = r;
                    return true;
                }
            }
            return false;
        });
        Probes.await("the cluster to be ok after the failover", timeout, null, () -> {
            for (RedisServer n : nodes) {
                if (n.isRunning() && !n.call("CLUSTER", "INFO").contains("cluster_state:ok")) {
                    return false;
                }
            }
            return true;
        });
        return promoted[0];
    }

    /**
     * Restarts a node that {@link #failover} killed, with its {@code nodes.conf} (its data is gone:
     * test-speed servers keep none), and waits until it has rejoined as a replica with its link up.
     */
    public void rejoin(RedisServer node, Duration timeout) {
        node.restart(true);
        Probes.await(
                node.address() + " to rejoin as a replica",
                timeout,
                null,
                () -> node.call("ROLE").startsWith("[slave"));
        awaitReplicaLink(node, timeout);
    }

    /**
     * Moves {@code slot} to {@code target} the way {@code redis-cli --cluster reshard} does: {@code
     * CLUSTER SETSLOT IMPORTING} on the target and {@code MIGRATING} on the current owner, then {@code
     * MIGRATE} of its keys one at a time with {@code pauseBetweenKeys} after each (so clients meet the
     * slot half moved: {@code ASK} for keys already moved, {@code TRYAGAIN} for requests on keys on
     * both sides), then {@code SETSLOT NODE} on the target, the old owner and every other master.
     *
     * @return the number of keys moved
     */
    public int migrateSlot(int slot, RedisServer target, Duration pauseBetweenKeys) {
        RedisServer source = masterOf(slot);
        if (source == target) {
            throw new IllegalArgumentException("slot " + slot + " is already served by " + target.address());
        }
        String s = Integer.toString(slot);
        String sourceId = id(source);
        String targetId = id(target);
        int moved = 0;
        try {
            target.call("CLUSTER", "SETSLOT", s, "IMPORTING", sourceId);
            source.call("CLUSTER", "SETSLOT", s, "MIGRATING", targetId);
            while (true) {
                String keys = source.call("CLUSTER", "GETKEYSINSLOT", s, "1").trim();
                if (keys.equals("[]") || keys.isEmpty()) {
                    break;
                }
                String key = keys.substring(1, keys.length() - 1); // "[key]": one key, whatever it contains
                source.call("MIGRATE", target.host(), Integer.toString(target.port()), key, "0", "5000");
                moved++;
                sleep(pauseBetweenKeys);
            }
            target.call("CLUSTER", "SETSLOT", s, "NODE", targetId);
            source.call("CLUSTER", "SETSLOT", s, "NODE", targetId);
            for (RedisServer n : nodes) {
                if (n != source
                        && n != target
                        && n.isRunning()
                        && n.call("ROLE").startsWith("[master")) {
                    n.call("CLUSTER", "SETSLOT", s, "NODE", targetId);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot move slot " + slot + " from " + source.address() + " to " + target.address(), e);
        }
        return moved;
    }

    private static void sleep(Duration d) {
        if (d.isZero() || d.isNegative()) {
            return;
        }
        try {
            Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while moving a slot", e);
        }
    }

    private void awaitReplicaLink(RedisServer replica, Duration timeout) {
        Probes.await(
                replica.address() + " to sync from its master",
                timeout,
                null,
                () -> replica.call("INFO", "replication").contains("master_link_status:up"));
    }

    private RedisServer running() {
        return nodes.stream()
                .filter(RedisServer::isRunning)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no node of the cluster is running"));
    }

    private static List<String> clusterNodes(RedisServer asked) {
        try {
            return List.of(asked.call("CLUSTER", "NODES").split("\n"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read CLUSTER NODES from " + asked.address(), e);
        }
    }

    /** The id of the node that {@code asked} says serves {@code slot}. */
    private static String ownerId(RedisServer asked, int slot) {
        for (String line : clusterNodes(asked)) {
            String[] f = line.trim().split(" ");
            if (f.length < 9 || !f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                String range = f[i];
                if (range.startsWith("[")) {
                    continue; // a slot being imported or migrated
                }
                int dash = range.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
                if (slot >= from && slot <= to) {
                    return f[0];
                }
            }
        }
        throw new IllegalStateException(asked.address() + " names no master for slot " + slot);
    }

    private int firstSlotOf(RedisServer master) {
        String id = id(master);
        for (String line : clusterNodes(master)) {
            String[] f = line.trim().split(" ");
            if (f[0].equals(id) && f.length > 8) {
                String range = f[8];
                int dash = range.indexOf('-');
                return Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            }
        }
        throw new IllegalStateException(master.address() + " serves no slot");
    }

    /** {@code host:port,host:port,...}. */
    public String addresses() {
        return nodes.stream().map(TestServer::address).collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        for (RedisServer n : nodes) {
            n.close();
        }
    }
}
