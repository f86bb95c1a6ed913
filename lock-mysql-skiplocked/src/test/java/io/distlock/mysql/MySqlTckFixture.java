package io.distlock.mysql;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.FaultHooks;
import io.distlock.tck.TckFixture;
import io.distlock.testing.faults.ProxiedProvider;
import io.distlock.testing.faults.SlowReplies;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The MySQL fixture: a MariaDB 10.11 from {@link MariaDbServer}, one provider (with its own pool) per
 * client, optionally each behind its own {@link TcpProxy} so that its network can be cut.
 *
 * <ul>
 *   <li>{@link #expireLease} kills the holder's lock connection ({@code KILL CONNECTION}) from an
 *       admin session: the server rolls back and the row is free, as when {@code wait_timeout}
 *       drops a paused holder.
 *   <li>{@link #crashClient} freezes the client ({@link FaultHooks#simulateFreeze()}): no heartbeat,
 *       its connections left open and silent, so the server learns of it only when {@code
 *       wait_timeout} drops them, as for a paused process. A killed process is the other case: the OS
 *       closes its sockets and the server rolls back at once ({@code ChildJvmFaultIT}, {@link
 *       FaultHooks#simulateCrash()}).
 *   <li>{@link #newClientWithWrongCredentials} presents a wrong password for the fixture's user.
 *   <li>{@link #stopServer} kills the server (SIGKILL; InnoDB recovers its data on start).
 * </ul>
 */
final class MySqlTckFixture implements TckFixture {
    private final MariaDbServer db;
    private final boolean proxied;
    private final List<MySqlLockProvider> clients = new CopyOnWriteArrayList<>();
    private final Map<LockProvider, TcpProxy> proxies = new ConcurrentHashMap<>();

    private final boolean leastPrivilege;

    /** @param proxied whether each client connects through its own {@link TcpProxy} */
    MySqlTckFixture(boolean proxied) {
        this(proxied, false);
    }

    /**
     * @param proxied whether each client connects through its own {@link TcpProxy}
     * @param leastPrivilege whether clients connect as {@link LeastPrivilegeUser} (tables made by
     *     an administrator, only the documented GRANTs) instead of the database's owner
     */
    MySqlTckFixture(boolean proxied, boolean leastPrivilege) {
        this.db = MariaDbServer.start();
        this.proxied = proxied;
        this.leastPrivilege = leastPrivilege;
        if (leastPrivilege) {
            try {
                LeastPrivilegeUser.create(db, MySqlLockOptions.defaults(), false);
            } catch (RuntimeException e) {
                db.close();
                throw e;
            }
        }
    }

    private String clientUser() {
        return leastPrivilege ? LeastPrivilegeUser.USER : db.user();
    }

    MariaDbServer db() {
        return db;
    }

    @Override
    public String backend() {
        return "mysql";
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        MySqlLockProvider p = newMySqlClient(options);
        TcpProxy proxy = proxies.get(p);
        return proxy == null ? p : new ProxiedProvider<>(p, proxy);
    }

    private static MySqlLockProvider provider(LockProvider client) {
        return client instanceof ProxiedProvider<?> proxied
                ? (MySqlLockProvider) proxied.provider()
                : (MySqlLockProvider) client;
    }

    MySqlLockProvider newMySqlClient(LockOptions options) {
        return newMySqlClient(options, leastPrivilege ? LeastPrivilegeUser.PASSWORD : db.password());
    }

    /**
     * A client of the fixture's user with a wrong password: the server refuses the login, so opening
     * it fails with {@link io.distlock.LockConfigurationException}.
     */
    @Override
    public LockProvider newClientWithWrongCredentials(LockOptions options) {
        return newMySqlClient(options, "not-the-password");
    }

    private MySqlLockProvider newMySqlClient(LockOptions options, String password) {
        String url = db.jdbcUrl();
        TcpProxy proxy = null;
        if (proxied) {
            proxy = TcpProxy.start(db.host(), db.port());
            url = "jdbc:mysql://" + proxy.address() + "/" + db.database() + "?sslMode=DISABLED";
        }
        MySqlLockProvider p;
        try {
            p = MySqlLockProvider.builder()
                    .jdbcUrl(url)
                    .options(MySqlLockOptions.builder()
                            .credentials(Credentials.of(clientUser(), password))
                            // the least-privilege user may not CREATE: the provider must cope
                            .createSchema(true)
                            .poolSize(24)
                            .build())
                    .lockOptions(options)
                    .build();
        } catch (RuntimeException e) {
            if (proxy != null) {
                proxy.close();
            }
            throw e;
        }
        clients.add(p);
        if (proxy != null) {
            proxies.put(p, proxy);
        }
        return p;
    }

    /** A client through a proxy whose replies arrive {@code delay} late (a small pool: each connection is slow to open). */
    @Override
    public LockProvider newClientWithReplyDelay(LockOptions options, Duration delay) {
        return SlowReplies.open(List.of(db.host() + ":" + db.port()), delay, through -> {
            MySqlLockProvider p = MySqlLockProvider.builder()
                    .jdbcUrl("jdbc:mysql://" + through.get(0) + "/" + db.database() + "?sslMode=DISABLED")
                    .options(MySqlLockOptions.builder()
                            .credentials(Credentials.of(
                                    clientUser(), leastPrivilege ? LeastPrivilegeUser.PASSWORD : db.password()))
                            .createSchema(true)
                            .poolSize(4)
                            .build())
                    .lockOptions(options)
                    .build();
            clients.add(p);
            return p;
        });
    }

    /** Statements the server executed for clients ({@code SHOW GLOBAL STATUS LIKE 'Questions'}). */
    @Override
    public long serverRequestCount() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Questions'")) {
            rs.next();
            return rs.getLong(2);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
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

    /** {@code KILL CONNECTION id} from an admin session. */
    void kill(long connectionId) {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("KILL CONNECTION " + connectionId);
        } catch (SQLException e) {
            if (e.getErrorCode() != 1094) { // unknown thread: already gone
                throw new IllegalStateException(e);
            }
        }
    }

    /**
     * The TCK's crash: the server must notice only through expiry, so the client freezes (no
     * heartbeat, connections left open and silent) and the server drops it at {@code wait_timeout}.
     * A real {@code kill -9} is noticed at once by MySQL (the OS closes the sockets), see {@code
     * ChildJvmFaultIT} and {@link FaultHooks#simulateCrash()}.
     */
    @Override
    public void crashClient(LockProvider client) {
        client.unwrap(FaultHooks.class).orElseThrow().simulateFreeze();
    }

    @Override
    public void cutClientNetwork(LockProvider client) {
        proxy(client).blackhole(TcpProxy.Direction.BOTH);
    }

    @Override
    public void restoreClientNetwork(LockProvider client) {
        proxy(client).resume();
    }

    private TcpProxy proxy(LockProvider client) {
        TcpProxy p = proxies.get(provider(client));
        if (p == null) {
            throw new UnsupportedOperationException("client was not opened through a proxy by this fixture");
        }
        return p;
    }

    @Override
    public void stopServer() {
        db.kill();
    }

    @Override
    public void startServer() {
        db.restart(true);
    }

    @Override
    public int serverConnectionCount() {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = '"
                        + clientUser() + "' AND ID <> CONNECTION_ID()")) {
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
        proxies.values().forEach(TcpProxy::close); // idempotent for proxies closed with their client
        db.close();
    }
}
