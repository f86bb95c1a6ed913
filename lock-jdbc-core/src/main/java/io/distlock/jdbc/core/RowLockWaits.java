package io.distlock.jdbc.core;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs statements that block on a row lock, and cancels them when the waiter gives up. A
 * wait is bounded by the caller's deadline, not by the server's own lock wait limit (whole seconds
 * only on MariaDB): one named daemon thread per provider ({@code distlock-<backend>-canceller-N})
 * checks every 20 ms whether a waiter gave up (deadline, interrupt,
 * provider closed) and cancels its statement ({@link Statement#cancel()}); the statement rolls back
 * and its transaction holds nothing. The same thread runs the driver's periodic housekeeping.
 */
final class RowLockWaits {
    private static final Logger log = LoggerFactory.getLogger(RowLockWaits.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /** How often a waiter blocked in a row-lock wait is checked for interrupt, deadline or close. */
    static final long CANCEL_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * How a blocking row-lock read ended.
     *
     * @param rowReturned the statement returned the row: its transaction holds the row lock now
     * @param token the row's first column if it was returned and read as a token, else 0
     * @param cancelled the canceller cancelled it (it may still have returned the row, just in time)
     * @param failure the statement's failure, or null
     */
    record Outcome(boolean rowReturned, long token, boolean cancelled, SQLException failure) {}

    private final ScheduledThreadPoolExecutor canceller;
    /** Statements blocked in a row-lock wait, cancelled on close. */
    private final Set<Statement> waiting = ConcurrentHashMap.newKeySet();

    RowLockWaits(String backend) {
        String name = "distlock-" + backend + "-canceller-" + SEQUENCE.incrementAndGet();
        this.canceller = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, name);
            th.setDaemon(true);
            return th;
        });
        canceller.setRemoveOnCancelPolicy(true);
    }

    /** Runs {@code task} every {@code periodNanos} on the canceller thread until {@link #close()}. */
    void every(long periodNanos, Runnable task) {
        canceller.scheduleWithFixedDelay(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Executes {@code ps} (a locking read of one row, its parameters bound) and closes it; with
     * {@code readsToken}, the returned row's first column is the fencing token. The canceller checks
     * {@code giveUp} first after {@code firstCheckNanos}, then every {@link #CANCEL_CHECK_NANOS},
     * and cancels the statement once it says so.
     */
    Outcome await(
            PreparedStatement ps, boolean readsToken, long firstCheckNanos, BooleanSupplier giveUp, String lockName) {
        Object guard = new Object();
        boolean[] executing = {true};
        boolean[] cancelled = {false};
        ScheduledFuture<?> check = canceller.scheduleWithFixedDelay(
                () -> {
                    synchronized (guard) {
                        if (!executing[0] || cancelled[0]) {
                            return;
                        }
                        if (giveUp.getAsBoolean()) {
                            cancelled[0] = true;
                            try {
                                ps.cancel();
                            } catch (SQLException | RuntimeException e) {
                                log.debug("distlock.jdbc.cancel_failed lock={}", lockName, e);
                            }
                        }
                    }
                },
                firstCheckNanos,
                CANCEL_CHECK_NANOS,
                TimeUnit.NANOSECONDS);
        boolean got = false;
        long token = 0;
        SQLException failure = null;
        waiting.add(ps);
        try (ResultSet rs = ps.executeQuery()) {
            got = rs.next();
            if (got && readsToken) {
                token = rs.getLong(1);
            }
        } catch (SQLException e) {
            failure = e;
        } finally {
            waiting.remove(ps);
            check.cancel(false);
            synchronized (guard) {
                executing[0] = false;
            }
            try {
                ps.close();
            } catch (SQLException ignored) {
                // closing a finished statement
            }
        }
        synchronized (guard) {
            return new Outcome(got, token, cancelled[0], failure);
        }
    }

    /** Cancels every blocked statement, stops the canceller thread and waits for it (at most 5 s). */
    void close() {
        for (Statement s : waiting) {
            try {
                s.cancel();
            } catch (SQLException | RuntimeException e) {
                log.debug("distlock.jdbc.cancel_on_close_failed", e);
            }
        }
        canceller.shutdownNow();
        try {
            canceller.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
