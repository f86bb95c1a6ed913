package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.Scenario;
import io.distlock.compare.cli.peers.JdbcLockRegistryClient;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.internal.ConnectorJSettings;
import io.distlock.mysql.internal.MySqlDialect;
import io.distlock.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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

    /** Ours holds a connection per held lock: a pool this large lets the held-locks curve reach 100. */
    private static final int POOL_SIZE = 110;

    private MariaDbServer server;
    private Connection stats;
    private Connection ping;
    private Connection delayedPing;
    private Connection bareLock;
    private Connection bareToken;
    private PreparedStatement bareClaim;
    private PreparedStatement bareNextToken;
    private long maxConnections;
    private final SqlRunObjects objects = new SqlRunObjects();
    private String cleanedUp;

    @Override
    public String name() {
        return "mysql";
    }

    @Override
    public void start(ServerAddress theirs, RunPrefix runPrefix, boolean delayLine) throws SQLException {
        use(
                theirs,
                () -> {
                    server = MariaDbServer.start();
                    return new ServerAddress(
                            "mysql", List.of(server.address()), server.user(), server.password(), server.database());
                },
                runPrefix,
                delayLine);
        stats = connect(address, "");
        ping = connect(address, "");
        if (line != null) {
            delayedPing = connect(line.route(address), "");
        }
        try (Statement s = stats.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@max_connections")) {
            rs.next();
            maxConnections = rs.getLong(1);
            statusReads++;
        }
        bareToken = connect(address, "&" + ConnectorJSettings.speedUrlParameters());
        MySqlLockOptions bareTables =
                MySqlLockOptions.builder().table(prefix.sql() + "_bare").build();
        MySqlDialect statements = MySqlDialect.of(bareTables);
        objects.table(bareTables.table());
        objects.table(bareTables.tokenTable());
        try (Statement s = bareToken.createStatement()) {
            for (String ddl : statements.ddl()) {
                s.execute(ddl);
            }
            s.execute("INSERT IGNORE INTO " + bareTables.table() + " (name) VALUES ('l')");
        }
        bareNextToken = bareToken.prepareStatement(statements.tokenSql());
        bareLock = connect(address, "&" + ConnectorJSettings.speedUrlParameters());
        bareLock.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        bareLock.setAutoCommit(false);
        bareClaim = bareLock.prepareStatement(statements.claimSql());
        bareClaim.setString(1, "l");
    }

    /** {@code jdbc:mysql://host:port/database?sslMode=DISABLED&allowPublicKeyRetrieval=true}. */
    private static String jdbcUrl(ServerAddress a) {
        return "jdbc:mysql://" + a.nodes().get(0) + "/" + a.path() + "?sslMode=DISABLED&allowPublicKeyRetrieval=true";
    }

    /**
     * A connection to {@code a} with {@code parameters} (for example the driver settings
     * lock-mysql-skiplocked's pool uses: server-side prepared statements).
     */
    private static Connection connect(ServerAddress a, String parameters) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(a) + parameters, a.user(), a.password());
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
        selectOne(ping);
    }

    private synchronized void delayedSelectOne() {
        selectOne(delayedPing);
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
        if (peers) {
            try (Connection c = connect(address, "")) {
                objects.table(JdbcLockRegistryClient.createTable(c, registryPrefix(), "mysql"));
            } catch (SQLException e) {
                throw unchecked(e);
            }
        }
        objects.table(prefix.sql());
        objects.table(prefix.sql() + "_token");
        String v = version;
        List<ComparisonTarget> direct = at(address, this::selectOne, peers, v);
        long spare = maxConnections - 60; // the probes, the peers' pools, other clients of the server
        direct.set(
                0,
                direct.get(0)
                        .withExtraFloor("bare_requests_floor", this::bareRequests)
                        .withLimit(
                                Scenario.RENEWAL,
                                (int) Math.min(POOL_SIZE - 10, spare),
                                "one connection per held lock: a pool of " + POOL_SIZE + ", a server that allows "
                                        + maxConnections)
                        .withLimit(
                                Scenario.HANDOFF_MANY,
                                (int) spare,
                                "each waiter keeps a connection while it waits: the server allows " + maxConnections));
        return paired(direct, () -> at(line.route(address), this::delayedSelectOne, peers, v));
    }

    private List<ComparisonTarget> at(ServerAddress a, Runnable floor, boolean peers, String version) {
        String uri = "mysql://" + a.userInfo() + a.nodes().get(0) + "/" + a.path()
                // one connection per held lock; a 10 s lease as on every other side, so that the
                // renewal hold sees each lock's heartbeat (every 3.3 s)
                + "?createSchema=true&poolSize=" + POOL_SIZE + "&leaseTime=10s&table=" + prefix.sql();
        return oursAndJdbcPeer(uri, jdbcUrl(a), a, floor, FLOOR_STATEMENTS, this::questions, peers, version);
    }

    @Override
    public String serverDescription() {
        return where("MariaDB " + address.describe() + " (innodb_flush_log_at_trx_commit=2, skip-log-bin)");
    }

    /** Drops every table the run created (counting their rows first), then looks for any left. */
    @Override
    public synchronized String cleanUp() {
        if (cleanedUp == null && stats != null) {
            cleanedUp = objects.dropAll(
                    stats,
                    address.describe(),
                    "distlock's lock and token tables, the peer's " + registryPrefix() + "LOCK, the probes'",
                    "SHOW TABLES LIKE '" + SqlRunObjects.startingWith(prefix.sql()) + "'");
        }
        return cleanedUp == null ? "nothing created" : cleanedUp;
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
            if (delayedPing != null) {
                delayedPing.close();
            }
        } catch (SQLException ignored) {
            // closing anyway
        }
        closeLine();
        if (server != null) {
            server.close();
        }
    }
}
