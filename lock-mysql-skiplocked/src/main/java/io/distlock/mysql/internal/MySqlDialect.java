package io.distlock.mysql.internal;

import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import io.distlock.LockNames;
import io.distlock.jdbc.core.SqlDialect;
import io.distlock.mysql.MySqlLockOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal: MySQL 8.0+ / MariaDB 10.6+ through MySQL Connector/J, the {@link SqlDialect} of the
 * row-lock core in lock-jdbc-core. The one place for the SQL the lock
 * sends and the server's error codes; {@code distlock-compare} reads the statements from here for
 * its bare-statement floor, so that it times exactly what the lock sends.
 *
 * <p>A paused holder is ended by the session's {@code wait_timeout}, which is set to the lease
 * rounded up to whole seconds while a connection holds a lock. Fencing tokens come from the one
 * counter row of the token table, {@code max(counter + 1, server clock in µs)} in one statement
 * ({@link #tokenSql()}), so that they keep increasing after the server lost the table's data.
 */
public final class MySqlDialect implements SqlDialect {
    private static final Logger log = LoggerFactory.getLogger(MySqlDialect.class);

    private static final Capabilities CAPABILITIES = Capabilities.builder()
            .fencing(Capabilities.Fencing.GLOBALLY_MONOTONIC)
            .fencingSurvivesServerRestart(true)
            .automaticRenewal(true)
            .wakeUp(Capabilities.WakeUp.NOTIFICATION)
            .fifo(false)
            .reentrant(false)
            .failover(Capabilities.Failover.MAY_GRANT_TWICE)
            .leaseTiming(Capabilities.LeaseTiming.CLIENT)
            .build();

    private static final int ER_DBACCESS_DENIED = 1044;
    private static final int ER_ACCESS_DENIED = 1045;
    private static final int ER_HOST_NOT_PRIVILEGED = 1130;
    private static final int ER_TABLEACCESS_DENIED = 1142;
    private static final int ER_COLUMNACCESS_DENIED = 1143;
    private static final int ER_NO_SUCH_TABLE = 1146;
    private static final int ER_LOCK_WAIT_TIMEOUT = 1205;
    private static final int ER_SPECIFIC_ACCESS_DENIED = 1227;
    private static final int ER_NOT_SUPPORTED_AUTH_MODE = 1251;
    private static final int ER_QUERY_INTERRUPTED = 1317;
    private static final int ER_ACCESS_DENIED_NO_PASSWORD = 1698;
    private static final int ER_MUST_CHANGE_PASSWORD = 1820;
    private static final int ER_MUST_CHANGE_PASSWORD_LOGIN = 1862;
    private static final int ER_ACCOUNT_LOCKED_MYSQL = 3118;
    private static final int ER_SECURE_TRANSPORT_REQUIRED = 3159;
    private static final int ER_ACCOUNT_LOCKED_MARIADB = 4151;

    /** Answers to a login that another try with the same settings gets again. */
    private static final Set<Integer> LOGIN_REFUSED = Set.of(
            ER_DBACCESS_DENIED,
            ER_ACCESS_DENIED,
            ER_HOST_NOT_PRIVILEGED,
            ER_NOT_SUPPORTED_AUTH_MODE,
            ER_ACCESS_DENIED_NO_PASSWORD,
            ER_MUST_CHANGE_PASSWORD,
            ER_MUST_CHANGE_PASSWORD_LOGIN,
            ER_ACCOUNT_LOCKED_MYSQL,
            ER_SECURE_TRANSPORT_REQUIRED,
            ER_ACCOUNT_LOCKED_MARIADB);

    private static final Set<Integer> PRIVILEGE_MISSING =
            Set.of(ER_DBACCESS_DENIED, ER_TABLEACCESS_DENIED, ER_COLUMNACCESS_DENIED, ER_SPECIFIC_ACCESS_DENIED);

    /** The server's clock in µs since 1970 (the statement's start time). */
    private static final String SERVER_MICROS = "CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)";

    private final String table;
    private final String tokenTable;
    private final String claimSql;
    private final String waitSql;
    private final String existsSql;
    private final String insertSql;
    private final String tokenSql;

    private MySqlDialect(String table, String tokenTable) {
        this.table = table;
        this.tokenTable = tokenTable;
        this.claimSql = "SELECT name FROM " + table + " WHERE name = ? FOR UPDATE SKIP LOCKED";
        this.waitSql = "SELECT name FROM " + table + " WHERE name = ? FOR UPDATE";
        this.existsSql = "SELECT 1 FROM " + table + " WHERE name = ?";
        this.insertSql = "INSERT IGNORE INTO " + table + " (name) VALUES (?)";
        this.tokenSql = "INSERT INTO " + tokenTable + " (id, token) VALUES (1, LAST_INSERT_ID(" + SERVER_MICROS
                + ")) ON DUPLICATE KEY UPDATE token = LAST_INSERT_ID(GREATEST(token + 1, " + SERVER_MICROS + "))";
    }

    /** The dialect for {@code options}' lock and token tables. */
    public static MySqlDialect of(MySqlLockOptions options) {
        return new MySqlDialect(options.table(), options.tokenTable());
    }

    @Override
    public String backend() {
        return "mysql";
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    /** {@link LockNames#encode(String)}: ASCII, injective, at most 768 characters (the column's width). */
    @Override
    public String key(String lockName) {
        return LockNames.encode(lockName);
    }

    /**
     * {@code SELECT name FROM <table> WHERE name = ? FOR UPDATE SKIP LOCKED}: the first of the three
     * statements of an uncontended acquire + release.
     */
    @Override
    public String claimSql() {
        return claimSql;
    }

    @Override
    public String waitSql() {
        return waitSql;
    }

    @Override
    public String existsSql() {
        return existsSql;
    }

    @Override
    public String insertSql() {
        return insertSql;
    }

    /**
     * {@code INSERT INTO <table>_token (id, token) VALUES (1, LAST_INSERT_ID(µs)) ON DUPLICATE KEY
     * UPDATE token = LAST_INSERT_ID(GREATEST(token + 1, µs))} with µs the server's clock: the second
     * statement of an acquire, run in autocommit apart from the lock's transaction; the token comes
     * back in the OK packet ({@code LAST_INSERT_ID}). One counter row for every lock of the table, so
     * tokens strictly increase across locks; the row lock serialises allocations.
     */
    public String tokenSql() {
        return tokenSql;
    }

    @Override
    public String heartbeatSql() {
        return "DO 1";
    }

    /** {@code SET SESSION wait_timeout} to the lease rounded up to whole seconds, at least 1. */
    @Override
    public String armExpirySql(Duration leaseTime) {
        return "SET SESSION wait_timeout = " + waitTimeoutSeconds(leaseTime);
    }

    /** The session {@code wait_timeout} for {@code leaseTime}: rounded up to whole seconds, at least 1. */
    static long waitTimeoutSeconds(Duration leaseTime) {
        long millis = leaseTime.toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }

    @Override
    public String disarmExpirySql() {
        return "SET SESSION wait_timeout = DEFAULT";
    }

    @Override
    public List<String> tables() {
        return List.of(table, tokenTable);
    }

    /** The tables as {@code io/distlock/mysql/schema.sql} creates them, for {@code options}' names. */
    @Override
    public List<String> ddl() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + table
                        + " (name VARCHAR(768) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY)"
                        + " ENGINE=InnoDB",
                "CREATE TABLE IF NOT EXISTS " + tokenTable
                        + " (id TINYINT NOT NULL PRIMARY KEY, token BIGINT NOT NULL) ENGINE=InnoDB");
    }

    @Override
    public String schemaResource() {
        return "io/distlock/mysql/schema.sql";
    }

    /** As documented in the README. */
    @Override
    public String requiredPrivileges() {
        return "SELECT, INSERT, UPDATE on the lock table and on the token table";
    }

    /** Reads the columns the statements use, so that a table of another shape is named at start-up. */
    @Override
    public String tableCheckSql(String name) {
        return name.equals(tokenTable)
                ? "SELECT id, token FROM " + name + " WHERE 1 = 0"
                : "SELECT name FROM " + name + " WHERE 1 = 0";
    }

    /** The token statement names no lock: one counter serves every lock of the table. */
    @Override
    public long allocateToken(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(tokenSql, Statement.RETURN_GENERATED_KEYS)) {
            ps.executeUpdate();
            return generatedToken(ps);
        }
    }

    /**
     * The {@code LAST_INSERT_ID} the statement set, from the server's OK packet. Connector/J keeps it
     * on the statement; reading it there skips building the generated-keys result set (a calendar, a
     * time zone lookup, property reads: client CPU on every acquisition). Another driver: the
     * standard generated keys.
     */
    private long generatedToken(PreparedStatement ps) throws SQLException {
        if (ps.isWrapperFor(com.mysql.cj.jdbc.StatementImpl.class)) {
            long token = ps.unwrap(com.mysql.cj.jdbc.StatementImpl.class).getLastInsertID();
            if (token <= 0) {
                throw new SQLException("no fencing token generated by " + tokenSql);
            }
            return token;
        }
        try (ResultSet rs = ps.getGeneratedKeys()) {
            if (!rs.next()) {
                throw new SQLException("no fencing token generated by " + tokenSql);
            }
            return rs.getLong(1);
        }
    }

    @Override
    public boolean isWaitEnded(SQLException e) {
        return e.getErrorCode() == ER_QUERY_INTERRUPTED || e.getErrorCode() == ER_LOCK_WAIT_TIMEOUT;
    }

    @Override
    public boolean isNoSuchTable(SQLException e) {
        return e.getErrorCode() == ER_NO_SUCH_TABLE;
    }

    @Override
    public boolean isPrivilegeError(SQLException e) {
        return PRIVILEGE_MISSING.contains(e.getErrorCode());
    }

    /** Server and TLS messages never contain the password. */
    @Override
    public LockConfigurationException refusal(SQLException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLException || c instanceof com.mysql.cj.exceptions.SSLParamsException) {
                return new LockConfigurationException(
                        "cannot connect: TLS failed (check the trust store: it must hold the CA that signed the"
                                + " server's certificate, whose name must match the host): " + c.getMessage(),
                        backend(),
                        e);
            }
            if (c instanceof SQLException && LOGIN_REFUSED.contains(((SQLException) c).getErrorCode())) {
                return new LockConfigurationException(
                        "cannot connect: the server refused the credentials or the connection (wrong user or"
                                + " password, a user that must use TLS, or a host not allowed; the password is not"
                                + " shown): " + c.getMessage(),
                        backend(),
                        e);
            }
        }
        return null;
    }

    @Override
    public Connection physical(Connection c) {
        try {
            return c.isWrapperFor(com.mysql.cj.jdbc.JdbcConnection.class)
                    ? c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class)
                    : c;
        } catch (SQLException e) {
            return c;
        }
    }

    @Override
    public void abort(Connection c) {
        try {
            c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).abortInternal();
        } catch (SQLException | RuntimeException e) {
            log.debug("distlock.mysql.abort_failed", e);
        }
    }

    @Override
    public long connectionId(Connection c) {
        try {
            return c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).getId();
        } catch (SQLException | RuntimeException e) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
                return rs.next() ? rs.getLong(1) : -1;
            } catch (SQLException e2) {
                return -1;
            }
        }
    }
}
