package io.distlock.jdbc.core;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.spi.LockEngine;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The caller's own statements in a row lock's transaction ({@code connection(lease)}, {@code
 * withLockedConnection}) and in a claim's transaction ({@code claimRows}), for a provider built on
 * {@code engine} and {@code driver}. The providers' public methods delegate here.
 */
public final class LeaseWork {

    /** Statements run on a connection. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** The statement that claims rows and returns their keys, on the claim's connection. */
    @FunctionalInterface
    public interface Claim {
        List<Object> keys(Connection connection) throws SQLException;
    }

    /** Work on claimed rows, in the transaction that holds them. */
    @FunctionalInterface
    public interface ClaimWork<T> {
        T process(Connection connection, List<Object> keys) throws SQLException;
    }

    private final LockEngine engine;
    private final RowLockDriver driver;

    public LeaseWork(LockEngine engine, RowLockDriver driver) {
        this.engine = engine;
        this.driver = driver;
    }

    /**
     * The connection whose open transaction holds {@code lease}'s lock.
     *
     * @throws IllegalArgumentException if {@code lease} was not acquired through this provider
     * @throws LeaseLostException if the lease is no longer valid
     */
    public Connection connection(Lease lease) {
        return heldFor(lease).connection();
    }

    /** The server's id of {@code lease}'s lock connection. */
    public long connectionId(Lease lease) {
        return heldFor(lease).connectionId();
    }

    private HeldRowLock heldFor(Lease lease) {
        Objects.requireNonNull(lease, "lease must not be null");
        if (!engine.heldLeases().contains(lease)) {
            throw new IllegalArgumentException(
                    "lease for lock '" + lease.lockName() + "' was not acquired through this provider or is released");
        }
        lease.checkValid();
        HeldRowLock h = driver.held(lease.lockName())
                .filter(x -> x.fencingToken().equals(lease.fencingToken()))
                .orElseThrow(
                        () -> new LeaseLostException("lock connection is gone", lease.lockName(), driver.backend()));
        // Work done on the connection must not commit once the lease is lost (validity passed,
        // maxHoldTime reached, provider closed): the release then rolls back. lost() completes
        // before the engine's own release runs, on the thread that marks the loss.
        lease.lost().thenRun(h::rollbackOnRelease);
        try {
            h.prepareForCaller();
        } catch (SQLException e) {
            throw new LeaseLostException(
                    "lock connection failed: " + e.getMessage(), lease.lockName(), driver.backend(), e);
        }
        return h;
    }

    /**
     * Acquires {@code name} (waiting at most {@code maxWait}), runs {@code work} on the lock's
     * connection, then releases: the work and the release commit together. If {@code work} throws,
     * its changes are rolled back and the lock released.
     *
     * @return the work's result, or empty if the lock could not be acquired within {@code maxWait}
     * @throws LeaseLostException if the lease was lost before the commit (the work was rolled back)
     */
    public <T> Optional<T> withLockedConnection(String name, Duration maxWait, Work<T> work)
            throws SQLException, InterruptedException {
        Objects.requireNonNull(work, "work must not be null");
        Optional<Lease> maybe = engine.lock(name).tryAcquire(maxWait);
        if (maybe.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = maybe.get();
        HeldRowLock h;
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
                    "lease was lost before the commit; the work may not have been committed", name, driver.backend());
        }
        return Optional.ofNullable(result);
    }

    /**
     * The transaction of one {@code claimRows} call: claim the rows, run {@code work} on them,
     * commit; roll back if the work throws. On a pooled connection of its own, in {@code READ
     * COMMITTED} (under {@code REPEATABLE READ}, {@code SKIP LOCKED} with {@code LIMIT} may take
     * next-key locks and concurrent claimers deadlock on each other's updates); the connection's
     * autocommit and isolation are restored afterwards.
     */
    public <T> T claimRows(Claim claim, ClaimWork<T> work) throws SQLException {
        Objects.requireNonNull(work, "work must not be null");
        try (Connection c = driver.connection()) {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            int isolation = c.getTransactionIsolation();
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            try {
                T result = work.process(c, claim.keys(c));
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
}
