package io.distlock.testing.servers;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * N independent Redis masters (no replication, no cluster), the topology Redlock assumes.
 *
 * <pre>{@code
 * try (RedisServers nodes = RedisServers.independentMasters(5)) {
 *     LockProviders.open("redlock://" + nodes.addresses());
 *     nodes.get(0).kill();
 * }
 * }</pre>
 */
public final class RedisServers implements AutoCloseable {
    private final List<RedisServer> servers;

    private RedisServers(List<RedisServer> servers) {
        this.servers = List.copyOf(servers);
    }

    /** Starts {@code n} test-speed masters. */
    public static RedisServers independentMasters(int n) {
        return independentMasters(n, false);
    }

    /** Starts {@code n} masters, durable or not. */
    public static RedisServers independentMasters(int n, boolean durable) {
        return independentMasters(n, b -> b.durable(durable));
    }

    /**
     * Starts {@code n} masters, each configured by {@code settings} (e.g. {@code b ->
     * b.password(pw).tls(certs)}).
     */
    public static RedisServers independentMasters(int n, java.util.function.Consumer<RedisServer.Builder> settings) {
        java.util.Objects.requireNonNull(settings, "settings must not be null");
        if (n < 1) {
            throw new IllegalArgumentException("n must be at least 1 (was " + n + ")");
        }
        List<RedisServer> started = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                RedisServer.Builder b = RedisServer.builder();
                settings.accept(b);
                started.add(b.start());
            }
            return new RedisServers(started);
        } catch (RuntimeException e) {
            started.forEach(s -> closeQuietly(s, e));
            throw e;
        }
    }

    static void closeQuietly(AutoCloseable c, Throwable into) {
        try {
            c.close();
        } catch (Exception e) {
            into.addSuppressed(e);
        }
    }

    /** The masters, in start order. */
    public List<RedisServer> servers() {
        return servers;
    }

    /** The master at {@code index}. */
    public RedisServer get(int index) {
        return servers.get(index);
    }

    /** Number of masters. */
    public int size() {
        return servers.size();
    }

    /** {@code host:port,host:port,...}. */
    public String addresses() {
        return servers.stream().map(TestServer::address).collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (RedisServer s : servers) {
            try {
                s.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
