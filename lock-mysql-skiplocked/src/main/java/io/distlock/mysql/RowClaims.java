package io.distlock.mysql;

import io.distlock.jdbc.core.LeaseWork;
import io.distlock.jdbc.core.RowClaimer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The claim of one {@code claimRows} call, in lock-jdbc-core's claim transaction ({@link
 * LeaseWork#claimRows}): from the first matching key, or after a {@link ClaimCursor}'s position.
 */
final class RowClaims {
    private final LeaseWork work;

    RowClaims(LeaseWork work) {
        this.work = work;
    }

    /** @param cursor where the claim starts, or null for the first matching key */
    <T> T claim(RowClaimer claimer, ClaimCursor cursor, MySqlLockProvider.ClaimWork<T> claimWork) throws SQLException {
        return work.claimRows(c -> claimKeys(c, claimer, cursor), claimWork::process);
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
