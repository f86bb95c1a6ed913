package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.Scenario;
import io.distlock.compare.cli.peers.JdbcLockRegistryClient;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.internal.PostgresDialect;
import io.distlock.testing.servers.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.QueryExecutor;

/**
 * PostgreSQL: distlock's lock-postgresql on a PostgreSQL 15 ({@code fsync=off}, {@code
 * full_page_writes=off}), and as a peer Spring Integration's {@code JdbcLockRegistry} on the same
 * server (its {@code INT_LOCK} table under the run's prefix, created from the DDL it ships for
 * PostgreSQL). Both log in as the database's owner, or on existing servers as the user given. Every
 * table and sequence is named under the run's prefix and dropped at the end.
 *
 * <p>Requests are round trips, counted from the statements of that role in the server's {@code
 * pg_stat_statements} (on the local server a role of its own reads them, so the reads are not
 * counted; on existing servers the user's own reads are subtracted, and without a readable {@code
 * pg_stat_statements} requests are not counted): every statement but {@code BEGIN}, {@code COMMIT}
 * and {@code ROLLBACK}, plus one per {@code BEGIN} for the statement that ends its transaction. A
 * {@code BEGIN} is no round trip of its own: the PostgreSQL JDBC driver, which every target here
 * uses, sends it in the same write as the statement that opens the transaction and reads both answers
 * together. {@code pg_stat_statements} counts a {@code COMMIT} or {@code ROLLBACK} that the driver
 * re-executes on a connection only once, so those are counted by the transactions the {@code BEGIN}s
 * opened (every explicit transaction ends with one of them).
 *
 * <p>Floors: {@code SELECT 1} (two of them for one acquire+release, the protocol's minimum: the
 * claim, which draws the token once it holds the row, with the {@code BEGIN} that opens its
 * transaction in the same write, and the {@code COMMIT}); the bare requests ({@code
 * bare_requests_floor_p50_us}): those statements exactly as lock-postgresql sends them (from its
 * {@link PostgresDialect}), prepared once, on a plain connection (a table and a sequence of their
 * own); the hand-off floor: a {@code NOTIFY} committed on one connection until another connection that
 * listens has read it, plus one {@code SELECT 1} there.
 */
final class PostgresBackend extends ServerBackend {
    private static final int FLOOR_ROUND_TRIPS = 2;
    private static final String STATS_ROLE = "distlock_stats";
    private static final String STATS_PASSWORD = "distlock-stats-pw";

    /** Ours holds a connection per held lock: a pool this large lets the held-locks curve reach 100. */
    private static final int POOL_SIZE = 110;

    private PostgresServer server;
    private Connection stats;
    private Connection ping;
    private Connection delayedPing;
    private Connection bareLock;
    private PreparedStatement bareClaim;
    private Connection notifier;
    private Connection listener;
    private PreparedStatement notify;
    private PreparedStatement listenerPing;
    private QueryExecutor listenerExecutor;
    /** Reads of the statistics counted with the lock role's statements (existing servers: the same role). */
    private long selfReads;

    private boolean statsAsLockRole;
    private long maxConnections;
    private final SqlRunObjects objects = new SqlRunObjects();
    private String cleanedUp;

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public void start(ServerAddress theirs, RunPrefix runPrefix, boolean delayLine) throws SQLException {
        use(
                theirs,
                () -> {
                    server = PostgresServer.builder().statementStatistics(true).start();
                    server.executeAsSuperuser(
                            "CREATE ROLE " + STATS_ROLE + " LOGIN PASSWORD '" + STATS_PASSWORD + "'",
                            "GRANT pg_read_all_stats TO " + STATS_ROLE);
                    return new ServerAddress(
                            "postgresql",
                            List.of(server.address()),
                            server.user(),
                            server.password(),
                            server.database());
                },
                runPrefix,
                delayLine);
        statsAsLockRole = server == null;
        stats = statsAsLockRole
                ? connect(address)
                : DriverManager.getConnection(jdbcUrl(address), STATS_ROLE, STATS_PASSWORD);
        ping = connect(address);
        if (line != null) {
            delayedPing = connect(line.route(address));
        }
        try (Statement s = stats.createStatement();
                ResultSet rs = s.executeQuery("SHOW max_connections")) {
            rs.next();
            maxConnections = Long.parseLong(rs.getString(1));
        }
        PostgresLockOptions bareObjects =
                PostgresLockOptions.builder().table(prefix.sql() + "_bare").build();
        PostgresDialect statements = PostgresDialect.of(bareObjects);
        objects.table(bareObjects.table());
        objects.sequence(bareObjects.tokenSequence());
        bareLock = connect(address);
        try (Statement s = bareLock.createStatement()) {
            for (String ddl : statements.ddl()) {
                s.execute(ddl);
            }
            s.execute("INSERT INTO " + bareObjects.table() + " (name) VALUES ('l')");
        }
        bareLock.setAutoCommit(false);
        bareClaim = bareLock.prepareStatement(statements.claimSql());
        statements.bindClaim(bareClaim, "l", Duration.ofSeconds(10));
        notifier = connect(address);
        listener = connect(address);
        String channel = prefix.sql() + "_handoff";
        try (Statement s = listener.createStatement()) {
            s.execute("LISTEN " + channel);
        }
        notify = notifier.prepareStatement("NOTIFY " + channel);
        listenerPing = listener.prepareStatement("SELECT 1");
        listenerExecutor = listener.unwrap(BaseConnection.class).getQueryExecutor();
    }

    /** {@code jdbc:postgresql://host:port/database}. */
    private static String jdbcUrl(ServerAddress a) {
        return "jdbc:postgresql://" + a.nodes().get(0) + "/" + a.path();
    }

    private static Connection connect(ServerAddress a) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(a), a.user(), a.password());
    }

    /** The bare requests: the claim (which draws the token), COMMIT. */
    private synchronized void bareRequests() {
        try {
            try (ResultSet rs = bareClaim.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("bare claim: the row was locked");
                }
            }
            bareLock.commit();
        } catch (SQLException e) {
            throw unchecked(e);
        }
    }

    /**
     * One hand-off floor sample, in nanoseconds, after {@code idleNanos} idle before the {@code
     * NOTIFY}: from sending it on one connection until the listening connection has read the
     * notification, plus one {@code SELECT 1} there (repeated, and counted, until the notification
     * has arrived; the server sends it as soon as the listening session is idle). The notification is
     * taken from the driver's query executor, which only hands over what it read: the driver's {@code
     * getNotifications(timeout)} adds a 1 ms socket peek after each read.
     */
    private synchronized long handoffFloor(long idleNanos) {
        try {
            listenerExecutor.getNotifications(); // drop anything left over
            if (idleNanos > 0) {
                LockSupport.parkNanos(idleNanos); // as a holder holds
            }
            long t0 = System.nanoTime();
            notify.execute();
            for (int tries = 0; ; tries++) {
                try (ResultSet rs = listenerPing.executeQuery()) {
                    rs.next();
                }
                if (listenerExecutor.getNotifications().length > 0) {
                    return System.nanoTime() - t0;
                }
                if (tries > 1000) {
                    throw new IllegalStateException("hand-off floor: no notification");
                }
            }
        } catch (SQLException e) {
            throw unchecked(e);
        }
    }

    /** The round trips of the lock role, counted as the class description says. */
    private synchronized long roundTrips() {
        try (Statement s = stats.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(sum(s.calls) FILTER (WHERE s.query NOT IN ('BEGIN',"
                        + " 'COMMIT', 'ROLLBACK')), 0) + coalesce(sum(s.calls) FILTER (WHERE s.query = 'BEGIN'), 0) FROM"
                        + " pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = '"
                        + address.user().replace("'", "''") + "'")) {
            rs.next();
            long counted = rs.getLong(1) - (statsAsLockRole ? selfReads : 0);
            selfReads++; // pg_stat_statements counts a statement once it has finished
            return counted;
        } catch (SQLException e) {
            throw unchecked(e);
        }
    }

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
                ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            version = "PostgreSQL " + rs.getString(1);
        } catch (SQLException e) {
            version = "?";
        }
        if (peers) {
            try (Connection c = connect(address)) {
                objects.table(JdbcLockRegistryClient.createTable(c, registryPrefix(), "postgresql"));
            } catch (SQLException e) {
                throw unchecked(e);
            }
        }
        objects.table(prefix.sql());
        objects.sequence(prefix.sql() + "_token");
        String v = version;
        List<ComparisonTarget> direct = at(address, this::selectOne, peers, v);
        long spare = maxConnections - 60; // the probes, the peers' pools, other clients of the server
        direct.set(
                0,
                direct.get(0)
                        .withExtraFloor("bare_requests_floor", this::bareRequests)
                        .withHandoffFloor(this::handoffFloor)
                        .withLimit(
                                Scenario.RENEWAL,
                                (int) Math.min(POOL_SIZE - 10, spare),
                                "one connection per held lock: a pool of " + POOL_SIZE + ", a server that allows "
                                        + maxConnections)
                        .withLimit(
                                Scenario.HANDOFF_MANY,
                                (int) spare,
                                "each waiter keeps a connection while it waits: the server allows " + maxConnections));
        if (direct.size() > 1) {
            direct.set(1, direct.get(1).withHandoffFloor(this::handoffFloor));
        }
        return paired(direct, () -> at(line.route(address), this::delayedSelectOne, peers, v));
    }

    /** Our target and the peer, their clients connecting to {@code a}, with {@code floor} as the round trip. */
    private List<ComparisonTarget> at(ServerAddress a, Runnable floor, boolean peers, String version) {
        String uri = "postgresql://" + a.userInfo() + a.nodes().get(0) + "/" + a.path()
                // one connection per held lock and per waiter; a 10 s lease as for MySQL
                + "?createSchema=true&poolSize=" + POOL_SIZE + "&leaseTime=10s&table=" + prefix.sql();
        return oursAndJdbcPeer(uri, jdbcUrl(a), a, floor, FLOOR_ROUND_TRIPS, this::roundTrips, peers, version);
    }

    @Override
    public String serverDescription() {
        return where("PostgreSQL " + address.describe() + " (fsync=off, full_page_writes=off, pg_stat_statements)");
    }

    /** Drops every table and sequence the run created (counting the tables' rows first), then looks for any left. */
    @Override
    public synchronized String cleanUp() {
        if (cleanedUp == null && stats != null) {
            try (Connection c = connect(address)) {
                cleanedUp = objects.dropAll(
                        c,
                        address.describe(),
                        "distlock's lock table and token sequence, the peer's " + registryPrefix() + "LOCK, the"
                                + " probes'",
                        "SELECT relname FROM pg_class WHERE relname LIKE '" + SqlRunObjects.startingWith(prefix.sql())
                                + "'");
            } catch (SQLException e) {
                cleanedUp = address.describe() + ": dropping the run's objects failed: " + e;
            }
        }
        return cleanedUp == null ? "nothing created" : cleanedUp;
    }

    @Override
    public void close() {
        for (Connection c : new Connection[] {stats, ping, delayedPing, bareLock, notifier, listener}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
        closeLine();
        if (server != null) {
            server.close();
        }
    }
}
