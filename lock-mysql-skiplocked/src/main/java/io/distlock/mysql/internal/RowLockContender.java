package io.distlock.mysql.internal;

import io.distlock.LockNames;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal: one acquisition attempt; keeps one connection for its tries and waits.
 *
 * <ul>
 *   <li>A try locks the row if no other transaction holds it ({@link SqlDialect#claimSql()}); with
 *       no row back, a plain read tells "held by someone" from "no row yet". A missing row is
 *       created in its own short transaction, never inside a locking one (the next client's insert
 *       would wait on that transaction), then claimed.
 *   <li>Once the row is locked: a fencing token (committed on the token connection), and the
 *       session's expiry armed with the lease, unless the connection is a warm one whose expiry
 *       already is.
 *   <li>A wait blocks on the row lock itself ({@link SqlDialect#waitSql()}): the holder's {@code
 *       COMMIT}, or its connection's end, grants it. A wait cancelled at the deadline, on interrupt or
 *       close leaves nothing held.
 * </ul>
 */
final class RowLockContender implements Contender {
    private static final Logger log = LoggerFactory.getLogger(RowLockContender.class);

    private final RowLockDriver driver;
    private final AcquireContext ctx;
    private final String key;
    private Connection conn;
    /** Whether {@link #conn}'s session expiry is already the lease's (a warm connection). */
    private boolean armed;

    private HeldRowLock granted;

    RowLockContender(RowLockDriver driver, AcquireContext ctx) {
        this.driver = driver;
        this.ctx = ctx;
        this.key = LockNames.encode(ctx.lockName());
    }

    @Override
    public Optional<HeldLock> tryAcquire() {
        if (granted != null) {
            HeldRowLock h = granted;
            granted = null;
            return Optional.of(h);
        }
        for (int attempt = 0; ; attempt++) {
            boolean fromWarm = false;
            if (conn == null) {
                conn = driver.warm().take();
                fromWarm = conn != null;
                armed = fromWarm;
                if (conn == null) {
                    conn = driver.connections().borrow(ctx.lockName());
                }
            }
            try {
                return attempt();
            } catch (SQLException e) {
                dropConnection();
                if (fromWarm && attempt == 0 && SqlDialect.isConnectionError(e)) {
                    // a kept connection that died while nothing was held on it: try a fresh one
                    log.debug("distlock.mysql.warm_connection_failed lock={}", ctx.lockName(), e);
                    continue;
                }
                throw driver.failure("acquire failed", ctx.lockName(), e);
            }
        }
    }

    private Optional<HeldLock> attempt() throws SQLException {
        long sentAt = ctx.ticker().read();
        if (select(driver.dialect().claimSql())) {
            return Optional.of(claim(sentAt));
        }
        // No row visible to SKIP LOCKED: either someone holds it, or it does not exist yet.
        if (select(driver.dialect().existsSql())) {
            return Optional.empty();
        }
        conn.rollback();
        try (PreparedStatement ps = conn.prepareStatement(driver.dialect().insertSql())) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
        conn.commit();
        sentAt = ctx.ticker().read();
        if (select(driver.dialect().claimSql())) {
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

    /** The row is locked by our transaction: take a token and arm the server-side expiry. */
    private HeldRowLock claim(long sentAt) throws SQLException {
        long token = driver.tokens().next(key, ctx.lockName());
        if (!armed) {
            try (Statement s = conn.createStatement()) {
                s.execute(driver.armExpirySql());
            }
        }
        HeldRowLock h = new HeldRowLock(driver, ctx, conn, token, ctx.validUntil(sentAt));
        conn = null;
        armed = false;
        driver.remember(h);
        return h;
    }

    @Override
    public void awaitChange(long deadlineNanos) throws InterruptedException {
        if (driver.isClosed()) {
            return;
        }
        if (conn == null) {
            conn = driver.connections().borrow(ctx.lockName());
        }
        Thread waiter = Thread.currentThread();
        PreparedStatement ps;
        try {
            ps = conn.prepareStatement(driver.dialect().waitSql());
            ps.setString(1, key);
        } catch (SQLException e) {
            dropConnection();
            throw driver.failure("wait failed", ctx.lockName(), e);
        }
        RowLockWaits.Outcome outcome = driver.waits()
                .await(
                        ps,
                        Math.min(
                                RowLockWaits.CANCEL_CHECK_NANOS,
                                Math.max(0, Deadlines.remaining(ctx.ticker(), deadlineNanos))),
                        () -> waiter.isInterrupted()
                                || driver.isClosed()
                                || Deadlines.passed(ctx.ticker(), deadlineNanos),
                        ctx.lockName());
        if (driver.isClosed()) {
            // the provider closed under us: the engine reports that; the connection is dropped
            dropConnection();
            return;
        }
        try {
            settle(outcome, waiter);
        } catch (SQLException e) {
            dropConnection();
            throw driver.failure("wait failed", ctx.lockName(), e);
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while waiting for lock '" + ctx.lockName() + "'");
        }
    }

    /** Keeps a granted row lock as {@link #granted}, or leaves the connection holding nothing. */
    private void settle(RowLockWaits.Outcome outcome, Thread waiter) throws SQLException {
        SQLException failure = outcome.failure();
        if (failure != null) {
            if (outcome.cancelled() || driver.dialect().isWaitEnded(failure)) {
                // statement rolled back; the transaction holds nothing
                conn.rollback();
            } else {
                throw failure;
            }
        } else if (outcome.rowReturned()) {
            if (outcome.cancelled() || waiter.isInterrupted() || driver.isClosed()) {
                // granted just as we gave up: give it back
                conn.rollback();
            } else {
                // Our transaction holds the row now; validity counts from the next request.
                granted = claim(ctx.ticker().read());
            }
        } else {
            // the row vanished (deleted by hand): the next try re-creates it
            conn.rollback();
        }
    }

    private void dropConnection() {
        if (conn != null) {
            driver.connections().evict(conn);
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
        if (conn == null) {
            return;
        }
        if (armed) {
            try {
                conn.rollback();
            } catch (SQLException e) {
                dropConnection();
                return;
            }
            driver.warm().offer(conn);
        } else {
            driver.connections().giveBack(conn);
        }
        conn = null;
        armed = false;
    }
}
