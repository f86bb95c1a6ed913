package io.distlock.mysql;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.tck.TckFixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The MySQL fixture: a local MariaDB, one provider (with its own pool) per client.
 *
 * <ul>
 *   <li>{@link #expireLease} kills the holder's lock connection ({@code KILL CONNECTION}) from an
 *       admin session: the server rolls back and the row is free, as when {@code wait_timeout}
 *       drops a paused holder.
 *   <li>{@link #crashClient} models {@code kill -9}: the process's sockets are closed by the OS,
 *       so the server sees the disconnect and rolls back at once; the client stops heartbeating and
 *       closes its connections without COMMIT ({@link MySqlLockProvider#simulateCrash()}). A paused
 *       process (SIGSTOP) is the other case; the server drops it at {@code wait_timeout}, tested in
 *       {@code MySqlLockProviderIT}.
 * </ul>
 */
final class MySqlTckFixture implements TckFixture {
    private final TestMariaDb db;
    private final List<MySqlLockProvider> clients = new CopyOnWriteArrayList<>();

    MySqlTckFixture() {
        this.db = TestMariaDb.start();
    }

    TestMariaDb db() {
        return db;
    }

    @Override
    public String backend() {
        return "mysql";
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return newMySqlClient(options);
    }

    MySqlLockProvider newMySqlClient(LockOptions options) {
        MySqlLockProvider p = MySqlLockProvider.builder()
                .jdbcUrl(db.jdbcUrl())
                .user(TestMariaDb.USER)
                .password(TestMariaDb.PASSWORD)
                .options(MySqlLockOptions.builder()
                        .createSchema(true)
                        .poolSize(24)
                        .lockOptions(options)
                        .build())
                .build();
        clients.add(p);
        return p;
    }

    /** The server connection id of the current holder of {@code lockName} among this fixture's clients. */
    Optional<Long> holderConnectionId(String lockName) {
        for (MySqlLockProvider p : clients) {
            for (Lease l : p.heldLeases()) {
                if (l.lockName().equals(lockName)) {
                    try {
                        return Optional.of(p.connectionId(l));
                    } catch (RuntimeException e) {
                        // lost meanwhile
                    }
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public void expireLease(String lockName) {
        holderConnectionId(lockName).ifPresent(this::kill);
    }

    void kill(long connectionId) {
        try (Connection c = db.rootConnection();
                Statement s = c.createStatement()) {
            s.execute("KILL CONNECTION " + connectionId);
        } catch (SQLException e) {
            if (e.getErrorCode() != 1094) { // unknown thread: already gone
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public void crashClient(LockProvider client) {
        ((MySqlLockProvider) client).simulateCrash();
    }

    @Override
    public void stopServer() {
        db.stop();
    }

    @Override
    public void startServer() {
        db.restart();
    }

    @Override
    public int serverConnectionCount() {
        try (Connection c = db.rootConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = '"
                        + TestMariaDb.USER + "'")) {
            rs.next();
            return rs.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        for (MySqlLockProvider p : clients) {
            try {
                p.close();
            } catch (RuntimeException e) {
                // closing after a test that broke it
            }
        }
        db.close();
    }
}
