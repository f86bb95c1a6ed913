package io.distlock.mysql.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Internal: the {@link LockDriver} of locks held as row locks. A held lock is an open transaction
 * on a dedicated connection that holds the lock's row ({@link HeldRowLock}); the engine's watchdog
 * "renews" it by a heartbeat on that connection, whose session expires after about one lease of
 * silence, so a holder that stops heartbeating is disconnected (and its row lock released by
 * rollback) by the server within about the lease. The database's part is the {@link SqlDialect}.
 *
 * <p>Parts: {@link LockConnections} (where connections come from), {@link WarmConnections}
 * (released connections kept for the next acquisition), {@link TokenAllocator} (fencing tokens),
 * {@link RowLockWaits} (blocking waits and their cancellation), {@link RowLockContender} (one
 * acquisition) and {@link HeldRowLock} (heartbeat and release).
 *
 * <p>The provider's own short statements (heartbeat, token, restoring a released connection's
 * expiry) wait at most {@link #requestTimeoutMillis()} for their answer: the request timeout, and
 * never longer than the renewal interval, because the engine's single watchdog thread runs every
 * lease's heartbeat and one hung connection must not hold up the others for longer than that.
 */
public final class RowLockDriver implements LockDriver {
    private final SqlDialect dialect;
    private final LockConnections connections;
    private final WarmConnections warm;
    private final TokenAllocator tokens;
    private final RowLockWaits waits;
    private final String armExpirySql;
    private final int requestTimeoutMillis;
    private final Map<String, HeldRowLock> held = new ConcurrentHashMap<>();

    private volatile boolean closed;
    private volatile boolean frozen;

    RowLockDriver(LockConnections connections, SqlDialect dialect, LockOptions lockOptions, Duration requestTimeout) {
        this.dialect = dialect;
        this.connections = connections;
        long renewalMillis = (long) (lockOptions.leaseTime().toMillis() * lockOptions.renewalFraction());
        this.requestTimeoutMillis =
                (int) Math.max(100, Math.min(Integer.MAX_VALUE, Math.min(renewalMillis, requestTimeout.toMillis())));
        this.armExpirySql = dialect.armExpirySql(lockOptions.leaseTime());
        this.warm = new WarmConnections(connections, dialect, requestTimeoutMillis);
        this.tokens = new TokenAllocator(connections, dialect, requestTimeoutMillis);
        this.waits = new RowLockWaits(dialect.backend());
        if (connections.ownsDataSource()) {
            waits.every(WarmConnections.SWEEP_NANOS, warm::sweep);
        }
    }

    /**
     * Creates the schema if asked to and checks it.
     *
     * @throws LockConfigurationException naming the missing table or privilege, or the refused login
     * @throws BackendUnavailableException if the server cannot be reached
     */
    void initialize(boolean createSchema) {
        SchemaCheck.run(connections, dialect, createSchema);
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

    String armExpirySql() {
        return armExpirySql;
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
     * What a failed statement means for the caller: a missing privilege is a configuration error
     * (retrying cannot fix it), anything else an outage.
     */
    LockException failure(String what, String lockName, SQLException e) {
        if (dialect.isPrivilegeError(e)) {
            return new LockConfigurationException(
                    what + " on lock '" + lockName + "': the lock user lacks a privilege (it needs "
                            + dialect.requiredPrivileges() + "): " + e.getMessage(),
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
