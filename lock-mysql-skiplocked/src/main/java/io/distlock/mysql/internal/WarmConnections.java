package io.distlock.mysql.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Internal: released lock connections of the provider's own pool, kept for the next acquisition for
 * at most {@link #KEEP_WARM_NANOS}. Their transaction is committed (they hold nothing) and their
 * session's expiry is still armed with the lease's, so the next acquisition needs no statement to
 * arm it, nor the release before it one to disarm it: 3 statements per uncontended acquire +
 * release instead of 5.
 *
 * <p>{@link #sweep()} (run every 50 ms by the driver) disarms and gives back a connection once it
 * is older than that, and every one at once when a thread waits for a pooled connection. With a
 * caller's {@code DataSource} nothing is kept.
 */
final class WarmConnections {
    private static final Logger log = LoggerFactory.getLogger(WarmConnections.class);

    /** At most this many warm connections (each is one connection fewer in the pool meanwhile). */
    private static final int MAX_WARM = 1;
    /** How long a released lock connection stays warm; far below the shortest session expiry (1 s). */
    static final long KEEP_WARM_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** How often {@link #sweep()} should run. */
    static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private record Warm(Connection connection, long since) {}

    private final ArrayDeque<Warm> warm = new ArrayDeque<>();
    private final LockConnections connections;
    private final SqlDialect dialect;
    /** Bound on the read of the disarming statement (the sweep's thread must not hang on a dead connection). */
    private final int requestTimeoutMillis;

    private volatile boolean closed;

    WarmConnections(LockConnections connections, SqlDialect dialect, int requestTimeoutMillis) {
        this.connections = connections;
        this.dialect = dialect;
        this.requestTimeoutMillis = requestTimeoutMillis;
    }

    /** A warm connection for an acquisition, or null. Never one older than {@link #KEEP_WARM_NANOS}. */
    Connection take() {
        synchronized (warm) {
            Warm w = warm.pollLast();
            if (w == null) {
                return null;
            }
            if (System.nanoTime() - w.since() < KEEP_WARM_NANOS) {
                return w.connection();
            }
            warm.addLast(w); // the sweep gives it back
            return null;
        }
    }

    /**
     * Takes a released (committed) lock connection: kept warm, or disarmed and given back to the
     * pool now (evicted if that fails).
     */
    void offer(Connection c) {
        if (!keep(c)) {
            disarmAndGiveBack(c);
        }
    }

    private boolean keep(Connection c) {
        if (!connections.ownsDataSource() || closed || connections.someoneWaits()) {
            return false;
        }
        synchronized (warm) {
            if (closed || warm.size() >= MAX_WARM) {
                return false;
            }
            warm.addLast(new Warm(c, System.nanoTime()));
            return true;
        }
    }

    /** Gives back warm connections that are too old, or all of them if someone waits for one. */
    void sweep() {
        boolean all = closed || connections.someoneWaits();
        List<Connection> out = new ArrayList<>();
        synchronized (warm) {
            long now = System.nanoTime();
            for (Iterator<Warm> it = warm.iterator(); it.hasNext(); ) {
                Warm w = it.next();
                if (all || now - w.since() >= KEEP_WARM_NANOS) {
                    it.remove();
                    out.add(w.connection());
                }
            }
        }
        for (Connection c : out) {
            disarmAndGiveBack(c);
        }
    }

    /** Restores the server's default session expiry on a connection that holds nothing, and gives it back. */
    void disarmAndGiveBack(Connection c) {
        try {
            // bounded: the sweep runs on the driver's canceller thread, which a blackholed connection
            // must not hang (the pool restores the connection's previous timeout when it is returned)
            c.setNetworkTimeout(Runnable::run, requestTimeoutMillis);
            // On the driver's own connection: through HikariCP's proxy, a statement after the
            // COMMIT marks the connection dirty and the pool sends a ROLLBACK when it is returned.
            try (Statement s = dialect.physical(c).createStatement()) {
                s.execute(dialect.disarmExpirySql());
            }
            connections.restoreAutoCommit(c);
        } catch (SQLException e) {
            log.debug("distlock.mysql.reset_failed", e);
            connections.evict(c);
            return;
        }
        LockConnections.closeQuietly(c);
    }

    /** Keeps no more connections (the provider is closing or abandoned); those kept stay until {@link #close}. */
    void stop() {
        closed = true;
    }

    /**
     * Empties the warm set: each connection is given back, or evicted if {@code evict} (a frozen
     * client sends nothing more).
     */
    void close(boolean evict) {
        closed = true;
        List<Warm> cold;
        synchronized (warm) {
            cold = new ArrayList<>(warm);
            warm.clear();
        }
        for (Warm w : cold) {
            if (evict) {
                connections.evict(w.connection());
            } else {
                disarmAndGiveBack(w.connection());
            }
        }
    }
}
