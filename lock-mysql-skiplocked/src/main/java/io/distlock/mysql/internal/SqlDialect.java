package io.distlock.mysql.internal;

import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * Internal: what a database and its JDBC driver supply to the row-lock core ({@link RowLockDriver}
 * and the classes it wires): the statement texts, the meaning of error codes, and the few things
 * only the vendor's driver can do. Everything else (pool handling, waiting, heartbeat, release,
 * tokens, schema checks) is the same for every database that locks rows with {@code FOR UPDATE
 * SKIP LOCKED}.
 *
 * <p>Every statement that names a lock binds its encoded name as the one parameter.
 */
public interface SqlDialect {

    /** The backend's name in messages and reports. */
    String backend();

    /** What locks held as row locks of this database guarantee. */
    Capabilities capabilities();

    /** Locks the lock's row if no other transaction holds it, without waiting; a row back means held. */
    String claimSql();

    /** Locks the lock's row, waiting for the transaction that holds it. */
    String waitSql();

    /** A plain (non-locking) read of the lock's row: does it exist? */
    String existsSql();

    /** Creates the lock's row unless it exists, without failing if it does. */
    String insertSql();

    /** The cheapest statement that proves the connection and its open transaction are alive. */
    String heartbeatSql();

    /**
     * Makes the server end the session if the client stays silent for longer than {@code
     * leaseTime}, so that a paused holder's transaction (and its row lock) ends about one lease
     * after its last heartbeat.
     */
    String armExpirySql(Duration leaseTime);

    /** Restores the server's default idle limit on a session that holds nothing. */
    String disarmExpirySql();

    /** The tables the lock uses, lock table first. */
    List<String> tables();

    /** Creates the tables if missing, one statement per element. */
    List<String> ddl();

    /** The class-path resource with the schema an administrator runs, for messages. */
    String schemaResource();

    /** The privileges the lock user needs, for messages. */
    String requiredPrivileges();

    /** A statement that reads {@code table} without returning rows: fails if it is missing or not readable. */
    String tableCheckSql(String table);

    /**
     * Allocates a fencing token for {@code key} on {@code c} (in autocommit mode, so the allocation
     * is committed before it is handed out).
     */
    long allocateToken(Connection c, String key) throws SQLException;

    /**
     * Whether a failed row-lock wait only ended the statement (cancelled, or the server's own lock
     * wait limit passed): its transaction holds nothing and the connection is still usable.
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

    /** The JDBC driver's own connection under a pool's proxy, or {@code c} itself. */
    Connection physical(Connection c);

    /** Closes the socket of {@code c} without a protocol goodbye, as a killed process would. */
    void abort(Connection c);

    /** The server's id of {@code c}'s session, or -1 if unknown. */
    long connectionId(Connection c);

    /** Whether {@code e} says the connection itself failed (SQLState class 08). */
    static boolean isConnectionError(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("08");
    }
}
