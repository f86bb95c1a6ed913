package io.distlock.nemesis;

import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.redis.RedisLockProvider;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * A Sentinel client whose connections to the data nodes go through the client's own proxies, so the
 * nemesis can partition one client under Sentinel: Sentinel names the master by its real address,
 * and a Jedis {@code HostAndPortMapper} maps that address to the proxy in front of it. The URI is a
 * {@code redis-sentinel://} URI (with the Sentinels' proxies) followed by {@code #map=real>proxy,...}.
 * The lock provider is lock-redis's own, on that client ({@link RedisLockProvider.Builder#client}),
 * with lock-redis's default pool size and timeouts.
 */
final class MappedSentinel {
    static final String MARK = "#map=";

    private MappedSentinel() {}

    /**
     * Opens {@code uri}: a mapped Sentinel URI here, anything else through {@link LockProviders}.
     * What must be closed after the provider is added to {@code alsoClose}.
     */
    static LockProvider open(String uri, java.util.List<AutoCloseable> alsoClose) {
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
        // redis-sentinel://h:p,h:p/masterName?leaseTime=NNNms
        String rest = base.substring("redis-sentinel://".length());
        int slash = rest.indexOf('/');
        int q = rest.indexOf('?');
        Set<HostAndPort> sentinels = new LinkedHashSet<>();
        for (String s : rest.substring(0, slash).split(",")) {
            sentinels.add(HostAndPort.from(s));
        }
        String master = rest.substring(slash + 1, q < 0 ? rest.length() : q);
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
        UnifiedJedis client = RedisSentinelClient.builder()
                .masterName(master)
                .sentinels(sentinels)
                .clientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(2000)
                        .socketTimeoutMillis(2000)
                        .clientName("distlock")
                        .hostAndPortMapper(hp -> map.getOrDefault(hp, hp))
                        .build())
                .sentinelClientConfig(DefaultJedisClientConfig.builder()
                        .connectionTimeoutMillis(2000)
                        .socketTimeoutMillis(2000)
                        .clientName("distlock-sentinel")
                        .build())
                .poolConfig(pool)
                .build();
        alsoClose.add(client); // the provider does not close a client it was given
        return RedisLockProvider.builder().client(client).leaseTime(lease).build();
    }
}
