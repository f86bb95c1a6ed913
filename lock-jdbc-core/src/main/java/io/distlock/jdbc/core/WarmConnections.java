package io.distlock.jdbc.core;

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
 * Released lock connections of the provider's own pool, kept for the next acquisition for at most
 * {@link #KEEP_WARM_NANOS}, for a dialect whose session expiry is set by a statement of its own
 * ({@link SqlDialect#armExpirySql}) and stays set after the transaction. Their transaction is
 * committed (they hold nothing) and their session's expiry is still armed with the released lease's,
 * so the next acquisition with the same lease time needs no statement to arm it, nor the release
 * before it one to disarm it: 3 statements per uncontended acquire + release instead of 5.
 *
 * <p>{@link #sweep()} (run every 50 ms by the driver) disarms and gives back a connection once it
 * is older than that, and every one at once when a thread waits for a pooled connection. With a
 * caller's {@code DataSource} nothing is kept; with a dialect whose claim arms the expiry for its
 * own transaction ({@link SqlDialect#claimArmsExpiry()}) a released connection goes straight back.
 */
final class WarmConnections {
    private static final Logger log = LoggerFactory.getLogger(WarmConnections.class);

    /** At most this many warm connections (each is one connection fewer in the pool meanwhile). */
    private static final int MAX_WARM = 1;
    /** How long a released lock connection stays warm; far below the shortest session expiry (1 s). */
    static final long KEEP_WARM_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** How often {@link #sweep()} should run. */
    static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * A kept connection.
     *
     * @param armedWith the statement that armed its session expiry (compared with the next lease's)
     */
    record Warm(Connection connection, String armedWith, long since) {}

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
    Warm take() {
        synchronized (warm) {
            Warm w = warm.pollLast();
            if (w == null) {
                return null;
            }
            if (System.nanoTime() - w.since() < KEEP_WARM_NANOS) {
                return w;
            }
            warm.addLast(w); // the sweep gives it back
            return null;
        }
    }

    /**
     * Takes a released (committed) lock connection whose session expiry {@code armedWith} set: kept
     * warm, or disarmed and given back to the pool now (evicted if that fails).
     */
    void offer(Connection c, String armedWith) {
        if (dialect.claimArmsExpiry()) {
            giveBack(c);
        } else if (!keep(c, armedWith)) {
            disarmAndGiveBack(c);
        }
    }

    private boolean keep(Connection c, String armedWith) {
        if (!connections.ownsDataSource() || closed || connections.someoneWaits()) {
            return false;
        }
        synchronized (warm) {
            if (closed || warm.size() >= MAX_WARM) {
                return false;
            }
            warm.addLast(new Warm(c, armedWith, System.nanoTime()));
            return true;
        }
    }

    /** Whether a connection is kept (someone waiting for the pool gets it back at the next sweep). */
    boolean isEmpty() {
        synchronized (warm) {
            return warm.isEmpty();
        }
    }

    /** Gives back warm connections that are too old, or all of them if someone waits for one. */
    void sweep() {
        sweep(closed || connections.someoneWaits());
    }

    /** Gives back every warm connection now (the pool is exhausted and a caller may not wait). */
    void giveBackAll() {
        sweep(true);
    }

    private void sweep(boolean all) {
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
        String disarm = dialect.disarmExpirySql();
        if (disarm == null) {
            giveBack(c);
            return;
        }
        try {
            // bounded: the sweep runs on the driver's canceller thread, which a blackholed connection
            // must not hang (the pool restores the connection's previous timeout when it is returned)
            c.setNetworkTimeout(Runnable::run, requestTimeoutMillis);
            // On the driver's own connection: through HikariCP's proxy, a statement after the
            // COMMIT marks the connection dirty and the pool sends a ROLLBACK when it is returned.
            try (Statement s = dialect.physical(c).createStatement()) {
                s.execute(disarm);
            }
            connections.restoreAutoCommit(c);
        } catch (SQLException e) {
            log.debug("distlock.jdbc.reset_failed backend={}", dialect.backend(), e);
            connections.evict(c);
            return;
        }
        LockConnections.closeQuietly(c);
    }

    /** Gives a connection that holds nothing back to the pool as it is (evicted if that fails). */
    private void giveBack(Connection c) {
        try {
            connections.restoreAutoCommit(c);
        } catch (SQLException e) {
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
