package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.TimeoutOptions;
import io.distlock.spi.FaultHooks;
import io.distlock.tck.TckFixture;
import io.distlock.testing.faults.SlowReplies;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperEnsemble;
import io.distlock.testing.servers.ZooKeeperServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * TCK fixture for ZooKeeper: every client is a provider with its own Curator client (own session).
 * expireLease expires the holder's session on the server (a second handle with the same session id
 * and password closes it); crashClient drops a client's connection without closing its session (the
 * provider's {@link FaultHooks}). With {@link #proxied()}, every client reaches each server through
 * its own {@link TcpProxy}, and cutClientNetwork blackholes that client's proxies (both directions,
 * connections left open, as a partition: the session then expires on the server after its timeout).
 *
 * <p>newClientWithWrongCredentials: ZooKeeper's digest authentication never fails by itself (any
 * {@code user:password} is an identity), so a server "requires" credentials through ACLs. The
 * fixture makes a root path, {@value #AUTHENTICATED_ROOT}, whose ACL gives all permissions to the
 * digest identity {@code tck:<right password>} and READ to everyone; the client gets that user with
 * a wrong password and locks under that root, where its first create is refused ({@code NoAuth}).
 */
final class ZooKeeperFixture implements TckFixture {
    /** The root whose ACL only the digest identity {@code tck:}{@link #RIGHT_PASSWORD} may write. */
    static final String AUTHENTICATED_ROOT = "/distlock-authenticated";

    static final String AUTH_USER = "tck";
    static final String RIGHT_PASSWORD = "right-Zk-pw-51c7";
    private static final TimeoutOptions CONNECT_5S =
            TimeoutOptions.defaults().withConnectTimeout(Duration.ofSeconds(5));

    private final String connectString;
    private final AutoCloseable server;
    private final Runnable stop;
    private final Runnable start;
    private final IntSupplier connections;
    private final CuratorFramework admin;
    private final List<ZooKeeperLockProvider> clients = new CopyOnWriteArrayList<>();
    private final Map<LockProvider, List<TcpProxy>> proxies = new ConcurrentHashMap<>();
    private volatile boolean proxied;

    private ZooKeeperFixture(
            String connectString, AutoCloseable server, Runnable stop, Runnable start, IntSupplier connections) {
        this.connectString = connectString;
        this.server = server;
        this.stop = stop;
        this.start = start;
        this.connections = connections;
        this.admin = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000, new RetryOneTime(50));
        admin.start();
    }

    /** A fixture on a new standalone server. */
    static ZooKeeperFixture singleServer() {
        EmbeddedZk zk = EmbeddedZk.start();
        return new ZooKeeperFixture(zk.connectString(), zk, zk::stopServer, zk::startServer, zk::connectionCount);
    }

    /** A fixture on a new 3-server in-process ensemble (curator-test). */
    static ZooKeeperFixture ensemble(TestingCluster cluster) {
        return new ZooKeeperFixture(cluster.getConnectString(), cluster, null, null, null);
    }

    /** A fixture on a standalone ZooKeeper 3.8 server in its own process (lock-testing launcher). */
    static ZooKeeperFixture serverProcess() {
        TestServer s = ZooKeeperServer.start();
        return new ZooKeeperFixture(s.address(), s, s::kill, () -> s.restart(true), () -> aliveConnections(List.of(s)))
                .proxied();
    }

    /** A fixture on a 3-server ZooKeeper 3.8 ensemble, one process per server (lock-testing launcher). */
    static ZooKeeperFixture ensembleProcesses(ZooKeeperEnsemble e) {
        return new ZooKeeperFixture(
                e.connectString(),
                e,
                () -> e.members().forEach(TestServer::kill),
                () -> {
                    // in parallel: a member only answers once a quorum is back
                    List<java.util.concurrent.CompletableFuture<Void>> restarts = e.members().stream()
                            .map(m -> java.util.concurrent.CompletableFuture.runAsync(() -> m.restart(true)))
                            .toList();
                    restarts.forEach(java.util.concurrent.CompletableFuture::join);
                },
                () -> aliveConnections(e.members()));
    }

    /** Client connections the servers see ({@code mntr zk_num_alive_connections}, minus the probe's own). */
    static int aliveConnections(List<TestServer> servers) {
        int total = 0;
        for (TestServer s : servers) {
            String mntr = fourLetter(s.host(), s.port(), "mntr");
            for (String line : mntr.split("\n")) {
                if (line.startsWith("zk_num_alive_connections")) {
                    total += Integer.parseInt(line.split("\\s+")[1].trim()) - 1;
                }
            }
        }
        return total;
    }

    /** Sends a four-letter word and returns the answer. */
    static String fourLetter(String host, int port, String word) {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress(host, port), 2000);
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(word.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    String connectString() {
        return connectString;
    }

    /** From now on, every new client reaches each server through its own proxy (cutClientNetwork). */
    ZooKeeperFixture proxied() {
        this.proxied = true;
        return this;
    }

    /** The standalone server (single-server fixtures only). */
    EmbeddedZk embedded() {
        return (EmbeddedZk) server;
    }

    CuratorFramework admin() {
        return admin;
    }

    @Override
    public String backend() {
        return "zookeeper";
    }

    /** The ZooKeeper options of every fixture client: a 5 s connect timeout. */
    ZooKeeperLockOptions.Builder options() {
        return ZooKeeperLockOptions.builder().timeouts(CONNECT_5S);
    }

    @Override
    public LockProvider newClient(LockOptions options) {
        return newClient(options, options().build());
    }

    /** A client with these ZooKeeper options, through proxies if the fixture is {@link #proxied()}. */
    LockProvider newClient(LockOptions lockOptions, ZooKeeperLockOptions options) {
        return proxied ? newProxiedClient(lockOptions, options) : newZkClient(lockOptions, options);
    }

    /** A client connected directly to the servers. */
    ZooKeeperLockProvider newZkClient(LockOptions options) {
        return newZkClient(options, options().build());
    }

    /**
     * A client connected directly to the servers, with these ZooKeeper options. The fixture builds
     * clients only while the servers run, so a first connection that takes longer than the 5 s
     * connect timeout (a loaded CI machine, an ensemble member still catching up after a restart) is
     * tried once more before the test fails.
     */
    ZooKeeperLockProvider newZkClient(LockOptions lockOptions, ZooKeeperLockOptions options) {
        try {
            return track(build(lockOptions, options));
        } catch (BackendUnavailableException slow) {
            return track(build(lockOptions, options));
        }
    }

    private ZooKeeperLockProvider build(LockOptions lockOptions, ZooKeeperLockOptions options) {
        return ZooKeeperLockProvider.builder()
                .connectString(connectString)
                .options(options)
                .lockOptions(lockOptions)
                .build();
    }

    /**
     * A client presenting user {@value #AUTH_USER} with a wrong password, locking under {@link
     * #AUTHENTICATED_ROOT} (see the class description): its first create there is refused.
     */
    @Override
    public LockProvider newClientWithWrongCredentials(LockOptions options) {
        ensureAuthenticatedRoot();
        return newClient(
                options,
                options()
                        .rootPath(AUTHENTICATED_ROOT)
                        .credentials(Credentials.of(AUTH_USER, "wrong-" + RIGHT_PASSWORD))
                        .build());
    }

    /** Creates {@link #AUTHENTICATED_ROOT} (once) with an ACL for the right credentials only. */
    void ensureAuthenticatedRoot() {
        try {
            Id owner = new Id("digest", DigestAuthenticationProvider.generateDigest(AUTH_USER + ":" + RIGHT_PASSWORD));
            admin.create()
                    .withACL(List.of(
                            new ACL(ZooDefs.Perms.ALL, owner),
                            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
                    .forPath(AUTHENTICATED_ROOT);
        } catch (KeeperException.NodeExistsException e) {
            // made by an earlier call
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private LockProvider newProxiedClient(LockOptions lockOptions, ZooKeeperLockOptions options) {
        List<TcpProxy> own = new ArrayList<>();
        try {
            List<String> through = new ArrayList<>();
            for (String server : connectString.split(",")) {
                int colon = server.lastIndexOf(':');
                TcpProxy proxy =
                        TcpProxy.start(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1)));
                own.add(proxy);
                through.add(proxy.address());
            }
            ZooKeeperLockProvider p = track(ZooKeeperLockProvider.builder()
                    .connectString(String.join(",", through))
                    .options(options)
                    .lockOptions(lockOptions)
                    .build());
            ProxiedClient c = new ProxiedClient(p, own);
            proxies.put(c, own);
            return c;
        } catch (RuntimeException e) {
            own.forEach(TcpProxy::close);
            throw e;
        }
    }

    /** A client whose close also stops its proxies (so no proxy thread outlives the client). */
    private static final class ProxiedClient implements LockProvider {
        final ZooKeeperLockProvider provider;
        final List<TcpProxy> own;

        ProxiedClient(ZooKeeperLockProvider provider, List<TcpProxy> own) {
            this.provider = provider;
            this.own = own;
        }

        @Override
        public io.distlock.DistributedLock lock(String name) {
            return provider.lock(name);
        }

        @Override
        public io.distlock.Capabilities capabilities() {
            return provider.capabilities();
        }

        @Override
        public String backend() {
            return provider.backend();
        }

        @Override
        public List<io.distlock.Lease> heldLeases() {
            return provider.heldLeases();
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return provider.unwrap(type);
        }

        @Override
        public void close() {
            try {
                provider.close();
            } finally {
                own.forEach(TcpProxy::close);
            }
        }

        @Override
        public String toString() {
            return provider + " via proxies";
        }
    }

    /** A client that reaches every server through its own proxy whose replies arrive {@code delay} late. */
    @Override
    public LockProvider newClientWithReplyDelay(LockOptions options, Duration delay) {
        return SlowReplies.open(
                List.of(connectString.split(",")),
                delay,
                through -> track(ZooKeeperLockProvider.builder()
                        .connectString(String.join(",", through))
                        .options(options().build())
                        .lockOptions(options)
                        .build()));
    }

    /** Packets the servers received ({@code mntr zk_packets_received}, summed over the connect string). */
    @Override
    public long serverRequestCount() {
        long n = 0;
        for (String server : connectString.split(",")) {
            int colon = server.lastIndexOf(':');
            String mntr = fourLetter(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1)), "mntr");
            for (String line : mntr.split("\n")) {
                if (line.startsWith("zk_packets_received")) {
                    n += Long.parseLong(line.split("\\s+")[1].trim());
                }
            }
        }
        return n;
    }

    static ZooKeeperLockProvider providerOf(LockProvider client) {
        return client instanceof ProxiedClient c ? c.provider : (ZooKeeperLockProvider) client;
    }

    @Override
    public void cutClientNetwork(LockProvider client) {
        proxiesOf(client).forEach(p -> p.blackhole(TcpProxy.Direction.BOTH));
    }

    @Override
    public void restoreClientNetwork(LockProvider client) {
        proxiesOf(client).forEach(TcpProxy::resume);
    }

    /** The proxies between {@code client} and the servers (fixtures made {@link #proxied()}). */
    List<TcpProxy> proxiesOf(LockProvider client) {
        List<TcpProxy> own = proxies.get(client);
        if (own == null) {
            throw new UnsupportedOperationException(
                    "client was not opened through a proxy by this fixture (use ZooKeeperFixture.proxied())");
        }
        return own;
    }

    ZooKeeperLockProvider track(ZooKeeperLockProvider p) {
        clients.add(p);
        return p;
    }

    /** The queue nodes of {@code lockName}, in sequence order (empty if the parent is gone). */
    List<String> children(String lockPath) {
        try {
            List<String> c = admin.getChildren().forPath(lockPath);
            c.sort(Comparator.comparing(s -> s.substring(s.length() - 10)));
            return c;
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void expireLease(String lockName) {
        String parent = "/distlock/" + io.distlock.LockNames.encode(lockName);
        List<String> c = children(parent);
        if (c.isEmpty()) {
            throw new IllegalStateException("lock '" + lockName + "' has no holder");
        }
        try {
            Stat stat = admin.checkExists().forPath(parent + "/" + c.get(0));
            if (stat == null) {
                return;
            }
            for (ZooKeeperLockProvider p : clients) {
                CuratorFramework curator = p.internals().curator();
                if (curator.getState() != org.apache.curator.framework.imps.CuratorFrameworkState.STARTED) {
                    continue;
                }
                ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
                if (zk.getSessionId() == stat.getEphemeralOwner()) {
                    expireSession(connectString, zk.getSessionId(), zk.getSessionPasswd());
                    return;
                }
            }
            // not one of ours: the holder is unknown, so remove its node as the server would
            admin.delete().forPath(parent + "/" + c.get(0));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Expires session {@code id} on the server: a second handle with its password closes it. */
    static void expireSession(String connectString, long id, byte[] password) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(
                connectString,
                10_000,
                e -> {
                    if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                        connected.countDown();
                    }
                },
                id,
                password);
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not connect with session 0x" + Long.toHexString(id));
            }
        } finally {
            zk.close();
        }
    }

    @Override
    public void crashClient(LockProvider client) {
        TckFixture.super.crashClient(client);
        List<TcpProxy> own = proxies.get(client);
        if (own != null) {
            own.forEach(TcpProxy::close); // the crashed client's connections are already dropped
        }
    }

    @Override
    public void stopServer() {
        if (stop == null) {
            TckFixture.super.stopServer();
        } else {
            stop.run();
        }
    }

    @Override
    public void startServer() {
        if (start == null) {
            TckFixture.super.startServer();
        } else {
            start.run();
        }
    }

    @Override
    public int serverConnectionCount() {
        if (connections == null) {
            return TckFixture.super.serverConnectionCount();
        }
        return connections.getAsInt() - (admin.getZookeeperClient().isConnected() ? 1 : 0); // minus the admin client
    }

    @Override
    public void close() {
        for (ZooKeeperLockProvider p : clients) {
            try {
                p.close();
            } catch (RuntimeException ignored) {
                // already closed or crashed
            }
        }
        admin.close();
        proxies.values().forEach(list -> list.forEach(TcpProxy::close));
        try {
            server.close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
