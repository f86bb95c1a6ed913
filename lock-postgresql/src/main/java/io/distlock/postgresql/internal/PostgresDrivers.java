package io.distlock.postgresql.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.jdbc.core.LockConnections;
import io.distlock.jdbc.core.RowLockDriver;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.spi.UriParameters;
import javax.net.ssl.SSLContext;
import javax.sql.DataSource;

/**
 * Internal: assembles lock-jdbc-core's row-lock driver for PostgreSQL: the {@link PostgresDialect},
 * the provider's own pool with the {@link PgJdbcSettings} (or the caller's {@code DataSource}), and
 * the start-up checks (server version and encoding, the table and the sequence).
 */
public final class PostgresDrivers {
    private PostgresDrivers() {}

    /**
     * An opened driver and what must be undone when the provider closes (a registered TLS context).
     */
    public record Opened(RowLockDriver driver, Runnable onClose) {}

    /**
     * Opens the pool unless {@code dataSource} is given, then creates or checks the schema.
     *
     * @param jdbcUrl a {@code jdbc:postgresql:} URL, or null with {@code dataSource}
     * @param dataSource the caller's connections (not closed by the driver), or null
     * @throws io.distlock.LockConfigurationException naming a missing table, sequence or privilege,
     *     or a refused login
     * @throws BackendUnavailableException if the server cannot be reached
     * @throws IllegalArgumentException if {@code jdbcUrl} configures TLS while {@code options.tls()}
     *     is on, or the trust store cannot be read
     */
    public static Opened open(
            String jdbcUrl, DataSource dataSource, PostgresLockOptions options, LockOptions lockOptions) {
        PostgresDialect dialect = PostgresDialect.of(options);
        if (dataSource != null) {
            LockConnections connections = new LockConnections(dataSource, false, dialect, options.poolSize());
            RowLockDriver driver = RowLockDriver.open(
                    connections, dialect, lockOptions, options.timeouts().requestTimeout(), options.createSchema());
            return new Opened(driver, () -> {});
        }
        PgJdbcSettings.rejectTlsInUrl(jdbcUrl, options.tls());
        SSLContext context = PgJdbcSettings.tlsContext(options.tls());
        String contextId = context == null ? null : ContextSocketFactory.register(context);
        Runnable onClose = () -> {
            if (contextId != null) {
                ContextSocketFactory.unregister(contextId);
            }
        };
        try {
            DataSource pool;
            try {
                pool = LockConnections.openPool(
                        dialect.backend(),
                        jdbcUrl,
                        options.credentials().orElse(null),
                        options.poolSize(),
                        options.poolWaitTimeout(),
                        PgJdbcSettings.properties(options, contextId));
            } catch (RuntimeException e) {
                throw new BackendUnavailableException(
                        "cannot open connection pool to " + UriParameters.redact(jdbcUrl) + ": " + e.getMessage(),
                        null,
                        dialect.backend(),
                        e);
            }
            LockConnections connections = new LockConnections(pool, true, dialect, options.poolSize());
            RowLockDriver driver = RowLockDriver.open(
                    connections, dialect, lockOptions, options.timeouts().requestTimeout(), options.createSchema());
            return new Opened(driver, onClose);
        } catch (RuntimeException e) {
            onClose.run();
            throw e;
        }
    }
}
