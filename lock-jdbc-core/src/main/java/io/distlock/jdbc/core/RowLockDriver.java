package io.distlock.jdbc.core;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.ConnectionPoolMetrics;
import io.distlock.LockConfigurationException;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.FaultHooks;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockEngine;
import io.distlock.spi.RenewalMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link LockDriver} of locks held as row locks. A held lock is an open transaction on a
 * dedicated connection that holds the lock's row ({@link HeldRowLock}); the engine's watchdog
 * "renews" it by a heartbeat on that connection, whose session expires after about one lease of
 * silence, so a holder that stops heartbeating is disconnected (and its row lock released by
 * rollback) by the server within about the lease. The database's part is the {@link SqlDialect}.
 *
 * <p>Parts: {@link LockConnections} (where connections come from), {@link WarmConnections}
 * (released connections kept for the next acquisition), {@link TokenAllocator} (fencing tokens),
 * {@link RowLockWaits} (blocking waits and their cancellation), {@link RowLockContender} (one
 * acquisition) and {@link HeldRowLock} (heartbeat, extension, release).
 *
 * <p>The provider's own short statements (heartbeat, token, extension, restoring a released
 * connection's expiry) wait at most {@link #requestTimeoutMillis()} for their answer: the request
 * timeout, and never longer than the renewal interval, because the engine's single watchdog thread
 * runs every lease's heartbeat and one hung connection must not hold up the others for longer than
 * that.
 */
public final class RowLockDriver implements LockDriver {
    private final SqlDialect dialect;
    private final LockConnections connections;
    private final WarmConnections warm;
    private final TokenAllocator tokens;
    private final RowLockWaits waits;
    private final int requestTimeoutMillis;
    private final Map<String, HeldRowLock> held = new ConcurrentHashMap<>();

    private volatile boolean closed;
    private volatile boolean frozen;

    private RowLockDriver(
            LockConnections connections, SqlDialect dialect, LockOptions lockOptions, Duration requestTimeout) {
        this.dialect = dialect;
        this.connections = connections;
        long renewalMillis = (long) (lockOptions.leaseTime().toMillis() * lockOptions.renewalFraction());
        this.requestTimeoutMillis =
                (int) Math.max(100, Math.min(Integer.MAX_VALUE, Math.min(renewalMillis, requestTimeout.toMillis())));
        this.warm = new WarmConnections(connections, dialect, requestTimeoutMillis);
        this.tokens = new TokenAllocator(connections, dialect, requestTimeoutMillis);
        this.waits = new RowLockWaits(dialect.backend());
        if (connections.ownsDataSource() && !dialect.claimArmsExpiry()) {
            waits.every(WarmConnections.SWEEP_NANOS, warm::sweep);
        }
        connections.onExhaustion(warm::giveBackAll, held::size);
    }

    /**
     * A driver over {@code connections}, with the schema created if asked to and checked.
     *
     * @param requestTimeout bound of the provider's own short statements (at most the renewal
     *     interval of {@code lockOptions} is used)
     * @throws LockConfigurationException naming a missing table or privilege, or the refused login
     * @throws BackendUnavailableException if the server cannot be reached
     */
    public static RowLockDriver open(
            LockConnections connections,
            SqlDialect dialect,
            LockOptions lockOptions,
            Duration requestTimeout,
            boolean createSchema) {
        RowLockDriver driver = new RowLockDriver(connections, dialect, lockOptions, requestTimeout);
        try {
            SchemaCheck.run(connections, dialect, createSchema);
        } catch (RuntimeException e) {
            driver.close();
            throw e;
        }
        return driver;
    }

    @Override
    public String backend() {
        return dialect.backend();
    }

    @Override
    public Capabilities capabilities() {
        return dialect.capabilities();
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.WATCHDOG;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new RowLockContender(this, ctx);
    }

    /** The held lock of {@code lockName} acquired through this driver, if any. */
    public Optional<HeldRowLock> held(String lockName) {
        return Optional.ofNullable(held.get(lockName));
    }

    /**
     * A connection for the caller's own transaction (autocommit as the source gives it).
     *
     * @throws LockConfigurationException if the server refused the login
     */
    public Connection connection() throws SQLException {
        return connections.get();
    }

    /**
     * The {@link FaultHooks} of a provider built on {@code engine} and this driver: {@code
     * simulateCrash()} stops heartbeating and closes every lock connection without COMMIT, as the
     * operating system does for a killed process; {@code simulateFreeze()} stops heartbeating and
     * leaves the lock connections open and silent, as a paused process or a partitioned host would
     * (the server ends them when their session expires).
     */
    public FaultHooks faultHooks(LockEngine engine) {
        return new FaultHooks() {
            @Override
            public void simulateCrash() {
                engine.abandon();
            }

            @Override
            public void simulateFreeze() {
                freeze();
                engine.abandon();
            }
        };
    }

    /**
     * How this driver uses its pool: connections holding locks, and the pool's own numbers when it
     * is a HikariCP pool (the provider's own, or a caller's).
     */
    public ConnectionPoolMetrics poolMetrics() {
        return new ConnectionPoolMetrics() {
            @Override
            public int heldLockConnections() {
                return held.size();
            }

            @Override
            public OptionalInt connectionsInUse() {
                return connections.inUse();
            }

            @Override
            public OptionalInt poolSize() {
                return connections.maximumSize();
            }

            @Override
            public OptionalInt threadsWaiting() {
                return connections.waiting();
            }

            @Override
            public String toString() {
                return "ConnectionPoolMetrics{heldLockConnections=" + heldLockConnections() + ", connectionsInUse="
                        + connectionsInUse() + ", poolSize=" + poolSize() + ", threadsWaiting=" + threadsWaiting()
                        + '}';
            }
        };
    }

    SqlDialect dialect() {
        return dialect;
    }

    LockConnections connections() {
        return connections;
    }

    WarmConnections warm() {
        return warm;
    }

    TokenAllocator tokens() {
        return tokens;
    }

    RowLockWaits waits() {
        return waits;
    }

    int requestTimeoutMillis() {
        return requestTimeoutMillis;
    }

    boolean isClosed() {
        return closed;
    }

    void remember(HeldRowLock h) {
        held.put(h.lockName(), h);
    }

    void forget(HeldRowLock h) {
        held.remove(h.lockName(), h);
    }

    /**
     * What a failed statement means for the caller: a missing privilege, or a pooler between client
     * and server that cannot carry the lock's transaction, is a configuration error (retrying cannot
     * fix it), anything else an outage.
     */
    LockException failure(String what, String lockName, SQLException e) {
        LockConfigurationException misconfigured = dialect.misconfiguration(e);
        if (misconfigured != null) {
            return misconfigured;
        }
        if (dialect.isPrivilegeError(e)) {
            return new LockConfigurationException(
                    what + " on lock '" + lockName + "': the lock user lacks a privilege (it needs "
                            + dialect.requiredPrivileges() + "): " + e.getMessage() + " (SQLState "
                            + e.getSQLState() + ")",
                    dialect.backend(),
                    e);
        }
        return new BackendUnavailableException(what + ": " + e.getMessage(), lockName, dialect.backend(), e);
    }

    @Override
    public void close() {
        closed = true;
        connections.stopBorrowing();
        warm.stop();
        tokens.stop();
        waits.close();
        if (!frozen) {
            releaseResources();
        }
    }

    /**
     * Makes the next {@link #close()} leave held lock connections open and silent (no heartbeat,
     * no COMMIT, no socket close), as a paused process or a partitioned host would: the server drops
     * them when their session expires. {@link #releaseResources()} closes them later.
     */
    public void freeze() {
        frozen = true;
    }

    /**
     * Drops held lock connections without COMMIT (the server rolls back and frees the rows at once,
     * as for a killed process), closes the token connection and the provider's own pool. Idempotent.
     */
    public void releaseResources() {
        for (HeldRowLock h : held.values()) {
            h.abort();
        }
        held.clear();
        warm.close(frozen);
        tokens.close();
        connections.close();
    }
}
