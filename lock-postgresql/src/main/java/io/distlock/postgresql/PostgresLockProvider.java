package io.distlock.postgresql;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.ConnectionPoolMetrics;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.jdbc.core.JdbcAddress;
import io.distlock.jdbc.core.LeaseWork;
import io.distlock.jdbc.core.RowClaimer;
import io.distlock.jdbc.core.RowLockDriver;
import io.distlock.postgresql.internal.PostgresDrivers;
import io.distlock.spi.FaultHooks;
import io.distlock.spi.LockEngine;
import io.distlock.spi.UriParameters;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Locks on PostgreSQL 12+ ({@code postgresql://}) held as row locks: a lock is a row of the lock
 * table, and its holder keeps that row locked ({@code SELECT ... FOR UPDATE SKIP LOCKED}) in a
 * transaction that stays open on a dedicated connection for the life of the lease. Release is
 * {@code COMMIT}.
 *
 * <h2>Guarantees and limits</h2>
 *
 * <ul>
 *   <li><b>Mutual exclusion</b> is PostgreSQL's row lock: while the holder's transaction is open no
 *       one else can lock the row. If the holder's process dies its TCP connection closes and the
 *       server rolls back at once; the lock is free immediately.
 *   <li><b>Paused or partitioned holders</b> (GC pause, SIGSTOP, network cut): the lock's
 *       transaction carries {@code idle_in_transaction_session_timeout} = the lease time (set by the
 *       statement that locks the row, for that transaction only, with millisecond precision); the
 *       engine's watchdog sends a heartbeat ({@code SELECT 1}) every {@code leaseTime *
 *       renewalFraction}. A holder that falls silent is disconnected by the server, and its row lock
 *       released, one lease after its last request ended; its lease is reported lost on the client
 *       by then (it is never reported valid past {@code lastHeartbeatSent + leaseTime -
 *       safetyMargin}). A lost connection is never reopened under a held lease.
 *   <li><b>Lease control</b> is kept by the client ({@link Capabilities.LeaseTiming#CLIENT}): {@link
 *       Lease#extend} moves the transaction's idle limit to the new lease time, so nothing on the
 *       server ends the hold early; a lease that runs out without renewal is rolled back by the
 *       provider at once.
 *   <li><b>Fencing tokens</b> come from a sequence, floored at the server's clock: {@code
 *       max(nextval(<table>_token), server time in µs)} in one statement, committed on its own
 *       connection once the row lock is held (a sequence value is never rolled back). Strictly
 *       increasing across holders of all locks of the table, including after a holder's rollback, a
 *       server restart or crash, a restore from a backup and a restart without data (the clock floor
 *       lies above every token handed out before), as long as the server's clock does not step back
 *       by more than the time since; when it steps back, tokens continue from the sequence.
 *   <li><b>Server restart or failover</b> drops every row lock at once; a holder learns it at its next
 *       heartbeat, so another client may acquire while the old holder still believes it holds the
 *       lock for up to one heartbeat interval ({@link Capabilities.Failover#MAY_GRANT_TWICE}). Guard
 *       writes with the fencing token, or do them in the lock's own transaction ({@link
 *       #connection(Lease)}).
 *   <li><b>Waiting</b> blocks on the row lock itself (no polling), bounded by {@code lock_timeout}:
 *       the holder's COMMIT wakes one waiter. Not FIFO. A waiter keeps one pooled connection while it
 *       waits.
 *   <li><b>Names</b> are stored as they are, in a {@code text COLLATE "C"} column: byte-exact, so
 *       names that differ in case, trailing spaces or Unicode normalisation are different locks.
 *   <li><b>Errors</b>: a refused login (wrong password, a pg_hba.conf rule, a database the role may
 *       not connect to), a server certificate the trust does not accept and a missing privilege on
 *       the table or sequence are a {@link io.distlock.LockConfigurationException} at once, never
 *       retried; an unreachable or failing server is a {@link BackendUnavailableException}, retried
 *       within a {@code tryAcquire(maxWait)}.
 * </ul>
 *
 * <p>Pool sizing: one connection per held lock, per waiter and per {@link #claimRows} call (see
 * {@link PostgresLockOptions}).
 *
 * <h2>Work in the lock's transaction</h2>
 *
 * {@link #connection(Lease)} returns the lock's connection (autocommit off); writes made on it
 * commit with the release, atomically with giving up the lock, or roll back if the holder dies. The
 * trade-off: a long hold is a long transaction (one pooled connection, row locks and the oldest
 * snapshot kept for its duration, which holds back vacuum). An error in your statements aborts the
 * whole transaction and with it the lock: treat any {@link SQLException} on that connection as the
 * end of the lease ({@link #withLockedConnection} does).
 *
 * <pre>{@code
 * try (PostgresLockProvider locks = PostgresLockProvider.builder()
 *         .jdbcUrl("jdbc:postgresql://db:5432/app")
 *         .options(PostgresLockOptions.builder().credentials(Credentials.of("app", secret)).createSchema(true).build())
 *         .leaseTime(Duration.ofSeconds(10))
 *         .build()) {
 *     locks.withLockedConnection("nightly-report", Duration.ofSeconds(5), c -> {
 *         // statements on c commit together with the release
 *         return null;
 *     });
 * }
 * }</pre>
 */
public final class PostgresLockProvider implements LockProvider {
    private static final String BACKEND = "postgresql";

    private final LockEngine engine;
    private final RowLockDriver driver;
    private final LeaseWork work;
    private final PostgresLockOptions options;
    private final String description;
    private final FaultHooks faultHooks;
    private final Runnable onClose;

    private PostgresLockProvider(Builder b) {
        this.options = b.options;
        this.description = b.dataSource != null
                ? "dataSource=" + b.dataSource.getClass().getName()
                : "url=" + UriParameters.redact(b.jdbcUrl);
        PostgresDrivers.Opened opened = PostgresDrivers.open(b.jdbcUrl, b.dataSource, b.options, b.lockOptions);
        this.driver = opened.driver();
        this.onClose = opened.onClose();
        this.engine = LockEngine.create(driver, b.lockOptions);
        this.work = new LeaseWork(engine, driver);
        this.faultHooks = driver.faultHooks(engine);
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

    /** The backend options this provider runs with. */
    public PostgresLockOptions options() {
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
        return work.connection(lease);
    }

    /** The server's process id of {@code lease}'s lock connection ({@code pg_backend_pid()}), for tests. */
    long connectionId(Lease lease) {
        return work.connectionId(lease);
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
        return this.work.withLockedConnection(name, maxWait, work::run);
    }

    /**
     * Claims up to {@code limit} rows of {@code table} whose columns equal {@code where}'s values
     * ({@code null} means {@code IS NULL}) with {@code SELECT keyColumn ... ORDER BY keyColumn LIMIT
     * limit FOR UPDATE SKIP LOCKED}: rows locked by other transactions are skipped, never waited on.
     * Then runs {@code work} in the same transaction and commits; if {@code work} throws, rolls back
     * (the rows become claimable again). Uses a pooled connection for the duration, in {@code READ
     * COMMITTED}.
     *
     * <p>Two claims never hold the same row, and an empty result means no matching row was
     * claimable when the call ran. Values in {@code where} are bound as parameters; identifiers are
     * checked and named unquoted (PostgreSQL folds them to lower case).
     *
     * @param table your table; identifiers must match {@code [A-Za-z_][A-Za-z0-9_]{0,63}}
     * @throws IllegalArgumentException for a bad identifier or a limit outside 1..100000
     */
    public <T> T claimRows(String table, String keyColumn, Map<String, ?> where, int limit, ClaimWork<T> work)
            throws SQLException {
        Objects.requireNonNull(work, "work must not be null");
        RowClaimer claimer = new RowClaimer(table, keyColumn, where, limit);
        return this.work.claimRows(claimer::claim, work::process);
    }

    /**
     * Offers {@link FaultHooks}: {@code simulateCrash()} stops heartbeating and closes every lock
     * connection without COMMIT, as the operating system does for a killed process (the server
     * rolls back and frees the rows at once); {@code simulateFreeze()} stops heartbeating and leaves
     * the lock connections open and silent, as a paused process or a partitioned host would (the
     * server ends them at {@code idle_in_transaction_session_timeout}, one lease after the last
     * request; {@link #close()} closes them afterwards). Either reports the held leases lost and
     * leaves the provider unusable. For tests and fault injection.
     *
     * <p>Also offers {@link ConnectionPoolMetrics}: how many pooled connections hold locks, are in use,
     * and the pool's size (lock-micrometer's {@code MicrometerPoolMetrics} makes gauges of them).
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type == FaultHooks.class) {
            return Optional.of(type.cast(faultHooks));
        }
        if (type == ConnectionPoolMetrics.class) {
            return Optional.of(type.cast(driver.poolMetrics()));
        }
        return LockProvider.super.unwrap(type);
    }

    /** Releases held leases (COMMIT), stops the provider's threads and closes its own pool. */
    @Override
    public void close() {
        try {
            engine.close();
            driver.releaseResources();
        } finally {
            onClose.run();
        }
    }

    @Override
    public String toString() {
        return "PostgresLockProvider{" + description + ", " + options + '}';
    }

    /**
     * Builder for {@link PostgresLockProvider}: where the server is ({@link #jdbcUrl} or {@link
     * #dataSource}), the backend {@link #options}, and the common {@link #lockOptions}.
     */
    public static final class Builder {
        private String jdbcUrl;
        private DataSource dataSource;
        private PostgresLockOptions options = PostgresLockOptions.defaults();
        private LockOptions lockOptions = LockOptions.defaults();

        private Builder() {}

        /**
         * A PostgreSQL JDBC URL such as {@code jdbc:postgresql://host:5432/db}; the provider opens its
         * own pool with the options' credentials, TLS, timeouts and size.
         */
        public Builder jdbcUrl(String jdbcUrl) {
            JdbcAddress.checkJdbcUrl(jdbcUrl, "jdbc:postgresql:");
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        /**
         * Connections come from {@code dataSource} (which the provider does not close, and whose own
         * settings apply: the options' credentials and TLS must not be set). Each held lock and each
         * waiter keeps one of its connections; size it accordingly.
         */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource must not be null");
            return this;
        }

        /** Backend options (default {@link PostgresLockOptions#defaults()}). */
        public Builder options(PostgresLockOptions options) {
            this.options = Objects.requireNonNull(options, "options must not be null");
            return this;
        }

        /** Lease settings (default {@link LockOptions#defaults()}). */
        public Builder lockOptions(LockOptions lockOptions) {
            this.lockOptions = Objects.requireNonNull(lockOptions, "lockOptions must not be null");
            return this;
        }

        /** Shortcut for {@code lockOptions(lockOptions.mutate().leaseTime(leaseTime).build())}. */
        public Builder leaseTime(Duration leaseTime) {
            this.lockOptions = lockOptions.mutate().leaseTime(leaseTime).build();
            return this;
        }

        /**
         * Opens the pool (unless a DataSource was given), checks the server and creates or checks the
         * schema.
         *
         * @throws IllegalArgumentException if neither or both of {@code jdbcUrl} and {@code
         *     dataSource} are set, if credentials or TLS are set with a {@code dataSource}, if the
         *     {@code jdbcUrl} configures TLS while the options' TLS is on, or the trust store cannot be
         *     read
         * @throws io.distlock.LockConfigurationException for a refused login, an untrusted server
         *     certificate, a missing table, sequence or privilege, a server older than 12 or a
         *     database not in UTF8
         * @throws BackendUnavailableException if the server cannot be reached
         */
        public PostgresLockProvider build() {
            JdbcAddress.checkOneSource(jdbcUrl, dataSource, options.credentials(), options.tls());
            return new PostgresLockProvider(this);
        }

        /** Never shows a password. */
        @Override
        public String toString() {
            return "PostgresLockProvider.Builder{url=" + (jdbcUrl == null ? null : UriParameters.redact(jdbcUrl)) + ", "
                    + options + ", " + lockOptions + '}';
        }
    }
}
