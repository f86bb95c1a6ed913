package io.distlock.mysql.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.HeldLock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal: a lock held by an open transaction on {@link #connection()} that holds the lock's row.
 * Renewal is a heartbeat that proves the connection (and with it the transaction) is alive, so the
 * server's session expiry does not end it; release is {@code COMMIT}. Public only so that the
 * provider can hand the connection to the caller.
 */
public final class HeldRowLock implements HeldLock {
    private static final Logger log = LoggerFactory.getLogger(HeldRowLock.class);

    private final RowLockDriver driver;
    private final AcquireContext ctx;
    private final Connection conn;
    private final long token;
    private volatile long validUntil;
    private volatile boolean broken;
    private volatile boolean rollbackOnRelease;
    private boolean done;

    HeldRowLock(RowLockDriver driver, AcquireContext ctx, Connection conn, long token, long validUntil) {
        this.driver = driver;
        this.ctx = ctx;
        this.conn = conn;
        this.token = token;
        this.validUntil = validUntil;
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
            // A blackholed connection must not hang the heartbeat (and the watchdog thread): bound
            // the read; a timeout closes the connection for good.
            int previous = conn.getNetworkTimeout();
            conn.setNetworkTimeout(Runnable::run, driver.requestTimeoutMillis());
            s.execute(driver.dialect().heartbeatSql());
            conn.setNetworkTimeout(Runnable::run, previous);
            validUntil = ctx.validUntil(sentAt);
            return true;
        } catch (SQLException e) {
            // The connection is gone (or unusable): the server rolls back, or will when the
            // session expires. Never reopen it under this lease.
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
            driver.connections().evict(conn);
            if (SqlDialect.isConnectionError(e)) {
                // the connection died: the server rolled back and the lock is already free
                return false;
            }
            throw new BackendUnavailableException(
                    "release failed: " + e.getMessage(),
                    ctx.lockName(),
                    driver.dialect().backend(),
                    e);
        }
        // The connection holds nothing now: kept warm for the next acquisition, or back to the pool
        // with the server's default session expiry (or evicted if that fails).
        driver.warm().offer(conn);
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
