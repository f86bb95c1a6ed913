package io.distlock.testing.servers;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One server per backend for a whole test JVM, started on first use and shared by every test class
 * that asks (failsafe runs a module's {@code *IT} classes in one JVM): the integration modules that run
 * the same suite on every backend start each server once instead of once per class. The servers stop
 * when the JVM exits ({@link SupervisedProcess}'s shutdown hook and supervisor), so a test must not
 * stop, pause or restart them: fault tests start their own.
 *
 * <pre>{@code
 * try (LockProvider locks = LockProviders.open(SharedBackends.uri(Backend.ETCD, "leaseTime=2s"))) { ... }
 * }</pre>
 */
public final class SharedBackends {

    /** The backends, with the provider URI scheme of each. */
    public enum Backend {
        /** The in-JVM backend ({@code mem://}); no server, and only within one JVM. */
        MEM,
        /** One standalone redis-server. */
        REDIS,
        /** Three independent Redis masters. */
        REDLOCK,
        /** One standalone ZooKeeper server. */
        ZOOKEEPER,
        /** One etcd member. */
        ETCD,
        /** One MariaDB server (lock-mysql-skiplocked). */
        MYSQL;

        /** The lower-case name, as in test names and reports: {@code redis}, {@code zookeeper}... */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Map<Backend, Started> STARTED = new EnumMap<>(Backend.class);

    private SharedBackends() {}

    /** The provider URI of {@code backend}'s shared server (started now if it is not yet running). */
    public static String uri(Backend backend) {
        return uri(backend, "");
    }

    /**
     * The provider URI of {@code backend}'s shared server with the query parameters {@code query}
     * ({@code "leaseTime=2s&autoRenew=false"}, or empty). MySQL's carries the test user's password and
     * {@code createSchema=true}.
     */
    public static String uri(Backend backend, String query) {
        Objects.requireNonNull(backend, "backend must not be null");
        Objects.requireNonNull(query, "query must not be null");
        String base = started(backend).uri;
        return query.isEmpty() ? base : base + (base.contains("?") ? "&" : "?") + query;
    }

    /** The MariaDB server behind {@link Backend#MYSQL} (started now if needed), e.g. for its JDBC URL. */
    public static MariaDbServer mariaDb() {
        return (MariaDbServer) started(Backend.MYSQL).server;
    }

    private static synchronized Started started(Backend backend) {
        return STARTED.computeIfAbsent(backend, SharedBackends::start);
    }

    private static Started start(Backend backend) {
        switch (backend) {
            case MEM:
                return new Started(null, "mem://shared");
            case REDIS: {
                RedisServer s = RedisServer.start();
                return new Started(s, s.uri());
            }
            case REDLOCK: {
                RedisServers s = RedisServers.independentMasters(3);
                return new Started(s, "redlock://" + s.addresses());
            }
            case ZOOKEEPER: {
                TestServer s = ZooKeeperServer.start();
                return new Started(s, "zookeeper://" + s.address());
            }
            case ETCD: {
                EtcdServer s = EtcdServer.start();
                return new Started(s, s.uri());
            }
            case MYSQL: {
                MariaDbServer s = MariaDbServer.start();
                return new Started(
                        s,
                        "mysql://" + s.user() + ":" + s.password() + "@" + s.address() + "/" + s.database()
                                + "?createSchema=true");
            }
            default:
                throw new IllegalArgumentException("unknown backend " + backend);
        }
    }

    private static final class Started {
        final AutoCloseable server;
        final String uri;

        Started(AutoCloseable server, String uri) {
            this.server = server;
            this.uri = uri;
        }
    }
}
