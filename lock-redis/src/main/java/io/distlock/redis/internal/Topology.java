package io.distlock.redis.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import io.distlock.redis.core.ConnectionChecks;
import io.distlock.redis.core.JedisConfigs;
import io.distlock.redis.core.RedisConnectionOptions;
import io.distlock.redis.core.RedisErrors;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.ConnectionPoolConfig;
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
    private static final String BACKEND = "redis";

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
        return ConnectionChecks.parseHostAndPort(hostPort);
    }

    /**
     * Opens a pooled Jedis client for this topology: {@code poolSize} connections + 1 for the
     * subscriber.
     *
     * @throws LockConfigurationException if the servers refuse the credentials or the TLS trust
     * @throws BackendUnavailableException if the servers (Sentinels, Cluster seed nodes) cannot be
     *     reached
     */
    public UnifiedJedis connect(RedisConnectionOptions options) {
        ConnectionPoolConfig pool = JedisConfigs.pool(options.poolSize() + 1, options);
        JedisClientConfig config =
                JedisConfigs.dataNode(options, options.credentials().orElse(null));
        Set<HostAndPort> set = new LinkedHashSet<>(nodes);
        switch (kind) {
            case STANDALONE:
                return RedisClient.builder()
                        .hostAndPort(nodes.get(0))
                        .clientConfig(config)
                        .poolConfig(pool)
                        .build();
            case SENTINEL:
                JedisClientConfig sentinelConfig = JedisConfigs.sentinel(options);
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
                try {
                    return RedisClusterClient.builder()
                            .nodes(set)
                            .clientConfig(config)
                            .poolConfig(pool)
                            .maxTotalRetriesDuration(
                                    options.timeouts().requestTimeout().plus(Duration.ofMillis(500)))
                            .build();
                } catch (JedisException e) {
                    throw failure("cannot open the Redis Cluster " + nodes + ": " + e.getMessage(), e);
                }
        }
    }

    /**
     * Jedis says only "All sentinels down" (each sentinel's own error goes to its log): ask the
     * first sentinel once more, so that its error (refused, TLS handshake, ...) is attached.
     */
    private RuntimeException sentinelsUnreachable(
            RedisConnectionOptions options, JedisClientConfig sentinelConfig, JedisException e) {
        RuntimeException probeFailure = null;
        try (Jedis probe = new Jedis(nodes.get(0), sentinelConfig)) {
            probe.ping();
        } catch (RuntimeException cause) {
            probeFailure = cause;
        }
        String message = "cannot find master '" + masterName + "' through the Sentinels " + nodes + " (tls="
                + options.tls().isEnabled() + "): " + e.getMessage();
        if (probeFailure != null
                && RedisErrors.configurationProblem(probeFailure).isPresent()) {
            LockConfigurationException failure = new LockConfigurationException(
                    message + "; "
                            + RedisErrors.configurationProblem(probeFailure).get(),
                    BACKEND,
                    e);
            failure.addSuppressed(probeFailure);
            return failure;
        }
        RuntimeException failure = failure(message, e);
        if (probeFailure != null) {
            failure.addSuppressed(probeFailure);
        }
        return failure;
    }

    /** A configuration error if {@code e} is one (see {@link RedisErrors}), else an outage. */
    private static RuntimeException failure(String message, JedisException e) {
        Optional<String> problem = RedisErrors.configurationProblem(e);
        if (problem.isPresent()) {
            return new LockConfigurationException(message, BACKEND, e);
        }
        return new BackendUnavailableException(message, null, BACKEND, e);
    }

    @Override
    public String toString() {
        return kind + nodes.toString() + (masterName == null ? "" : "/" + masterName);
    }
}
