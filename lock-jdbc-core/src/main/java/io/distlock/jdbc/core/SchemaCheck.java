package io.distlock.jdbc.core;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start-up check of the lock's tables. Creates them if asked to (a user without the
 * {@code CREATE} privilege is fine if an administrator created them), then reads each table once, so
 * that a missing table, a missing privilege and a refused login are a {@link
 * LockConfigurationException} naming what to fix, before the first lock.
 */
final class SchemaCheck {
    private static final Logger log = LoggerFactory.getLogger(SchemaCheck.class);

    private SchemaCheck() {}

    /**
     * @throws LockConfigurationException naming the missing table or privilege, or the refused login
     * @throws BackendUnavailableException if the server cannot be reached
     */
    static void run(LockConnections connections, SqlDialect dialect, boolean createSchema) {
        try (Connection c = connections.get()) {
            dialect.checkServer(c);
            SQLException createDenied = createSchema ? create(c, dialect) : null;
            for (String table : dialect.tables()) {
                try (Statement s = c.createStatement()) {
                    s.executeQuery(dialect.tableCheckSql(table)).close();
                } catch (SQLException e) {
                    LockConfigurationException error = unusable(dialect, table, e);
                    if (createDenied != null) {
                        error.addSuppressed(createDenied);
                    }
                    throw error;
                }
            }
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            LockConfigurationException misconfigured = dialect.misconfiguration(e);
            if (misconfigured != null) {
                throw misconfigured;
            }
            throw new BackendUnavailableException("cannot connect: " + e.getMessage(), null, dialect.backend(), e);
        }
    }

    /**
     * Runs the DDL (committed, for a database whose DDL is transactional); returns the refusal if the
     * user may not create tables (the check then decides).
     */
    private static SQLException create(Connection c, SqlDialect dialect) {
        for (int attempt = 1; ; attempt++) {
            try {
                return createOnce(c, dialect);
            } catch (ConcurrentCreation e) {
                // another provider created the tables at the same moment; IF NOT EXISTS sees them now
                if (attempt == 3) {
                    throw new LockConfigurationException(
                            "could not create tables " + dialect.tables() + ": "
                                    + e.getCause().getMessage(),
                            dialect.backend(),
                            e.getCause());
                }
            }
        }
    }

    /**
     * SQL states of a {@code CREATE … IF NOT EXISTS} that lost a race with the same statement of
     * another session (PostgreSQL checks for the table before it takes its catalog locks): unique
     * violation, duplicate table, duplicate object.
     */
    private static boolean isConcurrentCreation(SQLException e) {
        String state = e.getSQLState();
        return "23505".equals(state) || "42P07".equals(state) || "42710".equals(state);
    }

    private static final class ConcurrentCreation extends Exception {
        private static final long serialVersionUID = 1L;

        ConcurrentCreation(SQLException cause) {
            super(cause);
        }
    }

    private static SQLException createOnce(Connection c, SqlDialect dialect) throws ConcurrentCreation {
        try (Statement s = c.createStatement()) {
            for (String ddl : dialect.ddl()) {
                s.execute(ddl);
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return null;
        } catch (SQLException e) {
            try {
                if (!c.getAutoCommit()) {
                    // a failed statement may have ended the transaction for the checks that follow
                    c.rollback();
                }
            } catch (SQLException rollbackFailed) {
                e.addSuppressed(rollbackFailed);
            }
            if (isConcurrentCreation(e)) {
                throw new ConcurrentCreation(e);
            }
            LockConfigurationException misconfigured = dialect.misconfiguration(e);
            if (misconfigured != null) {
                throw misconfigured;
            }
            if (!dialect.isPrivilegeError(e)) {
                throw new LockConfigurationException(
                        "could not create tables " + dialect.tables() + ": " + e.getMessage(), dialect.backend(), e);
            }
            log.debug("distlock.jdbc.create_schema_denied backend={} tables={}", dialect.backend(), dialect.tables());
            return e;
        }
    }

    private static LockConfigurationException unusable(SqlDialect dialect, String table, SQLException e) {
        LockConfigurationException misconfigured = dialect.misconfiguration(e);
        if (misconfigured != null) {
            return misconfigured;
        }
        if (dialect.isNoSuchTable(e)) {
            return new LockConfigurationException(
                    "table " + table + " does not exist: create it with the DDL in " + dialect.schemaResource()
                            + " (see the README) as an administrator, or set createSchema(true) for a user with"
                            + " the CREATE privilege",
                    dialect.backend(),
                    e);
        }
        if (dialect.isPrivilegeError(e)) {
            // the server says "denied" also for a missing table when the user has no privilege on it
            return new LockConfigurationException(
                    "no privilege on table " + table + ", or it does not exist: an administrator creates it with "
                            + dialect.schemaResource() + " (see the README) and grants the lock user "
                            + dialect.requiredPrivileges() + " (" + e.getMessage() + ")",
                    dialect.backend(),
                    e);
        }
        return new LockConfigurationException(
                "cannot use table " + table + ": " + e.getMessage(), dialect.backend(), e);
    }
}
