package io.distlock.jdbc.core;

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
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition attempt; keeps one connection for its tries and waits.
 *
 * <ul>
 *   <li>A try locks the row if no other transaction holds it ({@link SqlDialect#claimSql()}); with
 *       no row back, a plain read tells "held by someone" from "no row yet". A missing row is
 *       created in its own short transaction, never inside a locking one (the next client's insert
 *       would wait on that transaction), then claimed.
 *   <li>Once the row is locked: a fencing token (drawn by the locking statement itself, or
 *       committed on the token connection), and the session's expiry armed with the lease, unless
 *       the claim armed it itself or the connection is a warm one whose expiry already is the
 *       lease's.
 *   <li>A wait blocks on the row lock itself ({@link SqlDialect#waitSql()}): the holder's {@code
 *       COMMIT}, or its connection's end, grants it. A wait that ends at the deadline, on interrupt
 *       or close leaves nothing held.
 *   <li>A lock granted by a wait is valid from the moment the wait statement was sent, the last
 *       moment the client knows to lie before the server's idle limit started (when the statement
 *       answered): a holder paused between the server's answer and reading it must not count its
 *       lease from after the pause. So that a long wait does not use up the lease, one wait
 *       statement lasts at most half the lease; the engine then tries and waits again.
 * </ul>
 */
final class RowLockContender implements Contender {
    private static final Logger log = LoggerFactory.getLogger(RowLockContender.class);
    /** How long past its deadline a wait the server bounds itself may run before it is cancelled. */
    private static final long SERVER_BOUND_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** {@link #claimRow()}'s answer when no row came back. */
    private static final long NO_ROW = Long.MIN_VALUE;

    private final RowLockDriver driver;
    private final SqlDialect dialect;
    private final AcquireContext ctx;
    private final String key;
    /** The statement that arms the session expiry for this attempt's lease. */
    private final String armSql;
    /** Whether the claim and wait statements return the token ({@link SqlDialect#drawsTokenInLockStatement()}). */
    private final boolean tokenInStatement;

    private Connection conn;
    /** Whether {@link #conn}'s session expiry is already the lease's. */
    private boolean armed;

    private HeldRowLock granted;

    RowLockContender(RowLockDriver driver, AcquireContext ctx) {
        this.driver = driver;
        this.dialect = driver.dialect();
        this.ctx = ctx;
        this.key = dialect.key(ctx.lockName());
        this.armSql = dialect.armExpirySql(ctx.leaseTime());
        this.tokenInStatement = dialect.drawsTokenInLockStatement();
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
                WarmConnections.Warm w = driver.warm().take();
                if (w != null) {
                    conn = w.connection();
                    fromWarm = true;
                    armed = armSql.equals(w.armedWith());
                } else {
                    conn = driver.connections().borrow(ctx.lockName(), poolBudgetNanos());
                    armed = false;
                }
            }
            try {
                return attempt();
            } catch (SQLException e) {
                dropConnection();
                if (fromWarm && attempt == 0 && dialect.isSessionEnded(e)) {
                    // a kept connection that died while nothing was held on it: try a fresh one
                    log.debug("distlock.jdbc.warm_connection_failed backend={} lock={}", driver.backend(), key, e);
                    continue;
                }
                throw driver.failure("acquire failed", ctx.lockName(), e);
            }
        }
    }

    private Optional<HeldLock> attempt() throws SQLException {
        long sentAt = ctx.ticker().read();
        long drawn = claimRow();
        if (drawn != NO_ROW) {
            return Optional.of(claim(sentAt, false, drawn));
        }
        // No row visible to SKIP LOCKED: either someone holds it, or it does not exist yet.
        if (select(dialect.existsSql())) {
            return Optional.empty();
        }
        conn.rollback();
        try (PreparedStatement ps = conn.prepareStatement(dialect.insertSql())) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
        conn.commit();
        sentAt = ctx.ticker().read();
        drawn = claimRow();
        return drawn == NO_ROW ? Optional.empty() : Optional.of(claim(sentAt, false, drawn));
    }

    /** The claim: {@link #NO_ROW}, or the token it drew (0 if the dialect draws none there). */
    private long claimRow() throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(dialect.claimSql())) {
            dialect.bindClaim(ps, key, ctx.leaseTime());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return NO_ROW;
                }
                return tokenInStatement ? rs.getLong(1) : 0;
            }
        }
    }

    private boolean select(String sql) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * The row is locked by our transaction: the token (the one the statement drew, or one committed
     * on the token connection now) and the server-side expiry armed.
     */
    private HeldRowLock claim(long sentAt, boolean fromWait, long drawn) throws SQLException {
        long token = tokenInStatement ? drawn : driver.tokens().next(key, ctx.lockName());
        if (!armed && !dialect.claimArmsExpiry()) {
            try (Statement s = conn.createStatement()) {
                s.execute(armSql);
            }
        }
        HeldRowLock h = new HeldRowLock(driver, ctx, conn, token, ctx.validUntil(sentAt), fromWait);
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
            conn = driver.connections().borrow(ctx.lockName(), poolBudgetNanos());
            armed = false;
        }
        Thread waiter = Thread.currentThread();
        long sentAt = ctx.ticker().read();
        // one wait statement lasts at most half the lease: a grant's validity counts from sentAt
        long waitEnd =
                Math.min(deadlineNanos, Deadlines.after(sentAt, ctx.leaseTime().toNanos() / 2));
        long remaining = Math.max(0, Deadlines.remaining(ctx.ticker(), waitEnd));
        PreparedStatement ps;
        try {
            ps = conn.prepareStatement(dialect.waitSql());
            dialect.bindWait(ps, key, ctx.leaseTime(), Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
        } catch (SQLException e) {
            dropConnection();
            throw driver.failure("wait failed", ctx.lockName(), e);
        }
        // Cancelled at the wait's end (the deadline, or half a lease), unless the server ends the
        // wait itself then (the cancel is a safety net a little later); on interrupt; on close.
        long cancelAt = dialect.waitsBoundedByServer() ? Deadlines.after(waitEnd, SERVER_BOUND_GRACE_NANOS) : waitEnd;
        RowLockWaits.Outcome outcome = driver.waits()
                .await(
                        ps,
                        tokenInStatement,
                        Math.min(RowLockWaits.CANCEL_CHECK_NANOS, remaining),
                        () -> waiter.isInterrupted() || driver.isClosed() || Deadlines.passed(ctx.ticker(), cancelAt),
                        ctx.lockName());
        if (driver.isClosed()) {
            // the provider closed under us: the engine reports that; the connection is dropped
            dropConnection();
            return;
        }
        try {
            settle(outcome, waiter, sentAt);
        } catch (SQLException e) {
            dropConnection();
            throw driver.failure("wait failed", ctx.lockName(), e);
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while waiting for lock '" + ctx.lockName() + "'");
        }
    }

    /**
     * Keeps a granted row lock as {@link #granted} (valid from {@code sentAt}, when the wait was
     * sent), or leaves the connection holding nothing.
     */
    private void settle(RowLockWaits.Outcome outcome, Thread waiter, long sentAt) throws SQLException {
        SQLException failure = outcome.failure();
        if (failure != null) {
            if (outcome.cancelled() || dialect.isWaitEnded(failure)) {
                // statement (or transaction) rolled back; the transaction holds nothing
                conn.rollback();
            } else {
                throw failure;
            }
        } else if (outcome.rowReturned()) {
            if (outcome.cancelled() || waiter.isInterrupted() || driver.isClosed()) {
                // granted just as we gave up: give it back
                conn.rollback();
            } else {
                granted = claim(sentAt, true, outcome.token());
            }
        } else {
            // the row vanished (deleted by hand): the next try re-creates it
            conn.rollback();
        }
    }

    /**
     * How long this attempt may wait for a pooled connection that someone else holds: what is left
     * of the caller's wait ({@code 0} for {@code tryAcquire()}), the pool's wait timeout for {@code
     * acquire()}.
     */
    private long poolBudgetNanos() {
        long deadline = ctx.waitDeadlineNanos();
        return deadline == Deadlines.NEVER ? Long.MAX_VALUE : Math.max(0, Deadlines.remaining(ctx.ticker(), deadline));
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
        if (armed && !dialect.claimArmsExpiry()) {
            try {
                conn.rollback();
            } catch (SQLException e) {
                dropConnection();
                return;
            }
            driver.warm().offer(conn, armSql);
        } else {
            driver.connections().giveBack(conn);
        }
        conn = null;
        armed = false;
    }
}
