package io.distlock.jdbc.core;

import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * What a database and its JDBC driver supply to the row-lock core ({@link RowLockDriver} and the
 * classes it wires): the statement texts, how their parameters are bound, the meaning of error
 * codes, and the few things only the vendor's driver can do. Everything else (pool handling,
 * waiting, heartbeat, release, tokens, schema checks) is the same for every database that locks
 * rows with {@code FOR UPDATE SKIP LOCKED}.
 *
 * <p>Lock names reach SQL only as bound parameters: every statement that names a lock binds the
 * lock's {@linkplain #key key}.
 */
public interface SqlDialect {

    /** The backend's name in messages and reports. */
    String backend();

    /** What locks held as row locks of this database guarantee. */
    Capabilities capabilities();

    /** The value stored in the lock table's name column for {@code lockName} (a valid lock name). */
    String key(String lockName);

    /**
     * Locks the lock's row if no other transaction holds it, without waiting; a row back means held
     * (its first column the token, if the dialect {@linkplain #drawsTokenInLockStatement() draws it
     * there}).
     */
    String claimSql();

    /**
     * Binds {@link #claimSql()}'s parameters. By default the key is the only one; a dialect that
     * {@linkplain #claimArmsExpiry() arms the expiry in the claim} also binds the lease.
     */
    default void bindClaim(PreparedStatement ps, String key, Duration leaseTime) throws SQLException {
        ps.setString(1, key);
    }

    /**
     * Locks the lock's row, waiting for the transaction that holds it (a row back, with the token as
     * for {@link #claimSql()}).
     */
    String waitSql();

    /**
     * Binds {@link #waitSql()}'s parameters; {@code maxWaitMillis} is how long the caller may still
     * wait (at least 1), for a dialect whose server bounds the wait itself ({@link
     * #waitsBoundedByServer()}).
     */
    default void bindWait(PreparedStatement ps, String key, Duration leaseTime, long maxWaitMillis)
            throws SQLException {
        ps.setString(1, key);
    }

    /**
     * Whether {@link #waitSql()} ends by itself when {@code maxWaitMillis} passes (a server-side lock
     * wait limit with millisecond precision): the core then cancels a wait only when its caller is
     * interrupted or the provider closes. Otherwise the core cancels it at the deadline.
     */
    default boolean waitsBoundedByServer() {
        return false;
    }

    /** A plain (non-locking) read of the lock's row, the key its one parameter: does it exist? */
    String existsSql();

    /** Creates the lock's row unless it exists, without failing if it does; the key its one parameter. */
    String insertSql();

    /** The cheapest statement that proves the connection and its open transaction are alive. */
    String heartbeatSql();

    /**
     * Whether the claim and wait statements themselves make the server end the session after about
     * one lease of silence, for their transaction only: then no separate statement arms the
     * expiry, and none restores it when the lock is released.
     */
    default boolean claimArmsExpiry() {
        return false;
    }

    /**
     * Makes the server end the session if the client stays silent for longer than {@code
     * leaseTime} while the lock's transaction is open, so that a paused holder's transaction (and its
     * row lock) ends about one lease after its last heartbeat. Also sent to extend a held lease.
     */
    String armExpirySql(Duration leaseTime);

    /**
     * Restores the server's default idle limit on a session that holds nothing, or {@code null} if
     * the expiry ends with the transaction ({@link #claimArmsExpiry()}).
     */
    String disarmExpirySql();

    /**
     * A statement that undoes what the wait statement set for its own transaction beyond the
     * expiry (a lock wait limit), run before the caller's own statements on a lock granted by a
     * wait; {@code null} if there is nothing to undo.
     */
    default String afterWaitSql() {
        return null;
    }

    /** The tables (and other objects) the lock uses, lock table first, for the start-up check. */
    List<String> tables();

    /** Creates the tables if missing, one statement per element. */
    List<String> ddl();

    /** The class-path resource with the schema an administrator runs, for messages. */
    String schemaResource();

    /** The privileges the lock user needs, for messages. */
    String requiredPrivileges();

    /** A statement that reads {@code table} without changing it: fails if it is missing or not readable. */
    String tableCheckSql(String table);

    /**
     * Checks, on a fresh connection at start-up, what the tables cannot tell (a database encoding,
     * a server version). Nothing by default.
     *
     * @throws LockConfigurationException naming what to change
     */
    default void checkServer(Connection c) throws SQLException {}

    /**
     * Whether the claim and wait statements draw the fencing token themselves, after their row lock
     * is granted, and return it as their first column. A grant then needs no request of its own for
     * the token; the token's counter update is written with the lock's transaction, so a server
     * crash before any later commit can set the counter back below it: such a dialect must floor its
     * tokens (at the server's clock) so that they keep increasing across a crash anyway. Otherwise
     * {@link #allocateToken} draws each token, committed, on the token connection.
     */
    default boolean drawsTokenInLockStatement() {
        return false;
    }

    /**
     * Allocates a fencing token for {@code key} on {@code c} (in autocommit mode, so the allocation
     * is committed before it is handed out). The core does not call it for a dialect that
     * {@linkplain #drawsTokenInLockStatement() draws its tokens in the lock statement}.
     */
    long allocateToken(Connection c, String key) throws SQLException;

    /**
     * Whether a failed row-lock wait only ended the statement (cancelled, or the server's own lock
     * wait limit passed): its transaction holds nothing and the connection is still usable after a
     * rollback.
     */
    boolean isWaitEnded(SQLException e);

    /** Whether the statement failed because the table does not exist. */
    boolean isNoSuchTable(SQLException e);

    /** Whether the statement failed because the user lacks a privilege on a table or database. */
    boolean isPrivilegeError(SQLException e);

    /**
     * A connection refusal that retrying cannot fix (wrong credentials, an account that may not
     * connect this way, a server certificate the client does not trust), found anywhere in the
     * cause chain of {@code e}; {@code null} if {@code e} is none.
     */
    LockConfigurationException refusal(SQLException e);

    /**
     * A statement failure that says what lies between the client and the server cannot carry the
     * lock protocol (a connection pooler that moves the session, or allows no transactions of
     * several statements), found anywhere in the cause chain of {@code e}: retrying cannot fix it.
     * {@code null} if {@code e} is none; by default always {@code null}.
     */
    default LockConfigurationException misconfiguration(SQLException e) {
        return null;
    }

    /** The JDBC driver's own connection under a pool's proxy, or {@code c} itself. */
    Connection physical(Connection c);

    /** Closes the socket of {@code c} without a protocol goodbye, as a killed process would. */
    void abort(Connection c);

    /** The server's id of {@code c}'s session, or -1 if unknown. */
    long connectionId(Connection c);

    /**
     * Whether {@code e} says the session is gone (the connection failed, or the server ended the
     * session): whatever it held was rolled back, and the connection is of no further use. By
     * default SQLState class 08.
     */
    default boolean isSessionEnded(SQLException e) {
        return isConnectionError(e);
    }

    /** Whether {@code e} says the connection itself failed (SQLState class 08). */
    static boolean isConnectionError(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("08");
    }
}
