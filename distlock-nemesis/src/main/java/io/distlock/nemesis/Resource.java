package io.distlock.nemesis;

import io.distlock.fencing.JdbcFencingGuard;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The guarded resource: bank accounts in MariaDB, each written only through {@link JdbcFencingGuard}
 * (token check, read balance, write balance + 1, append to the write log, one transaction). The
 * write log's auto-increment id is the commit order: every write holds the account's fence row
 * lock until it commits.
 */
final class Resource {
    static final String FENCE_TABLE = "nemesis_fence";
    static final String ACCOUNTS = "nemesis_accounts";
    static final String WRITES = "nemesis_writes";

    /** One accepted write, in commit order. */
    record Write(long id, long token, String client, long hold, long balanceBefore) {}

    private final String jdbcUrl;
    private final String user;
    private final String password;

    Resource(String jdbcUrl, String user, String password) throws SQLException {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            JdbcFencingGuard.create(FENCE_TABLE).createTableIfMissing(c);
            s.execute("CREATE TABLE IF NOT EXISTS " + ACCOUNTS
                    + " (id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,"
                    + " balance BIGINT NOT NULL) ENGINE=InnoDB");
            s.execute("CREATE TABLE IF NOT EXISTS " + WRITES
                    + " (id BIGINT AUTO_INCREMENT PRIMARY KEY, account VARCHAR(255) NOT NULL, token BIGINT NOT NULL,"
                    + " client VARCHAR(64) NOT NULL, hold BIGINT NOT NULL, balance_before BIGINT NOT NULL,"
                    + " KEY (account, id)) ENGINE=InnoDB");
        }
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /** Creates {@code account} with balance 0 (no fence row yet). */
    void openAccount(String account) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + ACCOUNTS + " (id, balance) VALUES (?, 0)")) {
            ps.setString(1, account);
            ps.executeUpdate();
        }
    }

    long balance(String account) throws SQLException {
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement("SELECT balance FROM " + ACCOUNTS + " WHERE id = ?")) {
            ps.setString(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no account " + account);
                }
                return rs.getLong(1);
            }
        }
    }

    List<Write> writes(String account) throws SQLException {
        List<Write> out = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement ps = c.prepareStatement("SELECT id, token, client, hold, balance_before FROM "
                        + WRITES + " WHERE account = ? ORDER BY id")) {
            ps.setString(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Write(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getLong(4), rs.getLong(5)));
                }
            }
        }
        return out;
    }
}
