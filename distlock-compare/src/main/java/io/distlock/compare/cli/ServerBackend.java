package io.distlock.compare.cli;

import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.LockClient;
import io.distlock.compare.Scenario;
import io.distlock.compare.cli.peers.JdbcLockRegistryClient;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * What the backends that run a real server share: where the servers are (started here or the
 * user's), the run's prefix, the delay line in front of the servers, and pairing each target with
 * its delayed variant.
 */
abstract class ServerBackend implements Backend {
    /** Where the servers are: the ones started here, or the user's. */
    protected ServerAddress address;
    /** The run's prefix. */
    protected RunPrefix prefix;
    /** The proxies in front of the servers, or null. */
    protected ProxyLine line;
    /** Whether the servers are the user's (not started by this run). */
    protected boolean existing;

    /**
     * Uses {@code theirs}, or the local servers {@code startLocal} starts when it is null; then starts
     * the delay line if asked.
     */
    protected final void use(
            ServerAddress theirs, Supplier<ServerAddress> startLocal, RunPrefix runPrefix, boolean delayLine) {
        this.existing = theirs != null;
        this.address = existing ? theirs : startLocal.get();
        this.prefix = runPrefix;
        if (delayLine) {
            this.line = new ProxyLine(address);
        }
    }

    /** Our target for a provider URI, with its capabilities read from one provider. */
    static ComparisonTarget ours(String name, String uri) {
        ComparisonTarget t = ComparisonTarget.of(name, name, () -> LockClient.of(LockProviders.open(uri)));
        try (LockProvider probe = LockProviders.open(uri)) {
            return t.withCapabilities(probe.capabilities());
        }
    }

    /** A counter supplier that turns failures into "unknown". */
    static Supplier<OptionalLong> counter(LongSupplier read) {
        return () -> {
            try {
                return OptionalLong.of(read.getAsLong());
            } catch (RuntimeException e) {
                return OptionalLong.empty();
            }
        };
    }

    /** Connections from this machine to the servers (all processes', the probes' included). */
    protected Supplier<OptionalLong> connections() {
        return SocketCount.to(address.nodes());
    }

    /**
     * {@code direct} with, when there is a delay line, each target paired with the target at the same
     * place of {@code delayed} (the same targets built for the line's address).
     */
    protected List<ComparisonTarget> paired(List<ComparisonTarget> direct, Supplier<List<ComparisonTarget>> delayed) {
        if (line == null) {
            return direct;
        }
        List<ComparisonTarget> via = delayed.get();
        List<ComparisonTarget> out = new ArrayList<>();
        for (int i = 0; i < direct.size(); i++) {
            out.add(direct.get(i).withDelayed(via.get(i), line));
        }
        return out;
    }

    /** "remote" or "local" and where, for the report. */
    protected String where(String local) {
        return existing ? "existing servers " + address.describe() : local;
    }

    /** Closes the delay line. */
    protected void closeLine() {
        if (line != null) {
            line.close();
        }
    }

    /**
     * For the SQL backends: our target at {@code uri} and, if {@code peers}, Spring Integration's
     * {@code JdbcLockRegistry} at {@code jdbcUrl} (its table {@code <prefix>_LOCK}, created by {@link
     * JdbcLockRegistryClient#createTable}), both with {@code floor} as the round trip ({@code
     * statements} of it per acquire+release) and the server's requests read by {@code requests}.
     */
    protected List<ComparisonTarget> oursAndJdbcPeer(
            String uri,
            String jdbcUrl,
            ServerAddress a,
            Runnable floor,
            int statements,
            LongSupplier requests,
            boolean peers,
            String version) {
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours(name(), uri));
        if (peers) {
            String tablePrefix = registryPrefix();
            out.add(ComparisonTarget.of(
                            // the peer runs on MySQL and on PostgreSQL: its name says which
                            "spring-integration JdbcLockRegistry (" + name() + ")",
                            name(),
                            () -> new JdbcLockRegistryClient(jdbcUrl, a.user(), a.password(), tablePrefix))
                    .asPeer()
                    .withLimit(Scenario.RENEWAL, 1, JdbcLockRegistryClient.DISTINCT_LOCKS_LIMIT));
        }
        out.replaceAll(t -> t.withFloor(floor, statements)
                .withServerRequests(counter(requests))
                .withServerConnections(connections())
                .withServerVersion(version));
        return out;
    }

    /** The prefix of the JDBC peer's table: Spring Integration names it {@code <prefix>LOCK}. */
    protected String registryPrefix() {
        return prefix.sql() + "_";
    }

    /** One {@code SELECT 1} on {@code c}: a SQL backend's round trip. */
    protected static void selectOne(Connection c) {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
        } catch (SQLException e) {
            throw unchecked(e);
        }
    }

    static RuntimeException unchecked(Exception e) {
        return e instanceof RuntimeException r ? r : new IllegalStateException(e.getMessage(), e);
    }
}
