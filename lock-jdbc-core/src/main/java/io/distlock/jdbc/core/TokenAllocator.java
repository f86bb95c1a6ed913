package io.distlock.jdbc.core;

import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Allocates fencing tokens, each <em>committed</em> before it is handed out, on one
 * autocommit connection per provider, one statement per token, serialised.
 *
 * <p>The allocation must not live in the lock's transaction: a database may never reuse a counter
 * value within a server's life, but a value allocated by a transaction that was never committed
 * (nor followed by any other commit) is not in the written redo log, so after a server crash the
 * counter can restart below it and hand the same token to the next holder. A committed allocation is
 * as durable as the server makes commits.
 */
final class TokenAllocator {
    private static final Logger log = LoggerFactory.getLogger(TokenAllocator.class);

    private final LockConnections connections;
    private final SqlDialect dialect;
    /** Bound on the read of the token statement. */
    private final int requestTimeoutMillis;

    private final Object lock = new Object();
    private Connection connection;
    private volatile boolean closed;

    TokenAllocator(LockConnections connections, SqlDialect dialect, int requestTimeoutMillis) {
        this.connections = connections;
        this.dialect = dialect;
        this.requestTimeoutMillis = requestTimeoutMillis;
    }

    /**
     * A new token for {@code key}, larger than every token allocated before. A failed connection is
     * replaced once: any value a fresh allocation returns is larger than one a lost reply might have
     * carried.
     *
     * @throws SQLException if the allocation failed twice, or failed for a reason another connection
     *     would not change (a missing privilege)
     */
    long next(String key, String lockName) throws SQLException {
        synchronized (lock) {
            for (int attempt = 0; ; attempt++) {
                Connection c = connection;
                try {
                    if (c == null) {
                        if (closed) {
                            throw new SQLException("provider is closed");
                        }
                        c = connections.get();
                        if (!c.getAutoCommit()) {
                            c.setAutoCommit(true);
                        }
                        c.setNetworkTimeout(Runnable::run, requestTimeoutMillis);
                        connection = c;
                    }
                    return dialect.allocateToken(c, key);
                } catch (SQLException e) {
                    if (dialect.isPrivilegeError(e)) {
                        throw e; // the connection is fine; another one would be refused the same
                    }
                    if (c != null) {
                        connections.evict(c);
                    }
                    connection = null;
                    if (attempt >= 1 || closed) {
                        throw e;
                    }
                    log.debug(
                            "distlock.jdbc.token_connection_failed backend={} lock={}", dialect.backend(), lockName, e);
                }
            }
        }
    }

    /** Later allocations fail; the token connection stays open until {@link #close()}. */
    void stop() {
        closed = true;
    }

    /** Closes the token connection; later allocations fail. Idempotent. */
    void close() {
        synchronized (lock) {
            closed = true;
            if (connection != null) {
                LockConnections.closeQuietly(connection);
                connection = null;
            }
        }
    }
}
