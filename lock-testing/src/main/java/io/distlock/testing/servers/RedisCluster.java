package io.distlock.testing.servers;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of N masters (no replicas), cluster-enabled local test-speed servers, joined by
 * {@code CLUSTER MEET}, the 16384 slots split evenly with {@code CLUSTER ADDSLOTSRANGE}. Ready when
 * every node's {@code CLUSTER INFO} says {@code cluster_state:ok}.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(3)) {
 *     LockProviders.open("redis-cluster://" + cluster.addresses());
 * }
 * }</pre>
 *
 * Without replicas, killing a node makes its slots unavailable (the cluster state turns to fail
 * after {@code cluster-node-timeout}, 2000 ms).
 */
public final class RedisCluster implements AutoCloseable {
    /** Number of hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** Starts {@code masters} nodes (at least 3, as Redis requires) and joins them. */
    public static RedisCluster start(int masters) {
        if (masters < 3) {
            throw new IllegalArgumentException("masters must be at least 3 for a Redis Cluster (was " + masters + ")");
        }
        List<RedisServer> nodes = new ArrayList<>();
        int[] busPorts = new int[masters];
        try {
            for (int i = 0; i < masters; i++) {
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
            for (int i = 1; i < masters; i++) {
                first.call(
                        "CLUSTER",
                        "MEET",
                        nodes.get(i).host(),
                        Integer.toString(nodes.get(i).port()),
                        Integer.toString(busPorts[i]));
            }
            RedisCluster cluster = new RedisCluster(nodes);
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

    /** The masters, in start order. */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** The master at {@code index}. */
    public RedisServer node(int index) {
        return nodes.get(index);
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
