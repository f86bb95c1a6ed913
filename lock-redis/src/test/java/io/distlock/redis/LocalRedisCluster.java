package io.distlock.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import redis.clients.jedis.Jedis;

/**
 * Test-only 3-master Redis Cluster on loopback (no replicas). Temporary: to be replaced by {@code
 * io.distlock.tck.servers.RedisCluster}.
 */
final class LocalRedisCluster implements AutoCloseable {
    private final List<LocalRedisServer> nodes = new ArrayList<>();

    static LocalRedisCluster start(int masters) {
        LocalRedisCluster c = new LocalRedisCluster();
        try {
            for (int i = 0; i < masters; i++) {
                c.nodes.add(LocalRedisServer.start(
                        "--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", "2000"));
            }
            List<String> cmd = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            c.nodes.forEach(n -> cmd.add(n.host() + ":" + n.port()));
            cmd.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create failed: " + out);
            }
            for (LocalRedisServer n : c.nodes) {
                try (Jedis j = n.admin()) {
                    Awaitility.await("cluster state ok on " + n.port())
                            .atMost(Duration.ofSeconds(20))
                            .pollInterval(Duration.ofMillis(50))
                            .until(() -> j.clusterInfo().contains("cluster_state:ok"));
                }
            }
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw new IllegalStateException("cannot start a Redis Cluster", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            c.close();
            throw new IllegalStateException(e);
        }
    }

    List<String> addresses() {
        return nodes.stream().map(n -> n.host() + ":" + n.port()).toList();
    }

    List<LocalRedisServer> nodes() {
        return nodes;
    }

    @Override
    public void close() {
        nodes.forEach(LocalRedisServer::close);
    }
}
