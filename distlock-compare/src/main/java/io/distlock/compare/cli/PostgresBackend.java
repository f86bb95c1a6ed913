package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.internal.PostgresDialect;
import io.distlock.testing.servers.PostgresServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.QueryExecutor;

/**
 * PostgreSQL: distlock's lock-postgresql on a PostgreSQL 15 ({@code fsync=off}, {@code
 * full_page_writes=off}), and as a peer Spring Integration's {@code JdbcLockRegistry} on the same
 * server (its {@code INT_LOCK} table, created from the DDL it ships for PostgreSQL). Both log in as the
 * database's owner.
 *
 * <p>Requests are statements counted by the server's {@code pg_stat_statements} for that role (a role
 * of its own reads them, so the reads are not counted): every statement but {@code COMMIT} and {@code
 * ROLLBACK}, plus one per {@code BEGIN} for the statement that ends its transaction. {@code
 * pg_stat_statements} counts a {@code COMMIT} or {@code ROLLBACK} that the driver re-executes on a
 * connection only once, so those are counted by the transactions the {@code BEGIN}s opened (every
 * explicit transaction ends with one of them).
 *
 * <p>Floors: {@code SELECT 1} (three of them for one acquire+release: the claim, the token committed
 * apart from the lock's transaction, the {@code COMMIT}); the bare requests ({@code
 * bare_requests_floor_p50_us}): the three statements exactly as lock-postgresql sends them (from its
 * {@link PostgresDialect}), prepared once, on two plain connections (a table and a sequence of their
 * own); the hand-off floor: a {@code NOTIFY} committed on one connection until another connection that
 * listens has read it, plus one {@code SELECT 1} there.
 */
final class PostgresBackend extends ServerBackend {
    private static final int FLOOR_STATEMENTS = 3;
    private static final String STATS_ROLE = "distlock_stats";
    private static final String STATS_PASSWORD = "distlock-stats-pw";

    private PostgresServer server;
    private Connection stats;
    private Connection ping;
    private Connection bareLock;
    private Connection bareToken;
    private PreparedStatement bareClaim;
    private PreparedStatement bareNextToken;
    private Connection notifier;
    private Connection listener;
    private PreparedStatement notify;
    private PreparedStatement listenerPing;
    private QueryExecutor listenerExecutor;

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public void start() throws SQLException {
        server = PostgresServer.builder().statementStatistics(true).start();
        server.executeAsSuperuser(
                "CREATE ROLE " + STATS_ROLE + " LOGIN PASSWORD '" + STATS_PASSWORD + "'",
                "GRANT pg_read_all_stats TO " + STATS_ROLE);
        stats = DriverManager.getConnection(server.jdbcUrl(), STATS_ROLE, STATS_PASSWORD);
        ping = server.connect();
        PostgresLockOptions bareObjects =
                PostgresLockOptions.builder().table("distlock_compare_bare").build();
        PostgresDialect statements = PostgresDialect.of(bareObjects);
        bareToken = server.connect();
        try (Statement s = bareToken.createStatement()) {
            for (String ddl : statements.ddl()) {
                s.execute(ddl);
            }
            s.execute("INSERT INTO " + bareObjects.table() + " (name) VALUES ('l')");
        }
        bareNextToken = bareToken.prepareStatement(statements.tokenSql());
        bareLock = server.connect();
        bareLock.setAutoCommit(false);
        bareClaim = bareLock.prepareStatement(statements.claimSql());
        statements.bindClaim(bareClaim, "l", Duration.ofSeconds(10));
        notifier = server.connect();
        listener = server.connect();
        try (Statement s = listener.createStatement()) {
            s.execute("LISTEN distlock_compare_handoff");
        }
        notify = notifier.prepareStatement("NOTIFY distlock_compare_handoff");
        listenerPing = listener.prepareStatement("SELECT 1");
        listenerExecutor = listener.unwrap(BaseConnection.class).getQueryExecutor();
    }

    /** The bare requests: claim, token, COMMIT. */
    private synchronized void bareRequests() {
        try {
            try (ResultSet rs = bareClaim.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("bare claim: the row was locked");
                }
            }
            try (ResultSet rs = bareNextToken.executeQuery()) {
                rs.next();
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

    /** The statements of the lock role, counted as the class description says. */
    private synchronized long statements() {
        try (Statement s = stats.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(sum(s.calls) FILTER (WHERE s.query NOT IN ('COMMIT',"
                        + " 'ROLLBACK')), 0) + coalesce(sum(s.calls) FILTER (WHERE s.query = 'BEGIN'), 0) FROM"
                        + " pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = '"
                        + server.user() + "'")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw unchecked(e);
        }
    }

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
                ResultSet rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            version = "PostgreSQL " + rs.getString(1);
        } catch (SQLException e) {
            version = "?";
        }
        String uri =
                "postgresql://" + server.user() + ":" + URLEncoder.encode(server.password(), StandardCharsets.UTF_8)
                        + "@" + server.address() + "/" + server.database()
                        // one connection per held lock and per waiter; a 10 s lease as for MySQL
                        + "?createSchema=true&poolSize=24&leaseTime=10s";
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("postgresql", uri)
                .withFloor(this::selectOne, FLOOR_STATEMENTS)
                .withExtraFloor("bare_requests_floor", this::bareRequests)
                .withHandoffFloor(this::handoffFloor)
                .withServerRequests(counter(this::statements))
                .withServerVersion(version));
        if (peers) {
            out.add(jdbcLockRegistryPeer("postgresql", "postgresql", server.jdbcUrl(), server.user(), server.password())
                    .withFloor(this::selectOne, FLOOR_STATEMENTS)
                    .withHandoffFloor(this::handoffFloor)
                    .withServerRequests(counter(this::statements))
                    .withServerVersion(version));
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return "PostgreSQL " + server.address() + " (fsync=off, full_page_writes=off, pg_stat_statements)";
    }

    @Override
    public void close() {
        for (Connection c : new Connection[] {stats, ping, bareLock, bareToken, notifier, listener}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
        if (server != null) {
            server.close();
        }
    }
}
