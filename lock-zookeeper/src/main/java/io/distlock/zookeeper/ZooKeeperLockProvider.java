package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.LockEngine;
import io.distlock.zookeeper.internal.ZkDriver;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * Distributed locks on ZooKeeper ({@code zookeeper://host1:2181,host2:2181/chroot}): each contender
 * adds an ephemeral-sequential node under the lock's container node; the lowest sequence holds the
 * lock, every other contender watches only its immediate predecessor, so a release wakes exactly
 * one waiter, in FIFO order.
 *
 * <p><b>Guarantees.</b> The fencing token is the czxid of the holder's node: it strictly increases
 * from one holder of a lock to the next, survives server restarts and leader elections (zxids are
 * persisted), and is unique across all locks of the ensemble. A held lock stays held as long as the
 * ZooKeeper session lives; a quorum loss or leader election does not release it.
 *
 * <p><b>Limits.</b> A lease is only as valid as the session: its deadline is {@code sendTime +
 * negotiatedSessionTimeout - margin} of the last request the server answered on the session (one
 * keepalive request per client every fifth of the session timeout moves it forward). When the
 * connection is suspended the deadline stops moving, so the client stops believing it holds the lock
 * before the server can expire the session and grant it to someone else; if the session is lost, the
 * lease is lost and {@link Lease#lost()} completes. A reconnect within the session extends validity
 * again only after the client verified that its node still exists and is owned by its session. A
 * process that stalls (GC pause, SIGSTOP) past its deadline cannot notice in time — protect the
 * resource with the fencing token.
 *
 * <pre>{@code
 * try (ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder()
 *         .connectString("zk1:2181,zk2:2181,zk3:2181")
 *         .build()) {
 *     try (Lease lease = locks.lock("invoice-42").acquire()) {
 *         guard.write(lease.fencingToken().getAsLong(), ...);
 *     }
 * }
 * }</pre>
 */
public final class ZooKeeperLockProvider implements LockProvider {
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final LockEngine engine;
    private final ZkDriver driver;
    private final CuratorFramework curator;
    private final ZooKeeperLockOptions options;

    private ZooKeeperLockProvider(Builder b) {
        ZooKeeperLockOptions o = b.options.build();
        this.options = o;
        List<ACL> acl = o.digestCredentials().map(ZooKeeperLockProvider::acl).orElse(null);
        boolean owns = b.curator == null;
        CuratorFramework c = owns ? newClient(o) : b.curator;
        if (!owns && c.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalArgumentException("curator client must be started (state was " + c.getState() + ")");
        }
        this.curator = c;
        this.driver =
                new ZkDriver(c, owns, o.rootPath(), acl, o.lockOptions(), o.sessionTimeout(), o.connectionTimeout());
        this.engine = LockEngine.create(driver, o.lockOptions());
    }

    private static CuratorFramework newClient(ZooKeeperLockOptions o) {
        String connect = o.connectString()
                .orElseThrow(() -> new IllegalArgumentException(
                        "connectString must be set unless an existing CuratorFramework is given"));
        int n = CLIENTS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "distlock-zookeeper-curator-" + n + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        // A chroot becomes Curator's namespace, which Curator creates when missing (a ZooKeeper
        // chroot must exist beforehand).
        int slash = connect.indexOf('/');
        String namespace = slash < 0 ? null : connect.substring(slash + 1);
        String servers = slash < 0 ? connect : connect.substring(0, slash);
        CuratorFrameworkFactory.Builder cb = CuratorFrameworkFactory.builder()
                .connectString(servers)
                .namespace(namespace == null || namespace.isEmpty() ? null : namespace)
                .sessionTimeoutMs((int) o.sessionTimeout().toMillis())
                .connectionTimeoutMs((int) o.connectionTimeout().toMillis())
                .retryPolicy(new ExponentialBackoffRetry(50, 4))
                .threadFactory(factory);
        o.digestCredentials().ifPresent(cred -> cb.authorization("digest", cred.getBytes(StandardCharsets.UTF_8)));
        if (o.tls()) {
            cb.zkClientConfig(tlsClientConfig(o));
        }
        CuratorFramework client = cb.build();
        client.start();
        try {
            if (!client.blockUntilConnected((int) o.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                client.close();
                throw new BackendUnavailableException(
                        "could not connect to ZooKeeper within " + o.connectionTimeout(), null, "zookeeper", null);
            }
        } catch (InterruptedException e) {
            client.close();
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while connecting to ZooKeeper", null, "zookeeper", e);
        }
        return client;
    }

    /** A per-client configuration for TLS: no system property is read for these settings or set. */
    private static ZKClientConfig tlsClientConfig(ZooKeeperLockOptions o) {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        config.setProperty("zookeeper.ssl.hostnameVerification", "true");
        // ZooKeeper 3.9 clients offer only TLSv1.3 by default; 3.8 servers default to TLSv1.2
        config.setProperty("zookeeper.ssl.enabledProtocols", "TLSv1.3,TLSv1.2");
        o.tlsTrustStore().ifPresent(path -> config.setProperty("zookeeper.ssl.trustStore.location", path.toString()));
        o.tlsTrustStorePassword().ifPresent(pw -> config.setProperty("zookeeper.ssl.trustStore.password", pw));
        return config;
    }

    private static List<ACL> acl(String credentials) {
        try {
            Id owner = new Id("digest", DigestAuthenticationProvider.generateDigest(credentials));
            return List.of(
                    new ACL(ZooDefs.Perms.ALL, owner), new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA1 digest is not available", e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public DistributedLock lock(String name) {
        return engine.lock(name);
    }

    @Override
    public Capabilities capabilities() {
        return engine.capabilities();
    }

    @Override
    public String backend() {
        return engine.backend();
    }

    /** The options this provider runs with. */
    public ZooKeeperLockOptions options() {
        return options;
    }

    /** The Curator client this provider uses (its own, or the one it was given). */
    public CuratorFramework curator() {
        return curator;
    }

    /** The ZooKeeper path of lock {@code name}'s parent node, relative to the chroot (Curator namespace). */
    public String lockPath(String name) {
        return driver.lockPath(name);
    }

    @Override
    public List<Lease> heldLeases() {
        return engine.heldLeases();
    }

    /** The negotiated (or requested, before the first connection) session timeout. */
    public Duration sessionTimeout() {
        return driver.sessionTimeout();
    }

    /**
     * Simulates a crash of this client, for tests: the connection is dropped without closing the
     * session, so the server removes its nodes only when the session times out. Its leases are
     * reported lost locally. With a client given to the builder, only the provider is abandoned.
     */
    public void simulateCrash() {
        driver.crashOnClose();
        engine.abandon();
    }

    /** For tests in this package: counters of the driver. */
    ZkDriver driver() {
        return driver;
    }

    /**
     * Releases held leases, wakes waiters, and closes the Curator client if the provider created
     * it (a client given to the builder stays open).
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "ZooKeeperLockProvider{" + options + '}';
    }

    /** Builder for {@link ZooKeeperLockProvider}. */
    public static final class Builder {
        private ZooKeeperLockOptions.Builder options = ZooKeeperLockOptions.builder();
        private CuratorFramework curator;

        private Builder() {}

        /** All settings at once (replaces earlier calls of the shortcuts below). */
        public Builder options(ZooKeeperLockOptions options) {
            this.options =
                    Objects.requireNonNull(options, "options must not be null").mutate();
            return this;
        }

        /** Shortcut for {@link ZooKeeperLockOptions.Builder#connectString(String)}. */
        public Builder connectString(String connectString) {
            options.connectString(connectString);
            return this;
        }

        /** Shortcut for {@link ZooKeeperLockOptions.Builder#lockOptions(LockOptions)}. */
        public Builder lockOptions(LockOptions lockOptions) {
            options.lockOptions(lockOptions);
            return this;
        }

        /**
         * Uses an existing, started client instead of creating one. The provider does not close it;
         * its session timeout and authentication are the client's. {@code connectString} is then
         * ignored.
         */
        public Builder curator(CuratorFramework curator) {
            this.curator = Objects.requireNonNull(curator, "curator must not be null");
            return this;
        }

        public ZooKeeperLockProvider build() {
            return new ZooKeeperLockProvider(this);
        }
    }
}
