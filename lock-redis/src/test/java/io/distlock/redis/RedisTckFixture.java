package io.distlock.redis;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.internal.RedisKeys;
import io.distlock.tck.TckFixture;
import io.distlock.testing.servers.RedisCluster;
import io.distlock.testing.servers.RedisSentinelSetup;
import io.distlock.testing.servers.RedisServer;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * TCK fixture on real servers from {@code io.distlock.testing.servers}: a standalone server, a master +
 * replica watched by three Sentinels, or a 3-master Cluster. Connections of our providers are
 * recognised by their client name ({@code distlock}), so admin, replication and Sentinel connections
 * are not counted.
 */
final class RedisTckFixture implements TckFixture {
    private static final RedisKeys KEYS = new RedisKeys(RedisLockOptions.DEFAULT_KEY_PREFIX);

    private final String kind;
    private final RedisServer standalone; // null unless standalone
    private final Supplier<List<RedisServer>> dataNodes; // where keys live (CLIENT LIST, DEL)
    private final List<RedisServer> allNodes; // what stopServer stops (masters and replicas)
    private final AutoCloseable resources;
    private final Function<RedisLockOptions, RedisLockProvider> opener;

    private RedisTckFixture(
            String kind,
            RedisServer standalone,
            Supplier<List<RedisServer>> dataNodes,
            List<RedisServer> allNodes,
            AutoCloseable resources,
            Function<RedisLockOptions, RedisLockProvider> opener) {
        this.kind = kind;
        this.standalone = standalone;
        this.dataNodes = dataNodes;
        this.allNodes = allNodes;
        this.resources = resources;
        this.opener = opener;
    }

    static RedisTckFixture standalone() {
        return standalone(o -> o);
    }

    /** Standalone, every provider with {@link RedisLockOptions#handOff()} off. */
    static RedisTckFixture standaloneNoHandOff() {
        return standalone(o -> o.mutate().handOff(false).build());
    }

    private static RedisTckFixture standalone(java.util.function.UnaryOperator<RedisLockOptions> adjust) {
        RedisServer s = RedisServer.start();
        return new RedisTckFixture(
                "standalone",
                s,
                () -> List.of(s),
                List.of(s),
                s,
                o -> RedisLockProvider.builder()
                        .standalone(s.host(), s.port())
                        .options(adjust.apply(o))
                        .build());
    }

    static RedisTckFixture sentinel() {
        RedisSentinelSetup setup = RedisSentinelSetup.start();
        List<String> sentinels =
                setup.sentinels().stream().map(t -> t.host() + ":" + t.port()).toList();
        return new RedisTckFixture(
                "sentinel",
                null,
                () -> List.of(setup.master()),
                List.of(setup.master(), setup.replica()),
                setup,
                o -> RedisLockProvider.builder()
                        .sentinel(setup.masterName(), sentinels)
                        .options(o)
                        .build());
    }

    static RedisTckFixture cluster() {
        RedisCluster c = RedisCluster.start(3);
        List<String> nodes =
                c.nodes().stream().map(n -> n.host() + ":" + n.port()).toList();
        return new RedisTckFixture(
                "cluster",
                null,
                c::nodes,
                c.nodes(),
                c,
                o -> RedisLockProvider.builder().cluster(nodes).options(o).build());
    }

    /** The standalone server. */
    RedisServer server() {
        if (standalone == null) {
            throw new IllegalStateException("not a standalone fixture");
        }
        return standalone;
    }

    /** An admin connection to the standalone server. */
    Jedis admin() {
        return new Jedis(server().host(), server().port());
    }

    /** Opens a provider with full Redis options on this deployment. */
    RedisLockProvider open(RedisLockOptions options) {
        return opener.apply(options);
    }

    @Override
    public String backend() {
        return "redis-" + kind;
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return open(RedisLockOptions.builder().lockOptions(options).poolSize(4).build());
    }

    @Override
    public void expireLease(String lockName) {
        String key = KEYS.lockKey(lockName);
        for (RedisServer n : dataNodes.get()) {
            try (Jedis j = new Jedis(n.host(), n.port())) {
                j.del(key);
            } catch (JedisMovedDataException otherNode) {
                // Cluster: the key lives on another master
            }
        }
    }

    @Override
    public void crashClient(LockProvider client) {
        ((RedisLockProvider) client).simulateCrash();
    }

    @Override
    public int serverConnectionCount() {
        int n = 0;
        for (RedisServer s : dataNodes.get()) {
            try (Jedis j = new Jedis(s.host(), s.port())) {
                for (String line : j.clientList().split("\n")) {
                    if (line.contains(" name=distlock ")) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    /**
     * Stops every data node (Sentinel: master and replica, so there is nothing to fail over to;
     * Cluster: all masters). The Sentinels stay up.
     */
    @Override
    public void stopServer() {
        allNodes.forEach(RedisServer::kill);
    }

    /** Starts the data nodes again on the same ports, with their directories (Cluster: nodes.conf). */
    @Override
    public void startServer() {
        allNodes.forEach(n -> n.restart(true));
        if (kind.equals("cluster")) {
            org.awaitility.Awaitility.await("cluster state ok after restart")
                    .atMost(java.time.Duration.ofSeconds(20))
                    .pollInterval(java.time.Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> allNodes.stream().allMatch(n -> {
                        try (Jedis j = new Jedis(n.host(), n.port())) {
                            return j.clusterInfo().contains("cluster_state:ok");
                        }
                    }));
        }
    }

    @Override
    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            throw new IllegalStateException("could not stop the Redis servers", e);
        }
    }
}
