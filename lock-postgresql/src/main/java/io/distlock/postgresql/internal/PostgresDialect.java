package io.distlock.postgresql.internal;

import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import io.distlock.jdbc.core.SqlDialect;
import io.distlock.postgresql.PostgresLockOptions;
import java.security.GeneralSecurityException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.postgresql.PGConnection;
import org.postgresql.core.BaseConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal: PostgreSQL 12+ through the PostgreSQL JDBC driver, the {@link SqlDialect} of the
 * row-lock core in lock-jdbc-core. The one place for the SQL the lock sends and the server's error
 * codes; {@code distlock-compare} reads the statements from here for its bare-statement floor.
 *
 * <ul>
 *   <li>The lock's row is claimed with {@code SELECT set_config('idle_in_transaction_session_timeout',
 *       lease, true) FROM <table> WHERE name = ? FOR UPDATE SKIP LOCKED}: the projection runs below
 *       the row lock, so the statement arms, for its own transaction only, the server-side end of a
 *       holder that falls silent (the server ends a session idle in a transaction for longer than
 *       that, rolling back and freeing the row). No separate statement arms it, and nothing resets
 *       it: it ends with the transaction.
 *   <li>A wait blocks on the row lock itself ({@code FOR UPDATE}), bounded by {@code lock_timeout}
 *       set the same way to the caller's remaining wait (millisecond precision).
 *   <li>Fencing tokens: {@code max(nextval(<table>_token), server clock in µs)}, drawn by the claim
 *       and the wait statements themselves once their row lock is granted (the locking query is a
 *       materialised CTE, the token is computed over its row); when the clock is ahead, {@code
 *       setval} moves the sequence to it, so the sequence keeps the highest token handed out. The
 *       sequence's update is written with the lock's transaction: a server crash before a later
 *       commit can set the sequence back, and the clock floor keeps the next tokens above the lost
 *       ones.
 *   <li>Names are stored as they are, in a {@code text COLLATE "C"} column: compared byte by byte,
 *       so names that differ in case, trailing spaces or Unicode normalisation are different locks.
 * </ul>
 */
public final class PostgresDialect implements SqlDialect {
    private static final Logger log = LoggerFactory.getLogger(PostgresDialect.class);

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

    /** The oldest server version the statements run on ({@code WITH … AS MATERIALIZED}). */
    static final int MIN_SERVER_VERSION_NUM = 120000;

    private static final String LOCK_NOT_AVAILABLE = "55P03";
    private static final String QUERY_CANCELED = "57014";
    private static final String UNDEFINED_TABLE = "42P01";
    private static final String INSUFFICIENT_PRIVILEGE = "42501";
    private static final String DUPLICATE_PREPARED_STATEMENT = "42P05";
    private static final String INVALID_STATEMENT_NAME = "26000";

    private static final Set<String> SESSION_ENDED = Set.of("57P01", "57P02", "57P03", "25P03");

    /** Answers to a login that another try with the same settings gets again. */
    private static final Set<String> LOGIN_REFUSED = Set.of(
            "28P01", // invalid_password
            "28000", // invalid_authorization_specification: no pg_hba.conf entry, role cannot log in
            "3D000", // invalid_catalog_name: the database does not exist
            "42501", // insufficient_privilege: no CONNECT on the database
            "08004"); // the driver's "connection rejected": no password given, no TLS on the server

    /** Words of the login refusals PgBouncer 1.18 sends with SQLState 08P01 (protocol_violation). */
    private static final List<String> PGBOUNCER_LOGIN_REFUSED =
            List.of("authentication failed", "no such user", "no such database");

    private final String table;
    private final String sequence;
    private final String claimSql;
    private final String waitSql;
    private final String existsSql;
    private final String insertSql;
    private final String tokenSql;

    private PostgresDialect(String table, String sequence) {
        this.table = table;
        this.sequence = sequence;
        this.claimSql = drawingToken("SELECT set_config('idle_in_transaction_session_timeout', ?, true) FROM " + table
                + " WHERE name = ? FOR UPDATE SKIP LOCKED");
        this.waitSql = drawingToken("SELECT set_config('lock_timeout', ?, true),"
                + " set_config('idle_in_transaction_session_timeout', ?, true) FROM " + table
                + " WHERE name = ? FOR UPDATE");
        this.existsSql = "SELECT 1 FROM " + table + " WHERE name = ?";
        this.insertSql = "INSERT INTO " + table + " (name) VALUES (?) ON CONFLICT (name) DO NOTHING";
        this.tokenSql = "WITH " + token("");
    }

    /**
     * {@code locking}, then the token for the row it locked: {@code locking} is a materialised CTE,
     * so the token's expressions run above its row lock, once the lock is granted, and not at all
     * when no row comes back.
     */
    private String drawingToken(String locking) {
        return "WITH l AS MATERIALIZED (" + locking + "), " + token(" FROM l");
    }

    /** {@code max(nextval, server µs)} (with {@code setval} when the clock is ahead), once per row of {@code from}. */
    private String token(String from) {
        return "v AS MATERIALIZED (SELECT nextval('" + sequence + "') AS n,"
                + " (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS c" + from + ")"
                + " SELECT CASE WHEN n >= c THEN n ELSE setval('" + sequence + "', c) END FROM v";
    }

    /** The dialect for {@code options}' table and sequence. */
    public static PostgresDialect of(PostgresLockOptions options) {
        return new PostgresDialect(options.table(), options.tokenSequence());
    }

    @Override
    public String backend() {
        return "postgresql";
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    /** The name itself: stored in a {@code COLLATE "C"} column and always bound as a parameter. */
    @Override
    public String key(String lockName) {
        return lockName;
    }

    /**
     * {@code SELECT set_config('idle_in_transaction_session_timeout', ?, true) FROM <table> WHERE
     * name = ? FOR UPDATE SKIP LOCKED}, then the token for the locked row: the first of the two
     * statements of an uncontended acquire + release (parameters: the lease in milliseconds, the
     * name).
     */
    @Override
    public String claimSql() {
        return claimSql;
    }

    @Override
    public void bindClaim(PreparedStatement ps, String key, Duration leaseTime) throws SQLException {
        ps.setString(1, millis(leaseTime));
        ps.setString(2, key);
    }

    @Override
    public String waitSql() {
        return waitSql;
    }

    /** {@code lock_timeout} is the remaining wait ({@code 0}, no limit, beyond what it can hold). */
    @Override
    public void bindWait(PreparedStatement ps, String key, Duration leaseTime, long maxWaitMillis) throws SQLException {
        ps.setString(1, maxWaitMillis > Integer.MAX_VALUE ? "0" : Long.toString(Math.max(1, maxWaitMillis)));
        ps.setString(2, millis(leaseTime));
        ps.setString(3, key);
    }

    @Override
    public boolean waitsBoundedByServer() {
        return true;
    }

    /** The lease as {@code idle_in_transaction_session_timeout} (milliseconds, at least 1). */
    static String millis(Duration leaseTime) {
        long ms = Math.max(1, leaseTime.toMillis());
        return Long.toString(Math.min(ms, Integer.MAX_VALUE));
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
     * The token as a statement of its own ({@code max(nextval, server µs)}, and {@code setval} to
     * the clock when the clock is ahead): what the claim and the wait draw after their row lock,
     * for benchmarks that compare drawing it apart, committed.
     */
    public String tokenSql() {
        return tokenSql;
    }

    @Override
    public String heartbeatSql() {
        return "SELECT 1";
    }

    @Override
    public boolean claimArmsExpiry() {
        return true;
    }

    /** An extension: the transaction's idle limit to {@code leaseTime} (milliseconds). */
    @Override
    public String armExpirySql(Duration leaseTime) {
        return "SELECT set_config('idle_in_transaction_session_timeout', '" + millis(leaseTime) + "', true)";
    }

    @Override
    public String disarmExpirySql() {
        return null;
    }

    /** The wait's {@code lock_timeout} must not bound the caller's own statements. */
    @Override
    public String afterWaitSql() {
        return "SET LOCAL lock_timeout TO DEFAULT";
    }

    @Override
    public List<String> tables() {
        return List.of(table, sequence);
    }

    /** The table and the sequence as {@code io/distlock/postgresql/schema.sql} creates them. */
    @Override
    public List<String> ddl() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + table + " (name text COLLATE \"C\" NOT NULL PRIMARY KEY)",
                "CREATE SEQUENCE IF NOT EXISTS " + sequence);
    }

    @Override
    public String schemaResource() {
        return "io/distlock/postgresql/schema.sql";
    }

    /** As documented in the README. */
    @Override
    public String requiredPrivileges() {
        return "SELECT, INSERT, UPDATE on the lock table and USAGE, UPDATE on the token sequence";
    }

    /**
     * Reads the table without rows; for the sequence, {@code pg_sequence_last_value}, which needs
     * {@code USAGE} (not {@code SELECT}).
     */
    @Override
    public String tableCheckSql(String name) {
        return name.equals(sequence)
                ? "SELECT pg_sequence_last_value('" + sequence + "')"
                : "SELECT name FROM " + name + " WHERE false";
    }

    /** UTF-8 (names are Unicode) and version 12 or newer, in one round trip. */
    @Override
    public void checkServer(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT current_setting('server_encoding'), current_setting('server_version_num')::int")) {
            rs.next();
            String encoding = rs.getString(1);
            int version = rs.getInt(2);
            if (version < MIN_SERVER_VERSION_NUM) {
                throw new LockConfigurationException(
                        "PostgreSQL 12 or newer is needed (server_version_num " + version + ")", backend());
            }
            if (!"UTF8".equalsIgnoreCase(encoding)) {
                throw new LockConfigurationException(
                        "the database's encoding must be UTF8 (lock names are Unicode); it is " + encoding, backend());
            }
        }
    }

    /** The claim and the wait return the token, drawn once their row lock is granted. */
    @Override
    public boolean drawsTokenInLockStatement() {
        return true;
    }

    /** A token drawn apart ({@link #tokenSql()}); the lock itself draws its tokens in its statements. */
    @Override
    public long allocateToken(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(tokenSql);
                ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("no fencing token returned by " + tokenSql);
            }
            return rs.getLong(1);
        }
    }

    @Override
    public boolean isWaitEnded(SQLException e) {
        return LOCK_NOT_AVAILABLE.equals(e.getSQLState()) || QUERY_CANCELED.equals(e.getSQLState());
    }

    /**
     * Class 08, or the server ended the session: an administrator ({@code pg_terminate_backend},
     * 57P01), a crash or shutdown (57P02, 57P03), or the idle limit of a transaction (25P03).
     */
    @Override
    public boolean isSessionEnded(SQLException e) {
        return SqlDialect.isConnectionError(e) || SESSION_ENDED.contains(String.valueOf(e.getSQLState()));
    }

    @Override
    public boolean isNoSuchTable(SQLException e) {
        return UNDEFINED_TABLE.equals(e.getSQLState());
    }

    @Override
    public boolean isPrivilegeError(SQLException e) {
        return INSUFFICIENT_PRIVILEGE.equals(e.getSQLState());
    }

    /**
     * The deepest refusal in the cause chain (the driver's own exception, not the pool's timeout
     * that carries its SQLState), named with its SQLState. Server and TLS messages never contain the
     * password.
     */
    @Override
    public LockConfigurationException refusal(SQLException e) {
        Throwable tls = null;
        SQLException login = null;
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (isTlsTrustFailure(c)) {
                tls = c;
            } else if (c instanceof SQLException sql
                    && sql.getSQLState() != null
                    && (LOGIN_REFUSED.contains(sql.getSQLState()) || refusedByPgBouncer(sql))) {
                login = sql;
            }
        }
        if (tls != null) {
            return new LockConfigurationException(
                    "cannot connect: TLS failed (check the trust: it must hold the CA that signed the server's"
                            + " certificate, whose name must match the host): " + tls.getMessage(),
                    backend(),
                    e);
        }
        if (login != null) {
            return new LockConfigurationException(
                    "cannot connect: the server refused the login (wrong role or password, a database the role may"
                            + " not connect to, a pg_hba.conf rule, or TLS the server does not offer; the password"
                            + " is not shown): " + login.getMessage() + " (SQLState " + login.getSQLState() + ")",
                    backend(),
                    e);
        }
        return null;
    }

    /**
     * A certificate the client does not trust, a host name the certificate does not name, or a
     * trust file the driver cannot read: a handshake that fails on a closed socket is an outage.
     */
    private static boolean isTlsTrustFailure(Throwable t) {
        if (t instanceof SSLPeerUnverifiedException || t instanceof GeneralSecurityException) {
            return true;
        }
        if (t instanceof SSLHandshakeException) {
            for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
                if (c instanceof GeneralSecurityException) {
                    return true;
                }
            }
            return t.getCause() == null;
        }
        String m = t.getMessage();
        // the driver's own host name check and its trust file errors carry no typed cause
        return t instanceof SQLException
                && m != null
                && (m.contains("could not be verified by hostnameverifier")
                        || m.contains("Could not open SSL root certificate file")
                        || m.contains("Could not read SSL root certificate file"));
    }

    @Override
    public Connection physical(Connection c) {
        try {
            return c.isWrapperFor(BaseConnection.class) ? c.unwrap(BaseConnection.class) : c;
        } catch (SQLException e) {
            return c;
        }
    }

    @Override
    public void abort(Connection c) {
        try {
            c.unwrap(BaseConnection.class).getQueryExecutor().abort();
        } catch (SQLException | RuntimeException e) {
            log.debug("distlock.postgresql.abort_failed", e);
        }
    }

    /**
     * PgBouncer in statement pool mode (it refuses every transaction of several statements), or a
     * pooler in transaction mode that does not carry the driver's named prepared statements from one
     * server connection to the next (PgBouncer before 1.21, or with {@code max_prepared_statements =
     * 0}): the statement names one server connection prepared are missing, or already taken, on the
     * next.
     */
    @Override
    public LockConfigurationException misconfiguration(SQLException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (!(c instanceof SQLException sql) || sql.getMessage() == null) {
                continue;
            }
            String m = sql.getMessage();
            if (m.contains("statement pooling mode")) {
                return new LockConfigurationException(
                        "cannot hold locks through a pooler in statement mode: a lock is a transaction of several"
                                + " statements; serve the lock database in transaction or session pool mode ("
                                + m + ")",
                        backend(),
                        e);
            }
            String state = sql.getSQLState();
            if ((DUPLICATE_PREPARED_STATEMENT.equals(state) || INVALID_STATEMENT_NAME.equals(state))
                    && m.contains("prepared statement \"S_")) {
                return new LockConfigurationException(
                        "a connection pooler in transaction mode moved the session to another server connection"
                                + " without the driver's prepared statements: set prepareThreshold=0 (URI parameter,"
                                + " PostgresLockOptions.prepareThreshold(0) or the JDBC URL), or give PgBouncer 1.21+"
                                + " max_prepared_statements (" + m + ", SQLState " + state + ")",
                        backend(),
                        e);
            }
        }
        return null;
    }

    /**
     * Whether {@code e} is PgBouncer refusing the login: PgBouncer 1.18 (Debian 12's) says "SASL
     * authentication failed" to a wrong password, "no such database" to a database it does not
     * serve, with SQLState 08P01 rather than PostgreSQL's 28P01 or 3D000.
     */
    private static boolean refusedByPgBouncer(SQLException e) {
        String m = e.getMessage();
        return "08P01".equals(e.getSQLState())
                && m != null
                && PGBOUNCER_LOGIN_REFUSED.stream().anyMatch(m::contains);
    }

    /**
     * The process id the server sent at login: the backend's ({@code pg_backend_pid()}) on a direct
     * connection, PgBouncer's own id of the client connection behind PgBouncer.
     */
    @Override
    public long connectionId(Connection c) {
        try {
            return c.unwrap(PGConnection.class).getBackendPID();
        } catch (SQLException | RuntimeException e) {
            return -1;
        }
    }
}
