package io.distlock.nemesis;

import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.redis.RedisLockProvider;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * A Sentinel or Cluster client whose connections to the data nodes go through the client's own
 * proxies, so the nemesis can partition one client: Sentinel names the master, and Cluster the
 * owners of its slots, by their real addresses, and a Jedis {@code HostAndPortMapper} maps each to
 * the proxy in front of it. The URI is a {@code redis-sentinel://} URI (with the Sentinels' proxies)
 * or a {@code redis-cluster://} URI (with the nodes' proxies) followed by {@code
 * #map=real>proxy,...}. The lock provider is lock-redis's own, on that client ({@link
 * RedisLockProvider.Builder#client}), with lock-redis's default pool size and timeouts.
 */
final class MappedRedis {
    static final String MARK = "#map=";
    private static final int TIMEOUT_MS = 2000;

    private MappedRedis() {}

    /**
     * Opens {@code uri}: a mapped Sentinel or Cluster URI here, anything else through {@link
     * LockProviders}. What must be closed after the provider is added to {@code alsoClose}.
     */
    static LockProvider open(String uri, List<AutoCloseable> alsoClose) {
        int mark = uri.indexOf(MARK);
        if (mark < 0) {
            return LockProviders.open(uri);
        }
        String base = uri.substring(0, mark);
        Map<HostAndPort, HostAndPort> map = new HashMap<>();
        for (String pair : uri.substring(mark + MARK.length()).split(",")) {
            String[] ab = pair.split(">");
            map.put(HostAndPort.from(ab[0]), HostAndPort.from(ab[1]));
        }
        boolean cluster = base.startsWith("redis-cluster://");
        // redis-sentinel://h:p,h:p/masterName?leaseTime=NNNms or redis-cluster://h:p,h:p?leaseTime=NNNms
        String rest = base.substring(base.indexOf("://") + 3);
        int q = rest.indexOf('?');
        String path = q < 0 ? rest : rest.substring(0, q);
        int slash = path.indexOf('/');
        Set<HostAndPort> hosts = new LinkedHashSet<>();
        for (String s : (slash < 0 ? path : path.substring(0, slash)).split(",")) {
            hosts.add(HostAndPort.from(s));
        }
        Duration lease = Duration.ofSeconds(30);
        if (q >= 0) {
            for (String kv : rest.substring(q + 1).split("&")) {
                if (kv.startsWith("leaseTime=") && kv.endsWith("ms")) {
                    lease = Duration.ofMillis(Long.parseLong(kv.substring(10, kv.length() - 2)));
                }
            }
        }
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(9);
        pool.setMaxIdle(9);
        pool.setMinIdle(0);
        pool.setJmxEnabled(false);
        pool.setMaxWait(Duration.ofSeconds(4));
        JedisClientConfig data = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(TIMEOUT_MS)
                .socketTimeoutMillis(TIMEOUT_MS)
                .clientName("distlock")
                .hostAndPortMapper(hp -> map.getOrDefault(hp, hp))
                .build();
        UnifiedJedis client = cluster
                ? RedisClusterClient.builder()
                        .nodes(hosts)
                        .clientConfig(data)
                        .poolConfig(pool)
                        .maxTotalRetriesDuration(Duration.ofMillis(TIMEOUT_MS + 500))
                        .build()
                : RedisSentinelClient.builder()
                        .masterName(path.substring(slash + 1))
                        .sentinels(hosts)
                        .clientConfig(data)
                        .sentinelClientConfig(DefaultJedisClientConfig.builder()
                                .connectionTimeoutMillis(TIMEOUT_MS)
                                .socketTimeoutMillis(TIMEOUT_MS)
                                .clientName("distlock-sentinel")
                                .build())
                        .poolConfig(pool)
                        .build();
        alsoClose.add(client); // the provider does not close a client it was given
        return RedisLockProvider.builder().client(client).leaseTime(lease).build();
    }
}
