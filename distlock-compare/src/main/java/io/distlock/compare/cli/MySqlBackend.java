package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.internal.ConnectorJSettings;
import io.distlock.mysql.internal.MySqlDialect;
import io.distlock.testing.servers.MariaDbServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * MySQL family: distlock's lock-mysql-skiplocked on MariaDB 10.11 ({@code
 * --innodb-flush-log-at-trx-commit=2 --skip-log-bin}), and as a peer Spring Integration's {@code
 * JdbcLockRegistry} on the same server (its {@code INT_LOCK} table, created from the DDL it ships).
 * Requests are counted from the server's {@code Questions} status (minus the status queries
 * themselves).
 *
 * <p>The bare requests ({@code bare_requests_floor_p50_us}, interleaved like the floor): the three
 * statements of an uncontended acquire+release exactly as lock-mysql-skiplocked sends them (from its
 * {@link MySqlDialect}), prepared once, on two connections of their own with the pool's Connector/J
 * settings (tables of their own, from the same DDL): {@code SELECT … FOR UPDATE SKIP LOCKED} of the
 * lock's row in a READ COMMITTED transaction, the token statement in autocommit on the
 * second connection, {@code COMMIT}.
 */
final class MySqlBackend extends ServerBackend {
    /**
     * The statements a fenced SKIP LOCKED lock needs per acquire+release, each one {@code SELECT 1}
     * round trip of the floor: the claim, the token committed apart from the lock's transaction (so
     * that a crash cannot hand it out again), and the COMMIT. DESIGN.md's floor table counts two
     * (claim and COMMIT), without the token.
     */
    private static final int FLOOR_STATEMENTS = 3;

    private MariaDbServer server;
    private Connection stats;
    private Connection ping;
    private Connection bareLock;
    private Connection bareToken;
    private PreparedStatement bareClaim;
    private PreparedStatement bareNextToken;

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public void start() throws SQLException {
        server = MariaDbServer.start();
        stats = server.connect();
        ping = server.connect();
        bareToken = connectAsOurs();
        MySqlLockOptions bareTables =
                MySqlLockOptions.builder().table("distlock_compare_bare").build();
        MySqlDialect statements = MySqlDialect.of(bareTables);
        try (Statement s = bareToken.createStatement()) {
            for (String ddl : statements.ddl()) {
                s.execute(ddl);
            }
            s.execute("INSERT IGNORE INTO " + bareTables.table() + " (name) VALUES ('l')");
        }
        bareNextToken = bareToken.prepareStatement(statements.tokenSql());
        bareLock = connectAsOurs();
        bareLock.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        bareLock.setAutoCommit(false);
        bareClaim = bareLock.prepareStatement(statements.claimSql());
        bareClaim.setString(1, "l");
    }

    /** A connection with the driver settings lock-mysql-skiplocked's pool uses (server-side prepared statements). */
    private Connection connectAsOurs() throws SQLException {
        return DriverManager.getConnection(
                server.jdbcUrl() + "&" + ConnectorJSettings.speedUrlParameters(), server.user(), server.password());
    }

    /** The bare requests: claim, token, COMMIT. */
    private synchronized void bareRequests() {
        try {
            try (ResultSet rs = bareClaim.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("bare claim: the row was locked");
                }
            }
            bareNextToken.executeUpdate();
            bareLock.commit();
        } catch (SQLException e) {
            throw unchecked(e);
        }
    }

    private synchronized long questions() {
        try (Statement s = stats.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Questions'")) {
            rs.next();
            return rs.getLong(2) - (++statusReads);
        } catch (SQLException e) {
            throw unchecked(e);
        }
    }

    private long statusReads;

    private synchronized void selectOne() {
        try (Statement s = ping.createStatement();
                ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
        } catch (SQLException e) {
            throw unchecked(e);
        }
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version;
        try (Statement s = stats.createStatement();
                ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            version = rs.getString(1);
            statusReads++;
        } catch (SQLException e) {
            version = "?";
        }
        String uri = "mysql://" + server.user() + ":" + URLEncoder.encode(server.password(), StandardCharsets.UTF_8)
                + "@" + server.host() + ":" + server.port() + "/" + server.database()
                // one connection per held lock; a 10 s lease as for Redis and Redlock, so that the
                // renewal hold (5 s) sees each lock's heartbeat (every 3.3 s; at the default 30 s
                // lease it comes every 10 s and the hold saw none)
                + "?createSchema=true&poolSize=24&leaseTime=10s";
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("mysql", uri)
                .withFloor(this::selectOne, FLOOR_STATEMENTS)
                .withExtraFloor("bare_requests_floor", this::bareRequests)
                .withServerRequests(counter(this::questions))
                .withServerVersion(version));
        if (peers) {
            out.add(jdbcLockRegistryPeer("mysql", "mysql", server.jdbcUrl(), server.user(), server.password())
                    .withFloor(this::selectOne, FLOOR_STATEMENTS)
                    .withServerRequests(counter(this::questions))
                    .withServerVersion(version));
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return "MariaDB " + server.address() + " (innodb_flush_log_at_trx_commit=2, skip-log-bin)";
    }

    @Override
    public void close() {
        try {
            if (stats != null) {
                stats.close();
            }
            if (ping != null) {
                ping.close();
            }
            if (bareLock != null) {
                bareLock.close();
            }
            if (bareToken != null) {
                bareToken.close();
            }
        } catch (SQLException ignored) {
            // closing anyway
        }
        if (server != null) {
            server.close();
        }
    }
}
