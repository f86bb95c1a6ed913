package io.distlock.mysql.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.jdbc.core.LockConnections;
import io.distlock.jdbc.core.RowLockDriver;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.spi.UriParameters;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * Internal: assembles lock-jdbc-core's row-lock driver for MySQL / MariaDB: the {@link MySqlDialect}, the
 * provider's own pool with the {@link ConnectorJSettings} (or the caller's {@code DataSource}), and
 * the start-up schema check.
 */
public final class MySqlDrivers {
    private MySqlDrivers() {}

    /**
     * Opens the pool unless {@code dataSource} is given, then creates or checks the schema.
     *
     * @param jdbcUrl a Connector/J URL, or null with {@code dataSource}
     * @param dataSource the caller's connections (not closed by the driver), or null
     * @throws io.distlock.LockConfigurationException naming a missing table or privilege, or a
     *     refused login
     * @throws BackendUnavailableException if the server cannot be reached
     * @throws IllegalArgumentException if {@code jdbcUrl} configures TLS while {@code options.tls()} is on
     */
    public static RowLockDriver open(
            String jdbcUrl, DataSource dataSource, MySqlLockOptions options, LockOptions lockOptions) {
        MySqlDialect dialect = MySqlDialect.of(options);
        LockConnections connections = dataSource != null
                ? new LockConnections(dataSource, false, dialect, options.poolSize())
                : new LockConnections(openPool(jdbcUrl, options), true, dialect, options.poolSize());
        return RowLockDriver.open(
                connections, dialect, lockOptions, options.timeouts().requestTimeout(), options.createSchema());
    }

    private static DataSource openPool(String jdbcUrl, MySqlLockOptions options) {
        String url = ConnectorJSettings.jdbcUrl(jdbcUrl, options);
        Properties properties = ConnectorJSettings.properties(options);
        try {
            return LockConnections.openPool(
                    "mysql",
                    url,
                    options.credentials().orElse(null),
                    options.poolSize(),
                    options.poolWaitTimeout(),
                    properties);
        } catch (RuntimeException e) {
            throw new BackendUnavailableException(
                    "cannot open connection pool to " + UriParameters.redact(jdbcUrl) + ": " + e.getMessage(),
                    null,
                    "mysql",
                    e);
        }
    }
}
