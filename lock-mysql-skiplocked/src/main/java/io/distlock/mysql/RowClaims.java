package io.distlock.mysql;

import io.distlock.mysql.internal.RowClaimer;
import io.distlock.mysql.internal.RowLockDriver;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The transaction of one {@code claimRows} call: claim the rows ({@code FOR UPDATE SKIP LOCKED}),
 * run the caller's work on them, commit; roll back if the work throws. On a pooled connection of its
 * own, in {@code READ COMMITTED} (under {@code REPEATABLE READ}, {@code SKIP LOCKED} with {@code
 * LIMIT} takes next-key locks and concurrent claimers deadlock on each other's updates); the
 * connection's autocommit and isolation are restored afterwards.
 */
final class RowClaims {
    private final RowLockDriver driver;

    RowClaims(RowLockDriver driver) {
        this.driver = driver;
    }

    /** @param cursor where the claim starts, or null for the first matching key */
    <T> T claim(RowClaimer claimer, ClaimCursor cursor, MySqlLockProvider.ClaimWork<T> work) throws SQLException {
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
                T result = work.process(c, claimKeys(c, claimer, cursor));
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

    private static List<Object> claimKeys(Connection c, RowClaimer claimer, ClaimCursor cursor) throws SQLException {
        Object from = cursor == null ? null : cursor.position().orElse(null);
        List<Object> keys = claimer.claim(c, from);
        boolean fromStart = from == null;
        if (keys.isEmpty() && !fromStart) {
            // nothing after the cursor: rows behind it may have become claimable again
            keys = claimer.claim(c, null);
            fromStart = true;
        }
        if (cursor != null) {
            // at once, not at commit: the next claim, by any worker, starts after the rows this one
            // holds; nothing claimed from the start means nothing claimable, so the next claim
            // starts at the first key again
            cursor.claimed(keys, fromStart);
        }
        return keys;
    }
}
