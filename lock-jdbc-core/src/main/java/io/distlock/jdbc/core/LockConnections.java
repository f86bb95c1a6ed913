package io.distlock.jdbc.core;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.PoolExhaustedException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the provider's connections come from and go back to, from the provider's own
 * HikariCP pool or a caller's {@link DataSource}.
 *
 * <ul>
 *   <li>A lock connection runs with autocommit off (its open transaction is the lock); a connection
 *       this class switched is switched back before it returns to the pool.
 *   <li>A refused login (wrong password, an account that must use TLS, an untrusted server
 *       certificate) is a {@link LockConfigurationException} within about one round trip: the wait
 *       for a connection of the own pool is taken in short slices, and each slice that ends without
 *       one looks at the pool's last failure to open a connection. A server that cannot be reached
 *       is waited for up to the pool's wait timeout, then {@link BackendUnavailableException}.
 *   <li>Every connection of the own pool in use (held locks, waiters, claims, the token connection)
 *       is not an outage: a caller that may not wait ({@code tryAcquire()}) gets a {@link
 *       PoolExhaustedException} at once, one that may wait gets it when its wait (at most the pool's
 *       wait timeout) is spent waiting for a connection.
 *   <li>A connection that failed or may hold something is evicted (its socket closed), never
 *       returned.
 * </ul>
 */
public final class LockConnections {
    private static final Logger log = LoggerFactory.getLogger(LockConnections.class);
    private static final AtomicInteger POOLS = new AtomicInteger();
    /** How often a wait for a pooled connection checks whether the server refused the last login. */
    private static final long REFUSAL_CHECK_MILLIS = 50;

    private final DataSource dataSource;
    private final boolean ownsDataSource;
    private final SqlDialect dialect;
    private final int poolSize;
    /** Connections this class switched to autocommit off, to switch back before they return to the pool. */
    private final Set<Connection> switchedAutoCommit = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;
    private volatile Runnable reclaim = () -> {};
    private volatile IntSupplier heldLocks = () -> 0;

    /**
     * @param ownsDataSource whether {@link #close()} closes {@code dataSource} (a pool the provider
     *     opened itself)
     * @param poolSize the pool's size, for messages
     */
    public LockConnections(DataSource dataSource, boolean ownsDataSource, SqlDialect dialect, int poolSize) {
        this.dataSource = dataSource;
        this.ownsDataSource = ownsDataSource;
        this.dialect = dialect;
        this.poolSize = poolSize;
    }

    /**
     * Opens the provider's own pool: {@code poolSize} connections at most, opened when a borrower
     * finds none idle and never in the background ({@code minimumIdle} 0: the only traffic while
     * locks are held is their heartbeats), kept idle for HikariCP's {@code idleTimeout}; autocommit
     * off; {@code READ COMMITTED}, so that lock rows and claims take no gap locks. Named {@code
     * distlock-<backend>-pool-N}.
     */
    public static HikariDataSource openPool(
            String backend,
            String jdbcUrl,
            Credentials credentials,
            int poolSize,
            Duration waitTimeout,
            Properties driverProperties) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("distlock-" + backend + "-pool-" + POOLS.incrementAndGet());
        config.setJdbcUrl(jdbcUrl);
        if (credentials != null) {
            credentials.user().ifPresent(config::setUsername);
            config.setPassword(credentials.password());
        }
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        config.setAutoCommit(false);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        config.setConnectionTimeout(waitTimeout.toMillis());
        config.setInitializationFailTimeout(-1);
        config.setDataSourceProperties(driverProperties);
        return new HikariDataSource(config);
    }

    /** Whether the connections come from the provider's own pool. */
    boolean ownsDataSource() {
        return ownsDataSource;
    }

    /**
     * What the pool's exhaustion does: {@code reclaim} gives back connections the provider keeps
     * without a lock on them (warm connections), {@code heldLocks} counts the connections that hold
     * locks, for the message.
     */
    void onExhaustion(Runnable reclaim, IntSupplier heldLocks) {
        this.reclaim = reclaim;
        this.heldLocks = heldLocks;
    }

    /**
     * A connection of the data source as it comes (its autocommit unchanged), waiting for one held by
     * someone else at most the pool's wait timeout.
     *
     * @throws LockConfigurationException if the server refused the login
     * @throws PoolExhaustedException if every connection of the own pool stayed in use that long
     * @throws SQLException if none came within the pool's wait timeout or the data source failed
     */
    Connection get() throws SQLException {
        return get(null, Long.MAX_VALUE);
    }

    /**
     * Like {@link #get()}, but waits for a connection held by someone else (the own pool exhausted)
     * at most {@code budgetNanos}, or the pool's wait timeout if that is shorter; with a budget of 0
     * an exhausted pool fails at once, without waiting.
     */
    private Connection get(String lockName, long budgetNanos) throws SQLException {
        try {
            return getOrTimeout(lockName, budgetNanos);
        } catch (SQLException e) {
            LockConfigurationException refused = dialect.refusal(e);
            if (refused != null) {
                throw refused;
            }
            throw e;
        }
    }

    private Connection getOrTimeout(String lockName, long budgetNanos) throws SQLException {
        if (!(dataSource instanceof HikariDataSource hikari)
                || !(hikari.getHikariPoolMXBean() instanceof HikariPool pool)
                || hikari.isClosed()) {
            return dataSource.getConnection();
        }
        long waitMillis = hikari.getConnectionTimeout();
        long start = System.nanoTime();
        // while the server cannot give a new connection: the pool's wait timeout
        long waitEnd = start + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        // while every connection is in use: the caller's budget, at most the pool's wait timeout
        long budgetEnd = start + Math.min(budgetNanos, TimeUnit.MILLISECONDS.toNanos(waitMillis));
        while (true) {
            boolean exhausted = exhausted(hikari);
            if (exhausted) {
                reclaim.run();
                exhausted = exhausted(hikari);
            }
            long now = System.nanoTime();
            if (exhausted && now - budgetEnd >= 0) {
                throw exhaustedError(lockName, hikari);
            }
            long until = exhausted ? budgetEnd : waitEnd;
            long remaining = Math.max(0, TimeUnit.NANOSECONDS.toMillis(until - now));
            try {
                return pool.getConnection(Math.min(REFUSAL_CHECK_MILLIS, remaining));
            } catch (SQLTransientConnectionException timedOut) {
                // the slice's timeout names the pool's last failure to open a connection as its cause
                if (dialect.refusal(timedOut) != null) {
                    throw timedOut;
                }
                if (!exhausted(hikari) && System.nanoTime() - waitEnd >= 0) {
                    throw new SQLTransientConnectionException(
                            "no pooled connection within " + waitMillis + " ms (" + timedOut.getMessage() + ")",
                            timedOut.getSQLState(),
                            timedOut);
                }
            }
        }
    }

    /** Whether every connection of the pool is borrowed (it cannot open another). */
    private static boolean exhausted(HikariDataSource hikari) {
        com.zaxxer.hikari.HikariPoolMXBean pool = hikari.getHikariPoolMXBean();
        return pool != null && pool.getActiveConnections() >= hikari.getMaximumPoolSize();
    }

    private PoolExhaustedException exhaustedError(String lockName, HikariDataSource hikari) {
        int size = hikari.getMaximumPoolSize();
        int held = heldLocks.getAsInt();
        return new PoolExhaustedException(
                "every connection of the provider's pool is in use (poolSize " + size + ": " + held
                        + " hold locks, the others wait for locks, run claims or allocate tokens); each held lock"
                        + " and each waiting thread keeps one connection: raise poolSize, or hold and wait for"
                        + " fewer locks at once (a tryAcquire() does not wait for a connection; tryAcquire(maxWait)"
                        + " waits at most maxWait)",
                lockName,
                dialect.backend(),
                size,
                null);
    }

    /**
     * A connection for a lock, autocommit off, waiting for one held by someone else (the own pool
     * exhausted) at most {@code budgetNanos} ({@code Long.MAX_VALUE}: the pool's wait timeout).
     *
     * @throws IllegalStateException if closed
     * @throws LockConfigurationException if the server refused the login
     * @throws PoolExhaustedException if every connection of the own pool stayed in use for the budget
     * @throws BackendUnavailableException if no connection came within the pool's wait timeout
     */
    Connection borrow(String lockName, long budgetNanos) {
        if (closed) {
            throw new IllegalStateException(
                    "provider is closed (lock '" + lockName + "', backend " + dialect.backend() + ")");
        }
        try {
            Connection c = get(lockName, budgetNanos);
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
            throw new BackendUnavailableException(
                    "no lock connection (pool size " + poolSize + ": one connection per held lock and per waiter): "
                            + e.getMessage(),
                    lockName,
                    dialect.backend(),
                    e);
        }
    }

    /**
     * The pool's numbers for {@link io.distlock.ConnectionPoolMetrics}: in use, maximum size,
     * threads waiting; empty when the data source is not a HikariCP pool.
     */
    OptionalInt inUse() {
        return hikariNumber(p -> p.getActiveConnections());
    }

    OptionalInt maximumSize() {
        return dataSource instanceof HikariDataSource hikari
                ? OptionalInt.of(hikari.getMaximumPoolSize())
                : OptionalInt.empty();
    }

    OptionalInt waiting() {
        return hikariNumber(p -> p.getThreadsAwaitingConnection());
    }

    private OptionalInt hikariNumber(java.util.function.ToIntFunction<com.zaxxer.hikari.HikariPoolMXBean> f) {
        if (dataSource instanceof HikariDataSource hikari && hikari.getHikariPoolMXBean() != null) {
            return OptionalInt.of(f.applyAsInt(hikari.getHikariPoolMXBean()));
        }
        return OptionalInt.empty();
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

    /** Switches {@code c} back to autocommit if {@link #borrow} switched it off. */
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
                log.debug("distlock.jdbc.evict_failed backend={}", dialect.backend(), e);
            }
        }
        dialect.abort(c);
        closeQuietly(c);
    }

    /** Whether a thread waits for a connection of the own pool. */
    boolean someoneWaits() {
        if (dataSource instanceof HikariDataSource) {
            com.zaxxer.hikari.HikariPoolMXBean pool = ((HikariDataSource) dataSource).getHikariPoolMXBean();
            return pool != null && pool.getThreadsAwaitingConnection() > 0;
        }
        return false;
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("distlock.jdbc.close_failed", e);
        }
    }

    /** No more borrowing; closes the own pool. Idempotent. */
    void close() {
        closed = true;
        if (ownsDataSource && dataSource instanceof HikariDataSource) {
            ((HikariDataSource) dataSource).close();
        }
    }

    /** Stops borrowing without closing the pool (the provider is closing or abandoned). */
    void stopBorrowing() {
        closed = true;
    }
}
