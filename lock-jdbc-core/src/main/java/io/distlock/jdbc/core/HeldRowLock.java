package io.distlock.jdbc.core;

import io.distlock.BackendUnavailableException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.HeldLock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock held by an open transaction on {@link #connection()} that holds the lock's row. Renewal is
 * a heartbeat that proves the connection (and with it the transaction) is alive, so the server's
 * session expiry does not end it; an extension moves that expiry to the new lease time; release is
 * {@code COMMIT}. Public only so that the provider can hand the connection to the caller.
 */
public final class HeldRowLock implements HeldLock {
    private static final Logger log = LoggerFactory.getLogger(HeldRowLock.class);

    private final RowLockDriver driver;
    private final AcquireContext ctx;
    private final Connection conn;
    private final long token;
    private volatile long validUntil;
    /** The lease time the server's session expiry follows (the handle's, or the latest extension's). */
    private volatile Duration leaseTime;
    /** Whether {@link #leaseTime} is an extension's rather than the handle's own. */
    private volatile boolean extended;

    private volatile boolean broken;
    private volatile boolean rollbackOnRelease;
    /** Whether the wait statement left a setting the caller's statements must not inherit. */
    private boolean undoWaitSettings;

    private boolean done;

    HeldRowLock(
            RowLockDriver driver, AcquireContext ctx, Connection conn, long token, long validUntil, boolean fromWait) {
        this.driver = driver;
        this.ctx = ctx;
        this.conn = conn;
        this.token = token;
        this.validUntil = validUntil;
        this.leaseTime = ctx.leaseTime();
        this.undoWaitSettings = fromWait && driver.dialect().afterWaitSql() != null;
    }

    /** The name of the lock. */
    String lockName() {
        return ctx.lockName();
    }

    /** The connection whose open transaction holds the lock. */
    public Connection connection() {
        return conn;
    }

    /** The server's id of the lock connection's session, or -1 if unknown. */
    public long connectionId() {
        return driver.dialect().connectionId(conn);
    }

    /** Makes {@link #release()} roll back instead of committing the caller's work. */
    public void rollbackOnRelease() {
        rollbackOnRelease = true;
    }

    /**
     * Undoes, once, what a wait statement set for the transaction beyond the expiry (a lock wait
     * limit), before the caller's own statements run on the connection.
     */
    synchronized void prepareForCaller() throws SQLException {
        if (!undoWaitSettings || done || broken) {
            return;
        }
        try (Statement s = conn.createStatement()) {
            s.execute(driver.dialect().afterWaitSql());
        }
        undoWaitSettings = false;
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
        if (!execute(driver.dialect().heartbeatSql(), "heartbeat")) {
            return false;
        }
        validUntil = extended ? ctx.validUntil(sentAt, leaseTime) : ctx.validUntil(sentAt);
        return true;
    }

    /**
     * Moves the server's session expiry to {@code leaseTime} (counted from this request), so that an
     * extension or a delayed release is not cut short by the expiry of the original lease, and a
     * frozen holder still loses the lock about {@code leaseTime} after its last request.
     */
    @Override
    public synchronized boolean extend(Duration leaseTime) {
        if (done || broken) {
            return false;
        }
        long sentAt = ctx.ticker().read();
        if (!execute(driver.dialect().armExpirySql(leaseTime), "extension")) {
            return false;
        }
        this.leaseTime = leaseTime;
        extended = true;
        validUntil = ctx.validUntil(sentAt, leaseTime);
        return true;
    }

    /** Runs one short statement on the lock connection; false (and the lease reported lost) if it failed. */
    private boolean execute(String sql, String what) {
        try (Statement s = conn.createStatement()) {
            // A blackholed connection must not hang the watchdog thread: bound the read; a timeout
            // closes the connection for good.
            int previous = conn.getNetworkTimeout();
            conn.setNetworkTimeout(Runnable::run, driver.requestTimeoutMillis());
            s.execute(sql);
            conn.setNetworkTimeout(Runnable::run, previous);
            return true;
        } catch (SQLException e) {
            // The connection is gone (or unusable): the server rolls back, or will when the
            // session expires. Never reopen it under this lease.
            broken = true;
            log.debug("distlock.jdbc.{}_failed backend={} lock={}", what, driver.backend(), ctx.lockName(), e);
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
        driver.forget(this);
        if (broken) {
            driver.connections().evict(conn);
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
            if (driver.dialect().isSessionEnded(e)) {
                // the connection died: the server rolled back and the lock is already free
                driver.connections().evict(conn);
                return false;
            }
            try {
                // the server refused the COMMIT (a transaction the caller's statements broke): the
                // work is not committed; after the rollback the lock is free
                conn.rollback();
                driver.warm().offer(conn, driver.dialect().armExpirySql(leaseTime));
                log.debug("distlock.jdbc.commit_refused backend={} lock={}", driver.backend(), ctx.lockName(), e);
                return false;
            } catch (SQLException rollbackFailed) {
                e.addSuppressed(rollbackFailed);
            }
            driver.connections().evict(conn);
            throw new BackendUnavailableException(
                    "release failed: " + e.getMessage(), ctx.lockName(), driver.backend(), e);
        }
        // The connection holds nothing now: kept warm for the next acquisition, or back to the pool
        // with the server's default session expiry (or evicted if that fails).
        driver.warm().offer(conn, driver.dialect().armExpirySql(leaseTime));
        return true;
    }

    /** Drops the connection without COMMIT (provider closed or abandoned): the server rolls back. */
    synchronized void abort() {
        if (done) {
            return;
        }
        done = true;
        broken = true;
        driver.dialect().abort(conn);
        driver.connections().evict(conn);
    }
}
