package io.distlock.redis;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.internal.RedisKeys;
import io.distlock.tck.TckFixture;
import io.distlock.tck.UnsupportedHookException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.awaitility.Awaitility;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * TCK fixture on local Redis servers: a standalone server, a master + replica watched by three
 * Sentinels, or a 3-master Cluster. Connections of our providers are recognised by their client
 * name ({@code distlock}), so admin and replication connections are not counted.
 */
final class RedisTckFixture implements TckFixture {
    private static final RedisKeys KEYS = new RedisKeys(RedisLockOptions.DEFAULT_KEY_PREFIX);

    private final String kind;
    private final LocalRedisServer standalone; // null unless standalone
    private final List<LocalRedisServer> dataNodes; // where keys live (CLIENT LIST, DEL)
    private final List<AutoCloseable> resources;
    private final Function<RedisLockOptions, RedisLockProvider> opener;

    private RedisTckFixture(
            String kind,
            LocalRedisServer standalone,
            List<LocalRedisServer> dataNodes,
            List<AutoCloseable> resources,
            Function<RedisLockOptions, RedisLockProvider> opener) {
        this.kind = kind;
        this.standalone = standalone;
        this.dataNodes = dataNodes;
        this.resources = resources;
        this.opener = opener;
    }

    static RedisTckFixture standalone() {
        LocalRedisServer s = LocalRedisServer.start();
        return new RedisTckFixture(
                "standalone",
                s,
                List.of(s),
                List.of(s),
                o -> RedisLockProvider.builder()
                        .standalone(s.host(), s.port())
                        .options(o)
                        .build());
    }

    static RedisTckFixture sentinel() {
        List<AutoCloseable> res = new ArrayList<>();
        try {
            LocalRedisServer master = LocalRedisServer.start();
            res.add(master);
            LocalRedisServer replica =
                    LocalRedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
            res.add(replica);
            List<String> sentinels = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                LocalRedisServer s = LocalRedisServer.startSentinel("distlock-master", master.port());
                res.add(0, s); // sentinels stop first
                sentinels.add(s.host() + ":" + s.port());
            }
            return new RedisTckFixture(
                    "sentinel",
                    null,
                    List.of(master),
                    res,
                    o -> RedisLockProvider.builder()
                            .sentinel("distlock-master", sentinels)
                            .options(o)
                            .build());
        } catch (RuntimeException e) {
            closeAll(res);
            throw e;
        }
    }

    static RedisTckFixture cluster() {
        LocalRedisCluster c = LocalRedisCluster.start(3);
        return new RedisTckFixture(
                "cluster",
                null,
                c.nodes(),
                List.of(c),
                o -> RedisLockProvider.builder()
                        .cluster(c.addresses())
                        .options(o)
                        .build());
    }

    /** The standalone server. */
    LocalRedisServer server() {
        if (standalone == null) {
            throw new IllegalStateException("not a standalone fixture");
        }
        return standalone;
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
        for (LocalRedisServer n : dataNodes) {
            try (Jedis j = n.admin()) {
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
        for (LocalRedisServer s : dataNodes) {
            try (Jedis j = s.admin()) {
                for (String line : j.clientList().split("\n")) {
                    if (line.contains(" name=distlock ")) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    @Override
    public void stopServer() {
        if (standalone == null) {
            throw new UnsupportedHookException("stopServer");
        }
        standalone.stop();
    }

    @Override
    public void startServer() {
        if (standalone == null) {
            throw new UnsupportedHookException("startServer");
        }
        standalone.restart();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> {
            try (Jedis j = standalone.admin()) {
                return "PONG".equals(j.ping());
            }
        });
    }

    @Override
    public void close() {
        closeAll(resources);
    }

    private static void closeAll(List<AutoCloseable> list) {
        for (AutoCloseable c : list) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }
}
