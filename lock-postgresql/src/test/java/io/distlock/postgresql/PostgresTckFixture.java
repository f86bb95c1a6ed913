package io.distlock.postgresql;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.FaultHooks;
import io.distlock.tck.TckFixture;
import io.distlock.testing.faults.ProxiedProvider;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.PgBouncer;
import io.distlock.testing.servers.PostgresServer;
import io.distlock.testing.servers.TestServer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The PostgreSQL fixture: a PostgreSQL 15 from {@link PostgresServer}, one provider (with its own
 * pool) per client, optionally each behind its own {@link TcpProxy} so that its network can be cut.
 *
 * <ul>
 *   <li>{@link #expireLease} ends the holder's session ({@code pg_terminate_backend}) as the
 *       superuser: the server rolls back and the row is free, as when the idle limit ends a paused
 *       holder.
 *   <li>{@link #crashClient} freezes the client ({@link FaultHooks#simulateFreeze()}): no heartbeat,
 *       its connections left open and silent, so the server learns of it only when {@code
 *       idle_in_transaction_session_timeout} ends them, as for a paused process. A killed process is
 *       the other case ({@code ChildJvmFaultIT}, {@link FaultHooks#simulateCrash()}).
 *   <li>{@link #newClientWithWrongCredentials} presents a wrong password for the fixture's role.
 *   <li>{@link #stopServer} kills the server (SIGKILL; PostgreSQL recovers from its WAL on start).
 * </ul>
 */
final class PostgresTckFixture implements TckFixture {
    private final PostgresServer db;
    /** The PgBouncer the clients connect through, or null for direct connections. */
    private final PgBouncer bouncer;

    private final boolean proxied;
    private final boolean leastPrivilege;
    private final List<PostgresLockProvider> clients = new CopyOnWriteArrayList<>();
    private final Map<LockProvider, TcpProxy> proxies = new ConcurrentHashMap<>();

    /** @param proxied whether each client connects through its own {@link TcpProxy} */
    PostgresTckFixture(boolean proxied) {
        this(proxied, false);
    }

    /**
     * @param proxied whether each client connects through its own {@link TcpProxy}
     * @param leastPrivilege whether clients log in as {@link LeastPrivilegeRole} (objects made by an
     *     administrator, only the documented GRANTs) instead of the database's owner
     */
    PostgresTckFixture(boolean proxied, boolean leastPrivilege) {
        this(PostgresServer.start(), proxied, leastPrivilege);
    }

    /** A fixture on {@code db}, which it closes. */
    PostgresTckFixture(PostgresServer db, boolean proxied, boolean leastPrivilege) {
        this(db, proxied, leastPrivilege, false);
    }

    private PostgresTckFixture(PostgresServer db, boolean proxied, boolean leastPrivilege, boolean pgBouncer) {
        this.db = db;
        this.proxied = proxied;
        this.leastPrivilege = leastPrivilege;
        try {
            if (leastPrivilege) {
                LeastPrivilegeRole.create(db, PostgresLockOptions.defaults());
            }
            this.bouncer = pgBouncer
                    ? PgBouncer.builder(db)
                            .user(LeastPrivilegeRole.ROLE, LeastPrivilegeRole.PASSWORD)
                            .poolMode(PgBouncer.PoolMode.TRANSACTION)
                            .start()
                    : null;
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /**
     * A fixture whose clients connect through a PgBouncer in transaction pool mode (each behind its
     * own {@link TcpProxy} in front of PgBouncer if {@code proxied}), with the driver's server-side
     * prepared statements off ({@code prepareThreshold=0}).
     */
    static PostgresTckFixture behindPgBouncer(boolean proxied, boolean leastPrivilege) {
        return new PostgresTckFixture(PostgresServer.start(), proxied, leastPrivilege, true);
    }

    PostgresServer db() {
        return db;
    }

    String clientRole() {
        return leastPrivilege ? LeastPrivilegeRole.ROLE : db.user();
    }

    @Override
    public String backend() {
        return "postgresql";
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        PostgresLockProvider p = newPostgresClient(options);
        TcpProxy proxy = proxies.get(p);
        return proxy == null ? p : new ProxiedProvider<>(p, proxy);
    }

    private static PostgresLockProvider provider(LockProvider client) {
        return client instanceof ProxiedProvider<?> proxied
                ? (PostgresLockProvider) proxied.provider()
                : (PostgresLockProvider) client;
    }

    PostgresLockProvider newPostgresClient(LockOptions options) {
        return newPostgresClient(options, leastPrivilege ? LeastPrivilegeRole.PASSWORD : db.password());
    }

    /**
     * A client of the fixture's role with a wrong password: the server refuses the login, so opening
     * it fails with {@link io.distlock.LockConfigurationException}.
     */
    @Override
    public LockProvider newClientWithWrongCredentials(LockOptions options) {
        return newPostgresClient(options, "not-the-password");
    }

    private PostgresLockProvider newPostgresClient(LockOptions options, String password) {
        TestServer target = bouncer == null ? db : bouncer;
        String url = bouncer == null ? db.jdbcUrl() : bouncer.jdbcUrl();
        TcpProxy proxy = null;
        if (proxied) {
            proxy = TcpProxy.start(target.host(), target.port());
            url = "jdbc:postgresql://" + proxy.address() + "/" + db.database() + "?sslmode=disable"
                    + (bouncer == null ? "" : "&prepareThreshold=0");
        }
        PostgresLockProvider p;
        try {
            p = PostgresLockProvider.builder()
                    .jdbcUrl(url)
                    .options(PostgresLockOptions.builder()
                            .credentials(Credentials.of(clientRole(), password))
                            // the least-privilege role may not CREATE: the provider must cope
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

    /** The server process id of the current holder of {@code lockName} among this fixture's clients. */
    Optional<Long> holderPid(String lockName) {
        for (PostgresLockProvider p : clients) {
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
        if (bouncer != null) {
            // the driver knows PgBouncer's id of the session, not the server's: ask the server which
            // backend's transaction holds the lock's row
            String pid = db.executeAsSuperuser("SELECT l.pid FROM " + PostgresLockOptions.DEFAULT_TABLE
                    + " t JOIN pg_locks l ON l.locktype = 'transactionid' AND l.transactionid = t.xmax"
                    + " AND l.mode = 'ExclusiveLock' AND l.granted WHERE t.name = '" + lockName.replace("'", "''")
                    + "'");
            if (!pid.isEmpty()) {
                terminate(Long.parseLong(pid.trim()));
            }
            return;
        }
        holderPid(lockName).ifPresent(this::terminate);
    }

    /** {@code pg_terminate_backend(pid)} as the superuser. */
    void terminate(long pid) {
        db.executeAsSuperuser("SELECT pg_terminate_backend(" + pid + ")");
    }

    /**
     * The TCK's crash: the server must notice only through expiry, so the client freezes (no
     * heartbeat, connections left open and silent) and the server ends it at its idle limit. A real
     * {@code kill -9} is noticed at once (the OS closes the sockets), see {@code ChildJvmFaultIT} and
     * {@link FaultHooks#simulateCrash()}.
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

    /**
     * The connections of the fixture's clients: PgBouncer's client connections when the clients go
     * through it (its server connections outlive the clients by design), else the server's.
     */
    @Override
    public int serverConnectionCount() {
        if (bouncer != null) {
            return bouncer.clientConnections(clientRole());
        }
        return Integer.parseInt(
                db.executeAsSuperuser("SELECT count(*) FROM pg_stat_activity WHERE usename = '" + clientRole() + "'")
                        .trim());
    }

    @Override
    public void close() {
        for (PostgresLockProvider p : clients) {
            try {
                p.close();
            } catch (RuntimeException e) {
                // closing after a test that broke it
            }
        }
        proxies.values().forEach(TcpProxy::close); // idempotent for proxies closed with their client
        if (bouncer != null) {
            bouncer.close();
        }
        db.close();
    }
}
