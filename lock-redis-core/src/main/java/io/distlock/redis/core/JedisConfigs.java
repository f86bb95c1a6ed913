package io.distlock.redis.core;

import io.distlock.Credentials;
import java.time.Duration;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisClientConfig;

/**
 * Jedis client and pool settings from {@link RedisConnectionOptions}, the same for lock-redis and
 * lock-redlock: the connect timeout is Jedis's connection timeout, the request timeout its socket
 * timeout; TLS as {@link Tls#configure} sets it up.
 */
public final class JedisConfigs {
    /** Client name of the lock connections (so operators and tests can tell them apart). */
    public static final String CLIENT_NAME = "distlock";

    private JedisConfigs() {}

    /**
     * The settings of a data node connection: timeouts, TLS, client name {@link #CLIENT_NAME}, {@code
     * credentials} (if not null) and the database.
     *
     * @throws IllegalArgumentException if the TLS trust cannot be read
     */
    public static JedisClientConfig dataNode(RedisConnectionOptions options, Credentials credentials) {
        DefaultJedisClientConfig.Builder b = base(options, CLIENT_NAME);
        if (credentials != null) {
            credentials.user().ifPresent(b::user);
            b.password(credentials.password());
        }
        if (options.database() != 0) {
            b.database(options.database());
        }
        return b.build();
    }

    /**
     * The settings of a Sentinel connection: timeouts, TLS and the client name {@code
     * distlock-sentinel}; no credentials and no database (Sentinels have neither).
     */
    public static JedisClientConfig sentinel(RedisConnectionOptions options) {
        return base(options, CLIENT_NAME + "-sentinel").build();
    }

    private static DefaultJedisClientConfig.Builder base(RedisConnectionOptions options, String clientName) {
        DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(millis(options.timeouts().connectTimeout()))
                .socketTimeoutMillis(millis(options.timeouts().requestTimeout()))
                .clientName(clientName);
        return Tls.configure(b, options.tls());
    }

    /**
     * A pool of at most {@code maxTotal} connections, all of which may stay idle, none kept open
     * idle when unused, no JMX; a borrower waits at most the connect plus the request timeout.
     */
    public static ConnectionPoolConfig pool(int maxTotal, RedisConnectionOptions options) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(maxTotal);
        pool.setMaxIdle(maxTotal);
        pool.setMinIdle(0);
        pool.setJmxEnabled(false);
        pool.setMaxWait(
                options.timeouts().connectTimeout().plus(options.timeouts().requestTimeout()));
        return pool;
    }

    private static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
    }
}
