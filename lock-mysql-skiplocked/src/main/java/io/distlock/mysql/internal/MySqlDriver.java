package io.distlock.mysql.internal;

import com.zaxxer.hikari.HikariDataSource;
import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import io.distlock.LockNames;
import io.distlock.LockOptions;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal: the MySQL/MariaDB {@link LockDriver}. Not part of the public API.
 *
 * <p>A held lock is an open transaction on a dedicated connection that holds {@code SELECT ... FOR
 * UPDATE} on the lock's row. The engine's watchdog "renews" by a heartbeat on that connection, whose
 * session {@code wait_timeout} is the lease time, so a holder that stops heartbeating is disconnected
 * (and its row lock released by rollback) by the server within about the lease.
 */
public final class MySqlDriver implements LockDriver {
    private static final Logger log = LoggerFactory.getLogger(MySqlDriver.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    static final Capabilities CAPABILITIES = Capabilities.builder()
            .fencing(Capabilities.Fencing.GLOBALLY_MONOTONIC)
            .fencingSurvivesServerRestart(true)
            .automaticRenewal(true)
            .wakeUp(Capabilities.WakeUp.NOTIFICATION)
            .fifo(false)
            .reentrant(false)
            .failover(Capabilities.Failover.MAY_GRANT_TWICE)
            .build();

    /** How often a waiter blocked in a row-lock wait is checked for interrupt, deadline or close. */
    private static final long CANCEL_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final int ER_LOCK_WAIT_TIMEOUT = 1205;
    private static final int ER_QUERY_INTERRUPTED = 1317;
    private static final int ER_NO_SUCH_TABLE = 1146;
    private static final int ER_TABLEACCESS_DENIED = 1142;
    private static final int ER_DBACCESS_DENIED = 1044;
    private static final int ER_ACCESS_DENIED = 1045;

    /** The privileges the lock user needs, as documented in the README. */
    static final String PRIVILEGES = "SELECT, INSERT, UPDATE on the lock table and SELECT, INSERT, DELETE on"
            + " the token table (REPLACE = INSERT + DELETE)";

    private final DataSource dataSource;
    private final boolean ownsDataSource;
    private final MySqlLockOptions options;
    private final String skipLockedSql;
    private final String waitSql;
    private final String existsSql;
    private final String insertSql;
    private final String tokenSql;
    private final String setWaitTimeoutSql;
    private final int heartbeatTimeoutMillis;
    private final ScheduledThreadPoolExecutor canceller;
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    /** Connections we switched to autocommit off, to switch back before they return to the pool. */
    private final Set<Connection> switchedAutoCommit = ConcurrentHashMap.newKeySet();
    /** Statements blocked in a row-lock wait, cancelled on close. */
    private final Set<Statement> waiting = ConcurrentHashMap.newKeySet();

    /**
     * Released lock connections of the provider's own pool, kept for the next acquisition for at
     * most {@link #KEEP_WARM_NANOS}: their transaction is committed (they hold nothing) and their
     * session {@code wait_timeout} is still the lease's, so the next acquisition needs neither
     * {@code SET SESSION wait_timeout} (nor the release before it the reset): 3 statements per
     * uncontended acquire + release instead of 5. A sweep gives them back to the pool, reset, once
     * they are older than that or someone waits for a pooled connection.
     */
    private final ArrayDeque<Warm> warm = new ArrayDeque<>();
    /** At most this many warm connections (each is one connection fewer in the pool meanwhile). */
    private static final int MAX_WARM = 1;
    /** How long a released lock connection stays warm; far below the 1 s minimum {@code wait_timeout}. */
    static final long KEEP_WARM_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private record Warm(Connection connection, long since) {}

    private volatile boolean closed;
    private volatile boolean frozen;
    private final Object tokenLock = new Object();
    private Connection tokenConnection;

    /**
     * @param ownsDataSource whether {@link #close()} closes {@code dataSource} (a pool the provider
     *     opened itself)
     */
    public MySqlDriver(DataSource dataSource, boolean ownsDataSource, MySqlLockOptions options) {
        this.dataSource = dataSource;
        this.ownsDataSource = ownsDataSource;
        this.options = options;
        String t = options.table();
        this.skipLockedSql = claimSql(options);
        this.waitSql = "SELECT name FROM " + t + " WHERE name = ? FOR UPDATE";
        this.existsSql = "SELECT 1 FROM " + t + " WHERE name = ?";
        this.insertSql = "INSERT IGNORE INTO " + t + " (name) VALUES (?)";
        this.tokenSql = tokenSql(options);
        this.setWaitTimeoutSql = "SET SESSION wait_timeout = " + options.waitTimeoutSeconds();
        // Bounded by the renewal interval: the engine's single watchdog thread runs every lease's
        // heartbeat, so one hung connection must not hold up the others for longer than that.
        LockOptions lo = options.lockOptions();
        this.heartbeatTimeoutMillis = (int)
                Math.max(100, Math.min(Integer.MAX_VALUE, (long) (lo.leaseTime().toMillis() * lo.renewalFraction())));
        String name = "distlock-mysql-canceller-" + SEQUENCE.incrementAndGet();
        this.canceller = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, name);
            th.setDaemon(true);
            return th;
        });
        canceller.setRemoveOnCancelPolicy(true);
        if (ownsDataSource) {
            canceller.scheduleWithFixedDelay(this::sweepWarm, SWEEP_NANOS, SWEEP_NANOS, TimeUnit.NANOSECONDS);
        }
    }

    /** A warm connection for an acquisition, or null. Never one older than {@link #KEEP_WARM_NANOS}. */
    private Connection takeWarm() {
        synchronized (warm) {
            Warm w = warm.pollLast();
            if (w == null) {
                return null;
            }
            if (System.nanoTime() - w.since() < KEEP_WARM_NANOS) {
                return w.connection();
            }
            warm.addLast(w); // the sweep resets it
            return null;
        }
    }

    /** Keeps a released (committed) lock connection warm; false if it must go back to the pool now. */
    private boolean offerWarm(Connection c) {
        if (!ownsDataSource || closed || someoneWaitsForAConnection()) {
            return false;
        }
        synchronized (warm) {
            if (closed || warm.size() >= MAX_WARM) {
                return false;
            }
            warm.addLast(new Warm(c, System.nanoTime()));
            return true;
        }
    }

    private boolean someoneWaitsForAConnection() {
        if (dataSource instanceof HikariDataSource) {
            com.zaxxer.hikari.HikariPoolMXBean pool = ((HikariDataSource) dataSource).getHikariPoolMXBean();
            return pool != null && pool.getThreadsAwaitingConnection() > 0;
        }
        return false;
    }

    /** Gives back warm connections that are too old, or all of them if someone waits for one. */
    private void sweepWarm() {
        boolean all = closed || someoneWaitsForAConnection();
        java.util.List<Connection> out = new java.util.ArrayList<>();
        synchronized (warm) {
            long now = System.nanoTime();
            for (java.util.Iterator<Warm> it = warm.iterator(); it.hasNext(); ) {
                Warm w = it.next();
                if (all || now - w.since() >= KEEP_WARM_NANOS) {
                    it.remove();
                    out.add(w.connection());
                }
            }
        }
        for (Connection c : out) {
            resetAndGiveBack(c);
        }
    }

    /** Restores the server's default {@code wait_timeout} on a connection that holds nothing, and gives it back. */
    void resetAndGiveBack(Connection c) {
        try {
            // bounded: the sweep runs on the canceller thread, which a blackholed connection must
            // not hang (the pool restores the connection's previous timeout when it is returned)
            c.setNetworkTimeout(Runnable::run, heartbeatTimeoutMillis);
            // On the driver's own connection: through HikariCP's proxy, a statement after the
            // COMMIT marks the connection dirty and the pool sends a ROLLBACK when it is returned.
            try (Statement s = physical(c).createStatement()) {
                s.execute("SET SESSION wait_timeout = DEFAULT");
            }
            restoreAutoCommit(c);
        } catch (SQLException e) {
            log.debug("distlock.mysql.reset_failed", e);
            evict(c);
            return;
        }
        closeQuietly(c);
    }

    /**
     * The claim of a lock's row ({@code SELECT … FOR UPDATE SKIP LOCKED}, the name bound as the one
     * parameter): the first of the three statements of an uncontended acquire+release.
     */
    public static String claimSql(MySqlLockOptions options) {
        return "SELECT name FROM " + options.table() + " WHERE name = ? FOR UPDATE SKIP LOCKED";
    }

    /**
     * The fencing token's statement ({@code REPLACE} into the token table, the name bound as the one
     * parameter; the token is the generated key), run in autocommit apart from the lock's transaction.
     */
    public static String tokenSql(MySqlLockOptions options) {
        return "REPLACE INTO " + options.tokenTable() + " (name) VALUES (?)";
    }

    /** The DDL for {@code options}' tables, one statement per element. */
    public static String[] ddl(MySqlLockOptions options) {
        return new String[] {
            "CREATE TABLE IF NOT EXISTS " + options.table()
                    + " (name VARCHAR(768) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY)"
                    + " ENGINE=InnoDB",
            "CREATE TABLE IF NOT EXISTS " + options.tokenTable()
                    + " (name VARCHAR(768) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,"
                    + " token BIGINT NOT NULL AUTO_INCREMENT, UNIQUE KEY distlock_token_uk (token)) ENGINE=InnoDB"
        };
    }

    /**
     * Creates the schema if asked to, then checks that both tables exist and can be used.
     *
     * @throws LockConfigurationException naming the missing table or privilege
     * @throws BackendUnavailableException if the server cannot be reached
     */
    public void initialize() {
        try (Connection c = dataSource.getConnection()) {
            SQLException createDenied = null;
            if (options.createSchema()) {
                try (Statement s = c.createStatement()) {
                    for (String ddl : ddl(options)) {
                        s.execute(ddl);
                    }
                } catch (SQLException e) {
                    if (!isAccessDenied(e)) {
                        throw new LockConfigurationException(
                                "could not create tables " + options.table() + " and " + options.tokenTable() + ": "
                                        + e.getMessage(),
                                backend(),
                                e);
                    }
                    // A least-privilege user cannot CREATE: fine if an administrator created the
                    // tables (io/distlock/mysql/schema.sql); the check below says so if not.
                    createDenied = e;
                    log.debug("distlock.mysql.create_schema_denied table={}", options.table());
                }
            }
            for (String table : new String[] {options.table(), options.tokenTable()}) {
                try (Statement s = c.createStatement()) {
                    s.executeQuery("SELECT name FROM " + table + " WHERE 1 = 0").close();
                } catch (SQLException e) {
                    LockConfigurationException error = schemaError(table, e);
                    if (createDenied != null) {
                        error.addSuppressed(createDenied);
                    }
                    throw error;
                }
            }
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            LockConfigurationException refused = refusal(e);
            if (refused != null) {
                throw refused;
            }
            throw new BackendUnavailableException("cannot connect: " + e.getMessage(), null, backend(), e);
        }
    }

    /**
     * A connection refusal that retrying cannot fix: wrong credentials, a user that must use TLS, a
     * server certificate the trust store does not accept. Server and TLS messages never contain the
     * password.
     */
    static LockConfigurationException refusal(SQLException e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLException) {
                return new LockConfigurationException(
                        "cannot connect: TLS handshake failed (check sslMode and the trust store: it must hold the"
                                + " CA that signed the server's certificate): " + c.getMessage(),
                        "mysql",
                        e);
            }
            if (c instanceof SQLException && ((SQLException) c).getErrorCode() == ER_ACCESS_DENIED) {
                return new LockConfigurationException(
                        "cannot connect: the server refused the credentials or the connection (wrong user or"
                                + " password, a user that must use TLS, or a host not allowed; the password is not"
                                + " shown): " + c.getMessage(),
                        "mysql",
                        e);
            }
        }
        return null;
    }

    private static boolean isAccessDenied(SQLException e) {
        return e.getErrorCode() == ER_TABLEACCESS_DENIED || e.getErrorCode() == ER_DBACCESS_DENIED;
    }

    private LockConfigurationException schemaError(String table, SQLException e) {
        if (e.getErrorCode() == ER_NO_SUCH_TABLE) {
            return new LockConfigurationException(
                    "table " + table + " does not exist: create it with the DDL in io/distlock/mysql/schema.sql"
                            + " (see the README) as an administrator, or set createSchema(true) for a user with"
                            + " the CREATE privilege",
                    backend(),
                    e);
        }
        if (isAccessDenied(e)) {
            // the server says "denied" also for a missing table when the user has no privilege on it
            return new LockConfigurationException(
                    "no privilege on table " + table + ", or it does not exist: an administrator creates it with"
                            + " io/distlock/mysql/schema.sql (see the README) and grants the lock user " + PRIVILEGES
                            + " (" + e.getMessage() + ")",
                    backend(),
                    e);
        }
        return new LockConfigurationException("cannot use table " + table + ": " + e.getMessage(), backend(), e);
    }

    @Override
    public String backend() {
        return "mysql";
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.WATCHDOG;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new MySqlContender(ctx);
    }

    /** The held lock of {@code lockName} acquired through this driver, if any. */
    public Optional<Held> held(String lockName) {
        return Optional.ofNullable(held.get(lockName));
    }

    /** The data source lock connections come from. */
    public DataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() {
        closed = true;
        for (Statement s : waiting) {
            try {
                s.cancel();
            } catch (SQLException | RuntimeException e) {
                log.debug("distlock.mysql.cancel_on_close_failed", e);
            }
        }
        canceller.shutdownNow();
        try {
            canceller.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!frozen) {
            releaseResources();
        }
    }

    /**
     * Makes the next {@link #close()} leave held lock connections open and silent (no heartbeat,
     * no COMMIT, no socket close), as a paused process or a partitioned host would: the server drops
     * them at {@code wait_timeout}. {@link #releaseResources()} closes them later.
     */
    public void freeze() {
        frozen = true;
    }

    /**
     * Drops held lock connections without COMMIT (the server rolls back and frees the rows at once,
     * as for a killed process), closes the token connection and the provider's own pool. Idempotent.
     */
    public void releaseResources() {
        for (Held h : held.values()) {
            h.abort();
        }
        held.clear();
        java.util.List<Warm> cold;
        synchronized (warm) {
            cold = new java.util.ArrayList<>(warm);
            warm.clear();
        }
        for (Warm w : cold) {
            if (frozen) {
                evict(w.connection());
            } else {
                resetAndGiveBack(w.connection());
            }
        }
        synchronized (tokenLock) {
            if (tokenConnection != null) {
                closeQuietly(tokenConnection);
                tokenConnection = null;
            }
        }
        if (ownsDataSource && dataSource instanceof HikariDataSource) {
            ((HikariDataSource) dataSource).close();
        }
    }

    /**
     * Allocates a fencing token for {@code key}, <em>committed</em> before it is handed out. The
     * allocation must not live in the lock's transaction: InnoDB never reuses an AUTO_INCREMENT value
     * within a server's life, but a value allocated by a transaction that was never committed (nor
     * followed by any other commit) is not in the written redo log, so after a server crash the
     * counter can restart below it and hand the same token to the next holder (seen in
     * serverRestart_holdersToldLostAndTokensKeepIncreasing with SIGKILL). Runs on one autocommit
     * connection per provider, one statement, serialised.
     */
    long nextToken(String key, String lockName) throws SQLException {
        synchronized (tokenLock) {
            for (int attempt = 0; ; attempt++) {
                Connection c = tokenConnection;
                try {
                    if (c == null) {
                        if (closed) {
                            throw new SQLException("provider is closed");
                        }
                        c = dataSource.getConnection();
                        if (!c.getAutoCommit()) {
                            c.setAutoCommit(true);
                        }
                        c.setNetworkTimeout(Runnable::run, heartbeatTimeoutMillis);
                        tokenConnection = c;
                    }
                    try (PreparedStatement ps = c.prepareStatement(tokenSql, Statement.RETURN_GENERATED_KEYS)) {
                        ps.setString(1, key);
                        ps.executeUpdate();
                        return generatedToken(ps);
                    }
                } catch (SQLException e) {
                    if (c != null) {
                        evict(c);
                    }
                    tokenConnection = null;
                    // A fresh connection and a new allocation are safe: any value it returns is
                    // larger than one a lost reply might have carried.
                    if (attempt >= 1 || closed) {
                        throw e;
                    }
                    log.debug("distlock.mysql.token_connection_failed lock={}", lockName, e);
                }
            }
        }
    }

    /**
     * The AUTO_INCREMENT value the statement generated, from the server's OK packet. Connector/J keeps
     * it on the statement; reading it there skips building the generated-keys result set (a calendar,
     * a time zone lookup, property reads: client CPU on every acquisition). Another driver: the
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

    BackendUnavailableException unavailable(String what, String lockName, SQLException e) {
        return new BackendUnavailableException(what + ": " + e.getMessage(), lockName, backend(), e);
    }

    Connection borrow(String lockName) {
        if (closed) {
            throw new IllegalStateException("provider is closed (lock '" + lockName + "', backend mysql)");
        }
        try {
            Connection c = dataSource.getConnection();
            try {
                if (c.getAutoCommit()) {
                    c.setAutoCommit(false);
                    switchedAutoCommit.add(c);
                }
            } catch (SQLException e) {
                closeQuietly(c);
                throw e;
            }
            return c;
        } catch (SQLException e) {
            throw unavailable(
                    "no lock connection (pool size " + options.poolSize() + ": one connection per held lock and"
                            + " per waiter)",
                    lockName,
                    e);
        }
    }

    /** Ends the (lock-free) transaction and gives the connection back, restoring autocommit. */
    void giveBack(Connection c) {
        try {
            c.rollback();
            restoreAutoCommit(c);
        } catch (SQLException e) {
            evict(c);
            return;
        }
        closeQuietly(c);
    }

    void restoreAutoCommit(Connection c) throws SQLException {
        if (switchedAutoCommit.remove(c)) {
            c.setAutoCommit(true);
        }
    }

    /** Makes sure {@code c} is never used again: evicted from the pool, its socket closed. */
    void evict(Connection c) {
        switchedAutoCommit.remove(c);
        if (dataSource instanceof HikariDataSource) {
            try {
                ((HikariDataSource) dataSource).evictConnection(c);
                return;
            } catch (RuntimeException e) {
                log.debug("distlock.mysql.evict_failed", e);
            }
        }
        try {
            c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).abortInternal();
        } catch (SQLException | RuntimeException e) {
            log.debug("distlock.mysql.abort_failed", e);
        }
        closeQuietly(c);
    }

    /** The JDBC driver's connection under a pool's proxy, or {@code c} itself. */
    static Connection physical(Connection c) {
        try {
            return c.isWrapperFor(com.mysql.cj.jdbc.JdbcConnection.class)
                    ? c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class)
                    : c;
        } catch (SQLException e) {
            return c;
        }
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("distlock.mysql.close_failed", e);
        }
    }

    /** The server's id of {@code c} ({@code CONNECTION_ID()}), or -1 if unknown. */
    static long connectionId(Connection c) {
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

    /** One acquisition attempt; keeps one connection for its tries and waits. */
    private final class MySqlContender implements Contender {
        private final AcquireContext ctx;
        private final String key;
        private Connection conn;
        /** Whether {@link #conn}'s session {@code wait_timeout} is already the lease's (a warm connection). */
        private boolean armed;

        private Held granted;

        MySqlContender(AcquireContext ctx) {
            this.ctx = ctx;
            this.key = LockNames.encode(ctx.lockName());
        }

        @Override
        public Optional<HeldLock> tryAcquire() {
            if (granted != null) {
                Held h = granted;
                granted = null;
                return Optional.of(h);
            }
            for (int attempt = 0; ; attempt++) {
                boolean fromWarm = false;
                if (conn == null) {
                    conn = takeWarm();
                    fromWarm = conn != null;
                    armed = fromWarm;
                    if (conn == null) {
                        conn = borrow(ctx.lockName());
                    }
                }
                try {
                    return attempt();
                } catch (SQLException e) {
                    dropConnection();
                    if (fromWarm && attempt == 0 && isConnectionError(e)) {
                        // a kept connection that died while nothing was held on it: try a fresh one
                        log.debug("distlock.mysql.warm_connection_failed lock={}", ctx.lockName(), e);
                        continue;
                    }
                    throw unavailable("acquire failed", ctx.lockName(), e);
                }
            }
        }

        private Optional<HeldLock> attempt() throws SQLException {
            long sentAt = ctx.ticker().read();
            if (select(skipLockedSql)) {
                return Optional.of(claim(sentAt));
            }
            // No row visible to SKIP LOCKED: either someone holds it, or it does not exist yet.
            if (exists()) {
                return Optional.empty();
            }
            // Create it in its own short transaction (never inside a locking one: the next
            // client's insert would wait on our transaction), then claim it.
            conn.rollback();
            try (PreparedStatement ps = conn.prepareStatement(insertSql)) {
                ps.setString(1, key);
                ps.executeUpdate();
            }
            conn.commit();
            sentAt = ctx.ticker().read();
            if (select(skipLockedSql)) {
                return Optional.of(claim(sentAt));
            }
            return Optional.empty();
        }

        private boolean select(String sql) throws SQLException {
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                ps.setString(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        }

        private boolean exists() throws SQLException {
            return select(existsSql);
        }

        /** The row is locked by our transaction: take a token and arm the server-side expiry. */
        private Held claim(long sentAt) throws SQLException {
            long token = nextToken(key, ctx.lockName());
            if (!armed) {
                try (Statement s = conn.createStatement()) {
                    s.execute(setWaitTimeoutSql);
                }
            }
            Held h = new Held(ctx, conn, token, ctx.validUntil(sentAt));
            conn = null;
            armed = false;
            held.put(ctx.lockName(), h);
            return h;
        }

        @Override
        public void awaitChange(long deadlineNanos) throws InterruptedException {
            if (closed) {
                return;
            }
            if (conn == null) {
                conn = borrow(ctx.lockName());
            }
            Thread waiter = Thread.currentThread();
            Object guard = new Object();
            boolean[] executing = {true};
            boolean[] cancelled = {false};
            PreparedStatement ps;
            try {
                ps = conn.prepareStatement(waitSql);
                ps.setString(1, key);
            } catch (SQLException e) {
                dropConnection();
                throw unavailable("wait failed", ctx.lockName(), e);
            }
            // Blocks on the row lock: the holder's COMMIT (or its connection's end) wakes us. A
            // checker cancels the statement (KILL QUERY) on interrupt, deadline or close.
            ScheduledFuture<?> check = canceller.scheduleWithFixedDelay(
                    () -> {
                        synchronized (guard) {
                            if (!executing[0] || cancelled[0]) {
                                return;
                            }
                            if (waiter.isInterrupted() || closed || Deadlines.passed(ctx.ticker(), deadlineNanos)) {
                                cancelled[0] = true;
                                try {
                                    ps.cancel();
                                } catch (SQLException | RuntimeException e) {
                                    log.debug("distlock.mysql.cancel_failed lock={}", ctx.lockName(), e);
                                }
                            }
                        }
                    },
                    Math.min(CANCEL_CHECK_NANOS, Math.max(0, Deadlines.remaining(ctx.ticker(), deadlineNanos))),
                    CANCEL_CHECK_NANOS,
                    TimeUnit.NANOSECONDS);
            boolean got = false;
            SQLException failure = null;
            waiting.add(ps);
            try (ResultSet rs = ps.executeQuery()) {
                got = rs.next();
            } catch (SQLException e) {
                failure = e;
            } finally {
                waiting.remove(ps);
                check.cancel(false);
                synchronized (guard) {
                    executing[0] = false;
                }
                try {
                    ps.close();
                } catch (SQLException ignored) {
                    // closing a finished statement
                }
            }
            boolean wasCancelled;
            synchronized (guard) {
                wasCancelled = cancelled[0];
            }
            if (closed) {
                // the provider closed under us: the engine reports that; the connection is dropped
                dropConnection();
                return;
            }
            try {
                if (failure != null) {
                    if (wasCancelled
                            || failure.getErrorCode() == ER_QUERY_INTERRUPTED
                            || failure.getErrorCode() == ER_LOCK_WAIT_TIMEOUT) {
                        // statement rolled back; the transaction holds nothing
                        conn.rollback();
                    } else {
                        dropConnection();
                        throw unavailable("wait failed", ctx.lockName(), failure);
                    }
                } else if (got) {
                    if (wasCancelled || waiter.isInterrupted() || closed) {
                        // granted just as we gave up: give it back
                        conn.rollback();
                    } else {
                        // Our transaction holds the row now; validity counts from the next request.
                        granted = claim(ctx.ticker().read());
                        return;
                    }
                } else {
                    // the row vanished (deleted by hand): the next try re-creates it
                    conn.rollback();
                }
            } catch (SQLException e) {
                dropConnection();
                throw unavailable("wait failed", ctx.lockName(), e);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + ctx.lockName() + "'");
            }
        }

        private void dropConnection() {
            if (conn != null) {
                evict(conn);
                conn = null;
                armed = false;
            }
        }

        @Override
        public void abandon() {
            if (granted != null) {
                granted.release();
                granted = null;
            }
            if (conn != null) {
                if (armed) {
                    try {
                        conn.rollback();
                    } catch (SQLException e) {
                        evict(conn);
                        conn = null;
                        armed = false;
                        return;
                    }
                    if (!offerWarm(conn)) {
                        resetAndGiveBack(conn);
                    }
                } else {
                    giveBack(conn);
                }
                conn = null;
                armed = false;
            }
        }
    }

    /**
     * Internal: a lock held by an open transaction on {@link #connection()}. Public only so the
     * provider can reach the connection.
     */
    public final class Held implements HeldLock {
        private final AcquireContext ctx;
        private final Connection conn;
        private final long token;
        private volatile long validUntil;
        private volatile boolean broken;
        private volatile boolean rollbackOnRelease;
        private boolean done;

        Held(AcquireContext ctx, Connection conn, long token, long validUntil) {
            this.ctx = ctx;
            this.conn = conn;
            this.token = token;
            this.validUntil = validUntil;
        }

        /** The connection whose open transaction holds the lock. */
        public Connection connection() {
            return conn;
        }

        /** The server's connection id of the lock connection, or -1 if unknown. */
        public long connectionId() {
            return MySqlDriver.connectionId(conn);
        }

        /** Makes {@link #release()} roll back instead of committing the caller's work. */
        public void rollbackOnRelease() {
            rollbackOnRelease = true;
        }

        @Override
        public OptionalLong fencingToken() {
            return OptionalLong.of(token);
        }

        @Override
        public long validUntilNanos() {
            return validUntil;
        }

        /** Heartbeat: proves the connection (and with it the transaction holding the row) is alive. */
        @Override
        public synchronized boolean renew() {
            if (done || broken) {
                return false;
            }
            long sentAt = ctx.ticker().read();
            try (Statement s = conn.createStatement()) {
                // A blackholed connection must not hang the heartbeat (and the watchdog thread):
                // bound the read by the renewal interval; a timeout closes the connection for good.
                int previous = conn.getNetworkTimeout();
                conn.setNetworkTimeout(Runnable::run, heartbeatTimeoutMillis);
                s.execute("DO 1");
                conn.setNetworkTimeout(Runnable::run, previous);
                validUntil = ctx.validUntil(sentAt);
                return true;
            } catch (SQLException e) {
                // The connection is gone (or unusable): the server rolls back, or will at
                // wait_timeout. Never reopen it under this lease.
                broken = true;
                log.debug("distlock.mysql.heartbeat_failed lock={}", ctx.lockName(), e);
                ctx.reportLost("lock connection failed: " + e.getMessage(), e);
                return false;
            }
        }

        @Override
        public synchronized boolean release() {
            if (done) {
                return false;
            }
            done = true;
            held.remove(ctx.lockName(), this);
            if (broken) {
                evict(conn);
                return false;
            }
            try {
                // COMMIT first: the lock is free (and a waiter granted) one round trip earlier
                if (rollbackOnRelease) {
                    conn.rollback();
                } else {
                    conn.commit();
                }
            } catch (SQLException e) {
                evict(conn);
                if (isConnectionError(e)) {
                    // the connection died: the server rolled back and the lock is already free
                    return false;
                }
                throw unavailable("release failed", ctx.lockName(), e);
            }
            // The connection holds nothing now: kept warm for the next acquisition, or back to the
            // pool with the server's default idle timeout (or evicted if that fails).
            if (!offerWarm(conn)) {
                resetAndGiveBack(conn);
            }
            return true;
        }

        /** Drops the connection without COMMIT (provider abandoned). */
        synchronized void abort() {
            if (done) {
                return;
            }
            done = true;
            broken = true;
            try {
                conn.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).abortInternal();
            } catch (SQLException | RuntimeException e) {
                log.debug("distlock.mysql.abort_failed lock={}", ctx.lockName(), e);
            }
            evict(conn);
        }
    }

    static boolean isConnectionError(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("08");
    }
}
