package io.distlock.redis.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.redis.RedisLockOptions;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;

/** Where the servers are: one standalone server, a Sentinel-monitored master, or a Cluster. */
public record Topology(Kind kind, List<HostAndPort> nodes, String masterName) {

    /** The deployment kind. */
    public enum Kind {
        STANDALONE,
        SENTINEL,
        CLUSTER
    }

    public Topology {
        Objects.requireNonNull(kind, "kind");
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one host:port is required");
        }
        if (kind == Kind.STANDALONE && nodes.size() != 1) {
            throw new IllegalArgumentException(
                    "a standalone server has exactly one host:port (got " + nodes.size() + ")");
        }
        if (kind == Kind.SENTINEL && (masterName == null || masterName.isBlank())) {
            throw new IllegalArgumentException("masterName must not be empty for Sentinel");
        }
    }

    public static Topology standalone(String host, int port) {
        return new Topology(Kind.STANDALONE, List.of(ConnectionChecks.hostAndPort(host, port)), null);
    }

    public static Topology sentinel(String masterName, List<String> sentinels) {
        return new Topology(Kind.SENTINEL, parseAll("sentinels", sentinels), masterName);
    }

    public static Topology cluster(List<String> nodes) {
        return new Topology(Kind.CLUSTER, parseAll("cluster nodes", nodes), null);
    }

    private static List<HostAndPort> parseAll(String what, List<String> hostPorts) {
        Objects.requireNonNull(hostPorts, what + " must not be null");
        if (hostPorts.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return hostPorts.stream().map(Topology::parse).toList();
    }

    /** Parses {@code host:port} or {@code [ipv6]:port}. */
    public static HostAndPort parse(String hostPort) {
        Objects.requireNonNull(hostPort, "host:port must not be null");
        String s = hostPort.trim();
        String host;
        String port;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("expected [ipv6]:port (was '" + hostPort + "')");
            }
            host = s.substring(1, close);
            port = s.substring(close + 2);
        } else {
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || s.indexOf(':') != colon) {
                throw new IllegalArgumentException("expected host:port (was '" + hostPort + "')");
            }
            host = s.substring(0, colon);
            port = s.substring(colon + 1);
        }
        try {
            return ConnectionChecks.hostAndPort(host, Integer.parseInt(port));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port must be a number (was '" + port + "' in '" + hostPort + "')");
        }
    }

    /** Opens a pooled Jedis client for this topology: {@code poolSize} connections + 1 for the subscriber. */
    public UnifiedJedis connect(RedisLockOptions options) {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(options.poolSize() + 1);
        pool.setMaxIdle(options.poolSize() + 1);
        pool.setMinIdle(0);
        pool.setJmxEnabled(false);
        pool.setMaxWait(options.connectTimeout().plus(options.socketTimeout()));
        JedisClientConfig config = clientConfig(options, true);
        Set<HostAndPort> set = new LinkedHashSet<>(nodes);
        switch (kind) {
            case STANDALONE:
                return RedisClient.builder()
                        .hostAndPort(nodes.get(0))
                        .clientConfig(config)
                        .poolConfig(pool)
                        .build();
            case SENTINEL:
                JedisClientConfig sentinelConfig = clientConfig(options, false);
                try {
                    return RedisSentinelClient.builder()
                            .masterName(masterName)
                            .sentinels(set)
                            .clientConfig(config)
                            .sentinelClientConfig(sentinelConfig)
                            .poolConfig(pool)
                            .build();
                } catch (JedisException e) {
                    throw sentinelsUnreachable(options, sentinelConfig, e);
                }
            default:
                if (options.database() != 0) {
                    throw new IllegalArgumentException(
                            "database must be 0 for Redis Cluster (was " + options.database() + ")");
                }
                return RedisClusterClient.builder()
                        .nodes(set)
                        .clientConfig(config)
                        .poolConfig(pool)
                        .maxTotalRetriesDuration(options.socketTimeout().plus(Duration.ofMillis(500)))
                        .build();
        }
    }

    /**
     * Jedis says only "All sentinels down" (each sentinel's own error goes to its log): ask the
     * first sentinel once more, so that its error (refused, TLS handshake, ...) is attached.
     */
    private BackendUnavailableException sentinelsUnreachable(
            RedisLockOptions options, JedisClientConfig sentinelConfig, JedisException e) {
        BackendUnavailableException failure = new BackendUnavailableException(
                "cannot find master '" + masterName + "' through the Sentinels " + nodes + " (tls=" + options.tls()
                        + "): " + e.getMessage(),
                null,
                "redis",
                e);
        try (Jedis probe = new Jedis(nodes.get(0), sentinelConfig)) {
            probe.ping();
        } catch (RuntimeException cause) {
            failure.addSuppressed(cause);
        }
        return failure;
    }

    private static JedisClientConfig clientConfig(RedisLockOptions o, boolean dataNode) {
        DefaultJedisClientConfig.Builder b = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis((int) o.connectTimeout().toMillis())
                .socketTimeoutMillis((int) o.socketTimeout().toMillis())
                .clientName(dataNode ? "distlock" : "distlock-sentinel");
        if (o.tls()) {
            Tls.enable(b, o.sslSocketFactory().orElse(null), o.tlsCaFile().orElse(null));
        }
        if (dataNode) {
            o.username().ifPresent(b::user);
            o.password().ifPresent(b::password);
            if (o.database() != 0) {
                b.database(o.database());
            }
        }
        return b.build();
    }

    @Override
    public String toString() {
        return kind + nodes.toString() + (masterName == null ? "" : "/" + masterName);
    }
}
