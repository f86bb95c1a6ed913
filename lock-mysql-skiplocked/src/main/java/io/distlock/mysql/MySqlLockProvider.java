package io.distlock.mysql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.mysql.internal.MySqlDriver;
import io.distlock.mysql.internal.RowClaimer;
import io.distlock.spi.LockEngine;
import io.distlock.spi.UriParameters;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Locks on MySQL 8.0+ / MariaDB 10.6+ ({@code mysql://}) held as row locks: a lock is a row of the
 * lock table, and its holder keeps that row locked ({@code SELECT ... FOR UPDATE SKIP LOCKED}) in a
 * transaction that stays open on a dedicated connection for the life of the lease. Release is
 * {@code COMMIT}.
 *
 * <h2>Guarantees and limits</h2>
 *
 * <ul>
 *   <li><b>Mutual exclusion</b> is InnoDB's row lock: while the holder's transaction is open no one
 *       else can lock the row. If the holder's process dies its TCP connection closes and the server
 *       rolls back at once; the lock is free immediately.
 *   <li><b>Paused or partitioned holders</b> (GC pause, SIGSTOP, network cut): the lock connection's
 *       session {@code wait_timeout} is the lease time rounded up to whole seconds; the engine's
 *       watchdog sends a heartbeat ({@code DO 1}) every {@code leaseTime * renewalFraction}. A holder
 *       that stops heartbeating is disconnected by the server, and its row lock released, about one
 *       lease after its last heartbeat; its lease is reported lost on the client by then (it is never
 *       reported valid past {@code lastHeartbeatSent + leaseTime - safetyMargin}).
 *   <li><b>Fencing tokens</b> come from an {@code AUTO_INCREMENT} column ({@code REPLACE} into the
 *       token table, committed on its own once the row lock is held): strictly increasing across
 *       holders of all locks of the table, including after a holder's rollback and a server restart
 *       or crash (as durable as the server's {@code innodb_flush_log_at_trx_commit} makes commits).
 *       Pool sizing: one connection per held lock, per waiter and per {@link #claimRows} call, plus
 *       one for tokens.
 *   <li><b>Server restart or failover</b> drops every row lock at once; a holder learns it at its next
 *       heartbeat, so another client may acquire while the old holder still believes it holds the
 *       lock for up to one heartbeat interval ({@link Capabilities.Failover#MAY_GRANT_TWICE}). Guard
 *       writes with the fencing token, or do them in the lock's own transaction ({@link
 *       #connection(Lease)}).
 *   <li><b>Waiting</b> blocks on the row lock itself (no polling): the holder's COMMIT wakes one
 *       waiter. Not FIFO. A waiter keeps one pooled connection while it waits.
 * </ul>
 *
 * <h2>Work in the lock's transaction</h2>
 *
 * {@link #connection(Lease)} returns the lock's connection (autocommit off); writes made on it
 * commit with the release, atomically with giving up the lock, or roll back if the holder dies. The
 * trade-off: a long hold is a long transaction (one pooled connection, row locks and undo history
 * kept for its duration). A deadlock in your statements rolls back the whole transaction and with it
 * the lock: treat any {@link SQLException} on that connection as the end of the lease ({@link
 * #withLockedConnection} does).
 *
 * <pre>{@code
 * try (MySqlLockProvider locks = MySqlLockProvider.builder()
 *         .jdbcUrl("jdbc:mysql://db:3306/app").user("app").password(secret)
 *         .options(MySqlLockOptions.builder().createSchema(true).leaseTime(Duration.ofSeconds(10)).build())
 *         .build()) {
 *     locks.withLockedConnection("nightly-report", Duration.ofSeconds(5), c -> {
 *         // statements on c commit together with the release
 *         return null;
 *     });
 * }
 * }</pre>
 */
public final class MySqlLockProvider implements LockProvider {
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final LockEngine engine;
    private final MySqlDriver driver;
    private final MySqlLockOptions options;
    private final String description;

    private MySqlLockProvider(Builder b) {
        this.options = b.options;
        DataSource ds;
        boolean owns;
        if (b.dataSource != null) {
            ds = b.dataSource;
            owns = false;
            this.description = "dataSource=" + b.dataSource.getClass().getName();
        } else {
            if (b.jdbcUrl == null) {
                throw new IllegalArgumentException("jdbcUrl or dataSource must be set");
            }
            this.description = "url=" + UriParameters.redact(b.jdbcUrl) + ", user=" + b.user;
            ds = openPool(b);
            owns = true;
        }
        this.driver = new MySqlDriver(ds, owns, options);
        try {
            driver.initialize();
        } catch (RuntimeException e) {
            driver.close();
            throw e;
        }
        this.engine = LockEngine.create(driver, options.lockOptions());
    }

    private static DataSource openPool(Builder b) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("distlock-mysql-pool-" + POOLS.incrementAndGet());
        config.setJdbcUrl(b.jdbcUrl);
        if (b.user != null) {
            config.setUsername(b.user);
        }
        if (b.password != null) {
            config.setPassword(b.password);
        }
        config.setMaximumPoolSize(b.options.poolSize());
        // Connections are opened when a borrower finds none idle, never in the background: with spare
        // idle connections (minimumIdle > 0) the pool topped them up after acquisitions, four
        // statements per connection, traffic that the compare counted as renewal. Idle connections
        // stay for HikariCP's idleTimeout (10 minutes) and are reused.
        config.setMinimumIdle(0);
        config.setAutoCommit(false);
        // no gap locks: claims and lock rows never block inserts of neighbouring keys
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setConnectionTimeout(b.options.connectionTimeout().toMillis());
        config.setInitializationFailTimeout(-1);
        // Connector/J: keep session state locally (no round trip for getAutoCommit and friends)
        config.addDataSourceProperty("useLocalSessionState", "true");
        // Connector/J: keep the parse of each statement text per connection; the driver sends the
        // same few statements over and over, and parsing them again each time cost client time
        config.addDataSourceProperty("cachePrepStmts", "true");
        // Connector/J: server-side prepared statements (binary protocol), kept per connection by
        // cachePrepStmts: the server parses each of the driver's statement texts once per connection
        // instead of on every acquisition, and the client sends only the bound values. Same
        // statements and round trips per acquisition; a text the cache does not hold yet (the first
        // use on a connection) costs one prepare round trip more, once.
        config.addDataSourceProperty("useServerPrepStmts", "true");
        config.addDataSourceProperty(
                "connectTimeout", String.valueOf(b.options.connectionTimeout().toMillis()));
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new BackendUnavailableException(
                    "cannot open connection pool to " + UriParameters.redact(b.jdbcUrl) + ": " + e.getMessage(),
                    null,
                    "mysql",
                    e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public DistributedLock lock(String name) {
        return engine.lock(name);
    }

    @Override
    public Capabilities capabilities() {
        return engine.capabilities();
    }

    @Override
    public String backend() {
        return engine.backend();
    }

    /** The options this provider runs with. */
    public MySqlLockOptions options() {
        return options;
    }

    @Override
    public List<Lease> heldLeases() {
        return engine.heldLeases();
    }

    /**
     * The connection whose open transaction holds {@code lease}'s lock (autocommit off). Statements
     * run on it commit when the lease is released while still valid; if the lease is lost first
     * (validity passed, {@code maxHoldTime} reached, provider closed), the release rolls them back.
     * Do not commit, roll back, close it or change its autocommit yourself: that would release the
     * lock behind the lease's back.
     *
     * @throws IllegalArgumentException if {@code lease} was not acquired through this provider
     * @throws LeaseLostException if the lease is no longer valid
     */
    public Connection connection(Lease lease) {
        return heldFor(lease).connection();
    }

    /** The server's connection id of {@code lease}'s lock connection (for {@code KILL} and diagnostics). */
    public long connectionId(Lease lease) {
        return heldFor(lease).connectionId();
    }

    private MySqlDriver.Held heldFor(Lease lease) {
        Objects.requireNonNull(lease, "lease must not be null");
        if (!engine.heldLeases().contains(lease)) {
            throw new IllegalArgumentException(
                    "lease for lock '" + lease.lockName() + "' was not acquired through this provider or is released");
        }
        lease.checkValid();
        MySqlDriver.Held h = driver.held(lease.lockName())
                .filter(x -> x.fencingToken().equals(lease.fencingToken()))
                .orElseThrow(() -> new LeaseLostException("lock connection is gone", lease.lockName(), "mysql"));
        // Work done on the connection must not commit once the lease is lost (validity passed,
        // maxHoldTime reached, provider closed): the release then rolls back. lost() completes
        // before the engine's own release runs, on the thread that marks the loss.
        lease.lost().thenRun(h::rollbackOnRelease);
        return h;
    }

    /** Work done on a connection. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }

    /** Work done on claimed rows, in the transaction that holds them. */
    @FunctionalInterface
    public interface ClaimWork<T> {
        /**
         * @param keys the key-column values of the claimed rows (possibly empty)
         */
        T process(Connection connection, List<Object> keys) throws SQLException;
    }

    /**
     * Acquires {@code name} (waiting at most {@code maxWait}), runs {@code work} on the lock's
     * connection, then releases: the work and the release commit together. If {@code work} throws,
     * its changes are rolled back and the lock released.
     *
     * @return the work's result, or empty if the lock could not be acquired within {@code maxWait}
     * @throws LeaseLostException if the lease was lost before the commit (the work was rolled back)
     */
    public <T> Optional<T> withLockedConnection(String name, Duration maxWait, SqlWork<T> work)
            throws SQLException, InterruptedException {
        Objects.requireNonNull(work, "work must not be null");
        Optional<Lease> maybe = lock(name).tryAcquire(maxWait);
        if (maybe.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = maybe.get();
        MySqlDriver.Held h;
        try {
            h = heldFor(lease);
        } catch (RuntimeException e) {
            lease.release();
            throw e;
        }
        T result;
        try {
            result = work.run(h.connection());
            lease.checkValid();
        } catch (SQLException | RuntimeException | Error e) {
            h.rollbackOnRelease();
            try {
                lease.release();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        if (!lease.release()) {
            throw new LeaseLostException(
                    "lease was lost before the commit; the work may not have been committed", name, "mysql");
        }
        return Optional.ofNullable(result);
    }

    /**
     * Claims up to {@code limit} rows of {@code table} whose columns equal {@code where}'s values
     * ({@code null} means {@code IS NULL}) with {@code SELECT keyColumn ... ORDER BY keyColumn LIMIT
     * limit FOR UPDATE SKIP LOCKED}: rows locked by other transactions are skipped, never waited on.
     * Then runs {@code work} in the same transaction and commits; if {@code work} throws, rolls back
     * (the rows become claimable again). Uses a pooled connection for the duration.
     *
     * <p>Each call starts at the first matching key. If your work changes an indexed column of the
     * {@code where} (a status flag), claims read past the old index entries until the server purges
     * them; the {@link ClaimCursor} overload starts after the last claimed key instead.
     *
     * @param table your table; identifiers must match {@code [A-Za-z_][A-Za-z0-9_]{0,63}}
     * @throws IllegalArgumentException for a bad identifier or a limit outside 1..100000
     */
    public <T> T claimRows(String table, String keyColumn, Map<String, ?> where, int limit, ClaimWork<T> work)
            throws SQLException {
        Objects.requireNonNull(work, "work must not be null");
        return claim(new RowClaimer(table, keyColumn, where, limit), null, work);
    }

    /**
     * Like {@link #claimRows(String, String, Map, int, ClaimWork)}, but the claim starts after the
     * last key that {@code cursor} saw claimed ({@code AND keyColumn > ?}) instead of at the first
     * matching key; if nothing is claimable there, the same call claims from the first matching key
     * (a second statement). Share one cursor among the workers of one claim (same table, key and
     * {@code where}): each claim then also starts after the rows the other workers are holding
     * instead of skipping them one by one.
     *
     * <p>Why: when a claim changes an indexed column ({@code status = 'ALLOCATED'} with an index on
     * {@code (status, id)}), InnoDB leaves the old index entries delete-marked until its purge
     * removes them, and a claim from the first matching key reads past every one of them, about two
     * page reads each. Under steady claiming that is hundreds to thousands of entries per claim, and
     * more the faster rows are claimed. A cursor starts past them. See the module README
     * ("Session 6") for measurements.
     *
     * <p>Guarantees are those of {@code claimRows}: a row is claimed only while this transaction
     * holds its row lock and it matches {@code where}, so two claims never hold the same row, and
     * an empty result means no matching row was claimable anywhere when the call ran. What changes
     * is the order: rows behind the cursor that become claimable again (a claim that rolled back,
     * rows inserted with smaller keys) are claimed only once a claim finds nothing after the cursor.
     * The cursor moves as soon as a claim returns rows, before the work runs; the claim's statement
     * compares keys on the server (the bound value against {@code keyColumn}), so an out-of-date
     * cursor costs only rows read, never a row claimed twice or missed.
     *
     * @throws IllegalArgumentException for a bad identifier or a limit outside 1..100000
     */
    public <T> T claimRows(
            String table, String keyColumn, Map<String, ?> where, int limit, ClaimCursor cursor, ClaimWork<T> work)
            throws SQLException {
        Objects.requireNonNull(cursor, "cursor must not be null");
        Objects.requireNonNull(work, "work must not be null");
        return claim(new RowClaimer(table, keyColumn, where, limit, cursor.index), cursor, work);
    }

    /**
     * Where the claims of one {@link #claimRows(String, String, Map, int, ClaimCursor, ClaimWork)}
     * query left off: the last key of the latest claim (the largest of concurrent claims' last keys
     * when the keys are numbers of one type). Thread-safe; share one among the workers of a claim.
     * Holds no connection and no lock.
     */
    public static final class ClaimCursor {
        private final String index;
        private final AtomicReference<Object> after = new AtomicReference<>();

        private ClaimCursor(String index) {
            this.index = index;
        }

        /** A cursor at the start; the server's optimizer picks the index. */
        public static ClaimCursor create() {
            return new ClaimCursor(null);
        }

        /**
         * A cursor at the start whose claims name {@code index} ({@code FORCE INDEX}): an index whose
         * columns are the {@code where} columns followed by the key column. MariaDB 10.11 reads such an
         * index by the {@code where} values alone ({@code ref} access) and ignores the key bound
         * unless told; without the index named the cursor saves little there.
         *
         * @throws IllegalArgumentException if {@code index} does not match {@code [A-Za-z_][A-Za-z0-9_]{0,63}}
         */
        public static ClaimCursor usingIndex(String index) {
            if (index == null || !index.matches("[A-Za-z_][A-Za-z0-9_]{0,63}")) {
                throw new IllegalArgumentException(
                        "index must match [A-Za-z_][A-Za-z0-9_]{0,63} (was '" + index + "')");
            }
            return new ClaimCursor(index);
        }

        /** The last key of the latest claim, or empty at the start and after a claim found nothing. */
        public Optional<Object> position() {
            return Optional.ofNullable(after.get());
        }

        /**
         * After a claim returned {@code keys} (in key order). From the start of the key range (or
         * nothing found), the cursor is set; otherwise it keeps the larger of its position and the
         * claim's last key where Java orders them as the server does (numbers of one type), so
         * concurrent claims finishing out of order do not move it back.
         */
        void claimed(List<Object> keys, boolean fromStart) {
            Object last = keys.isEmpty() ? null : keys.get(keys.size() - 1);
            if (fromStart || last == null) {
                after.set(last);
            } else {
                after.accumulateAndGet(last, ClaimCursor::later);
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private static Object later(Object current, Object candidate) {
            if (current instanceof Number
                    && current instanceof Comparable
                    && current.getClass() == candidate.getClass()) {
                return ((Comparable) current).compareTo(candidate) >= 0 ? current : candidate;
            }
            return candidate;
        }

        @Override
        public String toString() {
            return "ClaimCursor{index=" + index + ", after=" + after.get() + '}';
        }
    }

    private <T> T claim(RowClaimer claimer, ClaimCursor cursor, ClaimWork<T> work) throws SQLException {
        try (Connection c = driver.dataSource().getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            int isolation = c.getTransactionIsolation();
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                // REPEATABLE READ would take next-key (gap) locks on the scanned index and make
                // concurrent claimers deadlock on each other's updates
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            try {
                Object from = cursor == null ? null : cursor.after.get();
                List<Object> keys = claimer.claim(c, from);
                boolean fromStart = from == null;
                if (keys.isEmpty() && !fromStart) {
                    // nothing after the cursor: rows behind it may have become claimable again
                    keys = claimer.claim(c, null);
                    fromStart = true;
                }
                if (cursor != null) {
                    // at once, not at commit: the next claim, by any worker, starts after the rows
                    // this one holds; nothing claimed from the start means nothing claimable, so the
                    // next claim starts at the first key again
                    cursor.claimed(keys, fromStart);
                }
                T result = work.process(c, keys);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                try {
                    c.rollback();
                } catch (SQLException cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            } finally {
                try {
                    if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                        c.setTransactionIsolation(isolation);
                    }
                    if (autoCommit) {
                        c.setAutoCommit(true);
                    }
                } catch (SQLException broken) {
                    // the connection died with the work; the pool discards it on close
                }
            }
        }
    }

    /**
     * Simulates a killed process: stops heartbeating and closes every lock connection without
     * COMMIT, as the operating system does for a killed process; the server rolls back and frees the
     * rows at once. Held leases are reported lost. For tests and fault injection.
     */
    public void simulateCrash() {
        engine.abandon();
    }

    /**
     * Simulates a frozen client (a paused process, a partitioned host): stops heartbeating and leaves
     * its lock connections open and silent, so the server drops them only at {@code wait_timeout},
     * about one lease after the last heartbeat. Held leases are reported lost. {@link #close()}
     * closes the connections afterwards. For tests and fault injection.
     */
    public void simulateFreeze() {
        driver.freeze();
        engine.abandon();
    }

    /** Releases held leases (COMMIT), stops the provider's threads and closes its own pool. */
    @Override
    public void close() {
        engine.close();
        driver.releaseResources();
    }

    @Override
    public String toString() {
        return "MySqlLockProvider{" + description + ", " + options + '}';
    }

    /** Builder for {@link MySqlLockProvider}. Either {@link #jdbcUrl} or {@link #dataSource}. */
    public static final class Builder {
        private String jdbcUrl;
        private String user;
        private String password;
        private DataSource dataSource;
        private MySqlLockOptions options = MySqlLockOptions.defaults();

        private Builder() {}

        /** A Connector/J URL such as {@code jdbc:mysql://host:3306/db}; the provider opens its own pool. */
        public Builder jdbcUrl(String jdbcUrl) {
            Objects.requireNonNull(jdbcUrl, "jdbcUrl must not be null");
            if (!jdbcUrl.startsWith("jdbc:mysql:") && !jdbcUrl.startsWith("jdbc:mariadb:")) {
                throw new IllegalArgumentException(
                        "jdbcUrl must start with jdbc:mysql: (was '" + UriParameters.redact(jdbcUrl) + "')");
            }
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        public Builder user(String user) {
            this.user = user;
            return this;
        }

        /** The password; never logged, never in messages or {@code toString()}. */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /**
         * Connections come from {@code dataSource} (which the provider does not close). Each held
         * lock and each waiter keeps one of its connections; size it accordingly.
         */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
            return this;
        }

        public Builder options(MySqlLockOptions options) {
            this.options = Objects.requireNonNull(options, "options must not be null");
            return this;
        }

        /** Shortcut for {@code options(options.mutate().lockOptions(lockOptions).build())}. */
        public Builder lockOptions(LockOptions lockOptions) {
            this.options = options.mutate().lockOptions(lockOptions).build();
            return this;
        }

        /**
         * Opens the pool (unless a DataSource was given), creates or checks the schema.
         *
         * @throws io.distlock.LockConfigurationException naming a missing table or privilege
         * @throws BackendUnavailableException if the server cannot be reached
         */
        public MySqlLockProvider build() {
            if (jdbcUrl != null && dataSource != null) {
                throw new IllegalArgumentException("set either jdbcUrl or dataSource, not both");
            }
            return new MySqlLockProvider(this);
        }

        @Override
        public String toString() {
            return "MySqlLockProvider.Builder{url=" + (jdbcUrl == null ? null : UriParameters.redact(jdbcUrl))
                    + ", user=" + user + ", password=" + (password == null ? null : "****") + '}';
        }
    }
}
