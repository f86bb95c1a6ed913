package io.distlock.fencing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A fencing guard kept in a database table and checked <em>in the caller's transaction</em>, so
 * that the token check and the guarded write commit or roll back together. In the steady state the
 * check is one statement:
 *
 * <pre>{@code UPDATE distlock_fence SET token = ? WHERE resource = ? AND token <= ?}</pre>
 *
 * which also locks the row until the caller's transaction ends, so two writers cannot interleave.
 * The first write for a resource inserts its row.
 *
 * <p>The table it needs (MySQL 8 / MariaDB 10.11 syntax; portable to most databases):
 *
 * <pre>{@code
 * CREATE TABLE distlock_fence (
 *   resource VARCHAR(255) NOT NULL PRIMARY KEY,
 *   token    BIGINT       NOT NULL
 * )
 * }</pre>
 *
 * Use a binary or case-sensitive collation for {@code resource} if resource names differ only by
 * case ({@link #createTableIfMissing(Connection)} does).
 *
 * <pre>{@code
 * connection.setAutoCommit(false);
 * guard.check(connection, "account-7", lease.fencingToken().orElseThrow());
 * // ... the guarded UPDATE on the same connection ...
 * connection.commit();
 * }</pre>
 */
public final class JdbcFencingGuard {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

    private final String table;
    private final String update;
    private final String insert;
    private final String select;

    private JdbcFencingGuard(String table) {
        this.table = table;
        this.update = "UPDATE " + table + " SET token = ? WHERE resource = ? AND token <= ?";
        this.insert = "INSERT INTO " + table + " (resource, token) VALUES (?, ?)";
        this.select = "SELECT token FROM " + table + " WHERE resource = ?";
    }

    /** A guard on table {@code distlock_fence}. */
    public static JdbcFencingGuard create() {
        return create("distlock_fence");
    }

    /**
     * A guard on {@code table}.
     *
     * @throws IllegalArgumentException unless the name matches {@code [A-Za-z_][A-Za-z0-9_]{0,63}}
     */
    public static JdbcFencingGuard create(String table) {
        Objects.requireNonNull(table, "table must not be null");
        if (!IDENTIFIER.matcher(table).matches()) {
            throw new IllegalArgumentException("table must match [A-Za-z_][A-Za-z0-9_]{0,63} (was '" + table + "')");
        }
        return new JdbcFencingGuard(table);
    }

    /** The table name. */
    public String table() {
        return table;
    }

    /** Creates the table if it does not exist (MySQL/MariaDB syntax). */
    public void createTableIfMissing(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + table
                    + " (resource VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,"
                    + " token BIGINT NOT NULL) ENGINE=InnoDB");
        }
    }

    /**
     * Accepts {@code token} for {@code resource} within {@code connection}'s current transaction.
     * If this throws, the caller must roll back its transaction and drop the write.
     *
     * @throws StaleTokenException if a larger token was accepted before
     * @throws SQLException if the database fails
     */
    public void check(Connection connection, String resource, long token) throws SQLException {
        Objects.requireNonNull(connection, "connection must not be null");
        if (resource == null || resource.isEmpty()) {
            throw new IllegalArgumentException("resource must not be null or empty");
        }
        if (tryUpdate(connection, resource, token)) {
            return;
        }
        // No row, or a newer token. Insert the first row under a savepoint: a concurrent first
        // insert makes ours fail with a duplicate key, after which the UPDATE decides.
        boolean autoCommit = connection.getAutoCommit();
        Savepoint sp = autoCommit ? null : connection.setSavepoint();
        try (PreparedStatement ps = connection.prepareStatement(insert)) {
            ps.setString(1, resource);
            ps.setLong(2, token);
            ps.executeUpdate();
            if (sp != null) {
                connection.releaseSavepoint(sp);
            }
            return;
        } catch (SQLException e) {
            if (!isDuplicateKey(e)) {
                throw e;
            }
            if (sp != null) {
                connection.rollback(sp);
            }
        }
        if (tryUpdate(connection, resource, token)) {
            return;
        }
        long last = Long.MIN_VALUE;
        try (PreparedStatement ps = connection.prepareStatement(select)) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    last = rs.getLong(1);
                }
            }
        }
        throw new StaleTokenException(resource, token, last);
    }

    private boolean tryUpdate(Connection connection, String resource, long token) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(update)) {
            ps.setLong(1, token);
            ps.setString(2, resource);
            ps.setLong(3, token);
            // MySQL reports "rows matched" only with useAffectedRows=false (Connector/J default);
            // an equal token matches and counts as accepted.
            return ps.executeUpdate() > 0;
        }
    }

    /** MySQL/MariaDB: error 1062 (SQLState 23000); standard SQL (PostgreSQL, H2): SQLState 23505. */
    private static boolean isDuplicateKey(SQLException e) {
        return e.getErrorCode() == 1062 || "23505".equals(e.getSQLState());
    }
}
