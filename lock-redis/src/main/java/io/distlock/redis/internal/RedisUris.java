package io.distlock.redis.internal;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.core.ConnectionChecks;
import io.distlock.redis.core.ConnectionUris;
import io.distlock.redis.core.RedisConnectionOptions;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Parses provider URIs:
 *
 * <ul>
 *   <li>{@code redis://[user:password@]host[:port][/db][?params]} and {@code rediss://} (TLS);
 *       the port defaults to 6379 (26379 for Sentinels);
 *   <li>{@code redis-sentinel://[user:password@]host:port[,host:port...]/masterName[?params]}, and
 *       {@code rediss-sentinel://} (TLS to the Sentinels and to the data nodes);
 *   <li>{@code redis-cluster://[user:password@]host:port[,host:port...][?params]}.
 * </ul>
 *
 * Parameters: the common {@code leaseTime}, {@code autoRenew}, {@code maxHoldTime}, {@code
 * maxRenewals}; the connection parameters {@code keyPrefix}, {@code poolSize}, {@code
 * connectTimeout}, {@code requestTimeout}, {@code database}, {@code tls}, {@code trustCertificates},
 * {@code trustStore}, {@code trustStorePassword} (see {@link ConnectionUris}); and {@code
 * requiredReplicas}, {@code replicaAckTimeout}, {@code assumePersistence}, {@code
 * counterRetention}, {@code handOff}. Errors never contain the password.
 */
public final class RedisUris {
    private static final String BACKEND = "redis";

    private RedisUris() {}

    /** A parsed URI. */
    public record Parsed(Topology topology, RedisLockOptions options, LockOptions lockOptions) {}

    /** @throws LockConfigurationException naming the part of the (redacted) URI that is wrong */
    public static Parsed parse(URI uri) {
        String redacted = UriParameters.redact(uri);
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        UriParameters params = UriParameters.of(uri, BACKEND);
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw params.error("host:port is missing");
        }
        String userInfo = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            userInfo = authority.substring(0, at);
            authority = authority.substring(at + 1);
        }
        RedisLockOptions.Builder b = RedisLockOptions.builder();
        try {
            int defaultPort = scheme.equals("redis-sentinel") || scheme.equals("rediss-sentinel") ? 26379 : 6379;
            List<String> hosts = ConnectionChecks.hostPorts(authority, defaultPort, "host");
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            Topology topology;
            int pathDatabase = 0;
            switch (scheme) {
                case "redis":
                case "rediss":
                    if (hosts.size() != 1) {
                        throw new IllegalArgumentException(
                                "redis:// takes one host:port; use redis-sentinel:// or redis-cluster:// for several");
                    }
                    topology = new Topology(Topology.Kind.STANDALONE, List.of(Topology.parse(hosts.get(0))), null);
                    if (path.length() > 1) {
                        pathDatabase = database(path.substring(1));
                    }
                    break;
                case "redis-sentinel":
                case "rediss-sentinel":
                    if (path.length() <= 1) {
                        throw new IllegalArgumentException(
                                "the master name is missing (" + scheme + "://h:p,h:p/masterName)");
                    }
                    topology = Topology.sentinel(UriParameters.decodeComponent(path.substring(1)), hosts);
                    break;
                case "redis-cluster":
                    if (path.length() > 1) {
                        throw new IllegalArgumentException(
                                "redis-cluster:// takes no path (Cluster has only database 0)");
                    }
                    topology = Topology.cluster(hosts);
                    break;
                default:
                    throw new IllegalArgumentException("unsupported scheme '" + scheme + "'");
            }
            LockOptions lockOptions = params.lockOptions(LockOptions.defaults());
            RedisConnectionOptions.Builder connection =
                    RedisLockOptions.defaults().connection().mutate().database(pathDatabase);
            Credentials credentials = ConnectionUris.credentials(userInfo);
            if (credentials != null) {
                connection.credentials(credentials);
            }
            RedisConnectionOptions parsed = ConnectionUris.connection(
                    params,
                    connection.build(),
                    scheme.equals("rediss") || scheme.equals("rediss-sentinel"),
                    "use rediss:// or tls=true");
            if (topology.kind() == Topology.Kind.CLUSTER && parsed.database() != 0) {
                throw new IllegalArgumentException(
                        "database must be 0 for Redis Cluster (was " + parsed.database() + ")");
            }
            b.connection(parsed);
            Integer replicas = params.integer("requiredReplicas", null);
            if (replicas != null) {
                b.requiredReplicas(replicas);
            }
            Duration d = params.duration("replicaAckTimeout", null);
            if (d != null) {
                b.replicaAckTimeout(d);
            }
            Boolean persist = params.bool("assumePersistence", null);
            if (persist != null) {
                b.assumePersistence(persist);
            }
            d = params.duration("counterRetention", null);
            if (d != null) {
                b.counterRetention(d);
            }
            Boolean handOff = params.bool("handOff", null);
            if (handOff != null) {
                b.handOff(handOff);
            }
            params.rejectUnknown();
            return new Parsed(topology, b.build(), lockOptions);
        } catch (IllegalArgumentException e) {
            // messages from our own validation never contain the password
            throw new LockConfigurationException(e.getMessage() + " in " + redacted, BACKEND, e);
        }
    }

    private static int database(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the path must be a database number (was '" + s + "')");
        }
    }
}
