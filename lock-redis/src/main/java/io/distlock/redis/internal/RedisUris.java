package io.distlock.redis.internal;

import io.distlock.LockConfigurationException;
import io.distlock.redis.RedisLockOptions;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
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
 * Parameters: the common {@code leaseTime}, {@code autoRenew}, {@code maxHoldTime}, and {@code
 * keyPrefix}, {@code poolSize}, {@code connectTimeout}, {@code socketTimeout}, {@code
 * requiredReplicas}, {@code replicaAckTimeout}, {@code assumePersistence}, {@code
 * counterRetention}, {@code handOff}, {@code database}, {@code tls}, {@code tlsCaFile}. Errors never contain the password.
 */
public final class RedisUris {
    private static final String BACKEND = "redis";

    private RedisUris() {}

    /** A parsed URI. */
    public record Parsed(Topology topology, RedisLockOptions options) {}

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
            if (userInfo != null && !userInfo.isEmpty()) {
                int colon = userInfo.indexOf(':');
                String user = UriParameters.decodeComponent(colon < 0 ? userInfo : userInfo.substring(0, colon));
                String password = colon < 0 ? null : UriParameters.decodeComponent(userInfo.substring(colon + 1));
                if (colon < 0) {
                    // redis://secret@host: a lone userinfo is the password (as in redis-cli)
                    password = user;
                    user = null;
                }
                b.username(user == null || user.isEmpty() ? null : user);
                b.password(password == null || password.isEmpty() ? null : password);
            }
            int defaultPort = scheme.equals("redis-sentinel") || scheme.equals("rediss-sentinel") ? 26379 : 6379;
            List<String> hosts = new ArrayList<>();
            for (String h : authority.split(",", -1)) {
                if (h.isBlank()) {
                    throw new IllegalArgumentException("empty host in host list");
                }
                boolean hasPort = h.startsWith("[") ? h.contains("]:") : h.contains(":");
                hosts.add(hasPort ? h : h + ":" + defaultPort);
            }
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            Topology topology;
            switch (scheme) {
                case "redis":
                case "rediss":
                    if (hosts.size() != 1) {
                        throw new IllegalArgumentException(
                                "redis:// takes one host:port; use redis-sentinel:// or redis-cluster:// for several");
                    }
                    topology = new Topology(Topology.Kind.STANDALONE, List.of(Topology.parse(hosts.get(0))), null);
                    b.tls(scheme.equals("rediss"));
                    if (path.length() > 1) {
                        b.database(database(path.substring(1)));
                    }
                    break;
                case "redis-sentinel":
                case "rediss-sentinel":
                    if (path.length() <= 1) {
                        throw new IllegalArgumentException(
                                "the master name is missing (" + scheme + "://h:p,h:p/masterName)");
                    }
                    topology = Topology.sentinel(UriParameters.decodeComponent(path.substring(1)), hosts);
                    b.tls(scheme.equals("rediss-sentinel"));
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
            b.lockOptions(params.lockOptions(b.build().lockOptions()));
            String prefix = params.string("keyPrefix", null);
            if (prefix != null) {
                b.keyPrefix(prefix);
            }
            Integer pool = params.integer("poolSize", null);
            if (pool != null) {
                b.poolSize(pool);
            }
            Duration d = params.duration("connectTimeout", null);
            if (d != null) {
                b.connectTimeout(d);
            }
            d = params.duration("socketTimeout", null);
            if (d != null) {
                b.socketTimeout(d);
            }
            Integer replicas = params.integer("requiredReplicas", null);
            if (replicas != null) {
                b.requiredReplicas(replicas);
            }
            d = params.duration("replicaAckTimeout", null);
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
            Integer db = params.integer("database", null);
            if (db != null) {
                if (topology.kind() == Topology.Kind.CLUSTER && db != 0) {
                    throw new IllegalArgumentException("database must be 0 for Redis Cluster (was " + db + ")");
                }
                b.database(db);
            }
            Boolean tls = params.bool("tls", null);
            if (tls != null) {
                b.tls(tls);
            }
            String caFile = params.string("tlsCaFile", null);
            if (caFile != null) {
                b.tlsCaFile(java.nio.file.Path.of(caFile));
            }
            params.rejectUnknown();
            return new Parsed(topology, b.build());
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
