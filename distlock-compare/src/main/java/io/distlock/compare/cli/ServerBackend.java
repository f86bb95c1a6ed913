package io.distlock.compare.cli;

import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.LockClient;
import io.distlock.compare.cli.peers.JdbcLockRegistryClient;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/** Helpers shared by the backends that run a real server. */
abstract class ServerBackend implements Backend {

    /** Our target for a provider URI, with its capabilities read from one provider. */
    static ComparisonTarget ours(String name, String uri) {
        ComparisonTarget t = ComparisonTarget.of(name, name, () -> LockClient.of(LockProviders.open(uri)));
        try (LockProvider probe = LockProviders.open(uri)) {
            return t.withCapabilities(probe.capabilities());
        }
    }

    /** A counter supplier that turns failures into "unknown". */
    static java.util.function.Supplier<OptionalLong> counter(LongSupplier read) {
        return () -> {
            try {
                return OptionalLong.of(read.getAsLong());
            } catch (RuntimeException e) {
                return OptionalLong.empty();
            }
        };
    }

    /**
     * Spring Integration's {@code JdbcLockRegistry} as a peer on the same server, its {@code INT_LOCK}
     * table created from the DDL it ships for {@code database} ({@code mysql}, {@code postgresql}).
     */
    static ComparisonTarget jdbcLockRegistryPeer(
            String backend, String database, String jdbcUrl, String user, String password) {
        try {
            JdbcLockRegistryClient.createTable(jdbcUrl, user, password, database);
        } catch (java.sql.SQLException e) {
            throw unchecked(e);
        }
        return ComparisonTarget.of(
                        "spring-integration JdbcLockRegistry",
                        backend,
                        () -> new JdbcLockRegistryClient(jdbcUrl, user, password))
                .asPeer();
    }

    static RuntimeException unchecked(Exception e) {
        return e instanceof RuntimeException r ? r : new IllegalStateException(e.getMessage(), e);
    }
}
