package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.build.ReadmeExamples;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.TestCertificates;
import io.distlock.testing.servers.ZooKeeperServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Secure configuration against a real ZooKeeper server with a TLS client port ({@code
 * secureClientPort}, Netty): digest ACLs (a client without or with wrong credentials can neither
 * delete, change nor re-ACL a held lock's node, nor create a node in the lock's parent), TLS with a
 * CA generated for the test, clients with the same credentials, and no password in any output.
 */
@Timeout(90)
class ZooKeeperSecurityIT {
    static final String PASSWORD = "s3cret-Zk-Pw-9d0c1f";
    private static final LockOptions SHORT =
            LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build();

    private static TestCertificates certs;
    private static ZooKeeperServer.TlsServer server;
    /** A client of the plain port without any credentials. */
    private static CuratorFramework anonymous;

    private final List<LockProvider> providers = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startServer() throws InterruptedException {
        certs = TestCertificates.generate();
        server = ZooKeeperServer.startWithTls(certs);
        anonymous = CuratorFrameworkFactory.newClient(server.address(), 5_000, 5_000, new RetryOneTime(50));
        anonymous.start();
        assertThat(anonymous.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
    }

    @AfterAll
    static void stopServer() {
        if (anonymous != null) {
            anonymous.close();
        }
        if (server != null) {
            server.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    @BeforeEach
    void name(TestInfo info) {
        name = "sec/" + info.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void close() {
        providers.forEach(LockProvider::close);
    }

    private <P extends LockProvider> P track(P p) {
        providers.add(p);
        return p;
    }

    private ZooKeeperLockProvider secureClient() {
        String secureConnectString = server.secureConnectString();
        // README-BEGIN secure-configuration
        ZooKeeperLockProvider locks = ZooKeeperLockProvider.builder()
                .options(ZooKeeperLockOptions.builder()
                        .connectString(secureConnectString) // the servers' secureClientPort
                        .rootPath("/secured")
                        .digestCredentials("locks", PASSWORD) // ACL on every node the provider creates
                        .tls(true)
                        .tlsTrustStore(certs.trustStore(), certs.storePassword()) // CA certificates
                        .connectionTimeout(Duration.ofSeconds(10))
                        .lockOptions(SHORT)
                        .build())
                .build();
        // README-END
        return track(locks);
    }

    /** A started, connected Curator client on the plain port authenticated as {@code user:password}. */
    private static CuratorFramework digestClient(String userAndPassword) throws InterruptedException {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(server.address())
                .retryPolicy(new RetryOneTime(50))
                .authorization("digest", userAndPassword.getBytes(StandardCharsets.UTF_8))
                .build();
        c.start();
        assertThat(c.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return c;
    }

    private ZooKeeperLockProvider plainClient(String user, String password) {
        ZooKeeperLockOptions.Builder b = ZooKeeperLockOptions.builder()
                .connectString(server.address())
                .rootPath("/secured")
                .connectionTimeout(Duration.ofSeconds(10))
                .lockOptions(SHORT);
        if (user != null) {
            b.digestCredentials(user, password);
        }
        return track(ZooKeeperLockProvider.builder().options(b.build()).build());
    }

    @Test
    void tls_digestCredentials_locksWorkOverTheSecurePort() throws Exception {
        ZooKeeperLockProvider a = secureClient();
        ZooKeeperLockProvider b = secureClient();
        Lease held = a.lock(name).acquire();
        CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return b.lock(name).tryAcquire(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
        Lease second = waiter.get(20, TimeUnit.SECONDS).orElseThrow();
        assertThat(second.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(second.release()).isTrue();
        assertThat(a.toString()).contains("tls=true").doesNotContain(PASSWORD).doesNotContain(certs.storePassword());
    }

    @Test
    void tls_uriWithTrustStore_locksWorkAndPasswordsNeverShown() {
        String uri = "zookeeper://locks:" + PASSWORD + "@" + server.secureConnectString()
                + "?rootPath=/secured&leaseTime=2s&connectionTimeout=10s&tls=true&tlsTrustStore="
                + URLEncoder.encode(certs.trustStore().toString(), StandardCharsets.UTF_8) + "&tlsTrustStorePassword="
                + certs.storePassword();
        LockProvider p = track(LockProviders.open(uri));
        Lease lease = p.lock(name).tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
        assertThat(p.toString()).doesNotContain(PASSWORD).doesNotContain(certs.storePassword());
    }

    @Test
    void tls_trustStoreOfAnotherCa_cannotConnect() {
        try (TestCertificates other = TestCertificates.generate()) {
            String logged = LogCapture.during(() -> assertThatThrownBy(() -> ZooKeeperLockProvider.builder()
                            .options(ZooKeeperLockOptions.builder()
                                    .connectString(server.secureConnectString())
                                    .digestCredentials("locks", PASSWORD)
                                    .tls(true)
                                    .tlsTrustStore(other.trustStore(), other.storePassword())
                                    .connectionTimeout(Duration.ofSeconds(2))
                                    .lockOptions(SHORT)
                                    .build())
                            .build())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertThat(LogCapture.fullText(e))
                            .contains("could not connect")
                            .doesNotContain(PASSWORD)));
            assertThat(logged).doesNotContain(PASSWORD).doesNotContain(other.storePassword());
        }
    }

    @Test
    void tls_plainClientOnSecurePort_cannotConnect() {
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder()
                        .options(ZooKeeperLockOptions.builder()
                                .connectString(server.secureConnectString())
                                .connectionTimeout(Duration.ofSeconds(2))
                                .lockOptions(SHORT)
                                .build())
                        .build())
                .isInstanceOf(BackendUnavailableException.class);
    }

    @Test
    void digestAcl_clientWithoutOrWithWrongCredentials_cannotDeleteChangeOrCreate() throws Exception {
        ZooKeeperLockProvider holder = secureClient();
        Lease lease = holder.lock(name).acquire();
        String parent = holder.lockPath(name);
        List<String> children = anonymous.getChildren().forPath(parent);
        assertThat(children).hasSize(1);
        String node = parent + "/" + children.get(0);
        List<ACL> acl = anonymous.getACL().forPath(node);
        assertThat(acl)
                .as("all permissions only for the digest identity, read for everyone")
                .hasSize(2)
                .anySatisfy(a -> assertThat(a.getId().getScheme()).isEqualTo("digest"))
                .anySatisfy(a -> {
                    assertThat(a.getId()).isEqualTo(ZooDefs.Ids.ANYONE_ID_UNSAFE);
                    assertThat(a.getPerms()).isEqualTo(ZooDefs.Perms.READ);
                });
        try (CuratorFramework wrong = digestClient("locks:not-" + PASSWORD)) {
            for (CuratorFramework intruder : List.of(anonymous, wrong)) {
                assertThatThrownBy(() -> intruder.delete().forPath(node))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> intruder.setData().forPath(node, new byte[] {1}))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> intruder.setACL()
                                .withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE)
                                .forPath(node))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> intruder.create().forPath(parent + "/intruder"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> intruder.create().forPath(parent + "/lock-0000000000"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> intruder.setACL()
                                .withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE)
                                .forPath(parent))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> intruder.create().forPath("/secured/other-lock"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
            }
        }
        assertThat(anonymous.getChildren().forPath(parent)).containsExactlyElementsOf(children);
        assertThat(lease.isValid()).isTrue();
        // a lock provider without credentials cannot take the lock either, not even once it is free
        ZooKeeperLockProvider noCredentials = plainClient(null, null);
        assertThatThrownBy(() -> noCredentials.lock(name).tryAcquire())
                .satisfies(e -> assertThat(LogCapture.fullText(e)).contains("NoAuth"));
        assertThat(lease.release()).isTrue();
        assertThatThrownBy(() -> noCredentials.lock(name).tryAcquire())
                .satisfies(e -> assertThat(LogCapture.fullText(e)).contains("NoAuth"));
    }

    @Test
    void parentWithoutWritePermission_createFallsBackFromTheMulti_locksStillWork() throws Exception {
        ZooKeeperLockProvider p = plainClient("locks", PASSWORD);
        String parent = p.lockPath(name);
        // the lock's parent made beforehand by an operator: our identity may create, delete and
        // read in it, but not set its data (which the one-request create's multi does)
        Id locks = new Id("digest", DigestAuthenticationProvider.generateDigest("locks:" + PASSWORD));
        try (CuratorFramework operator = digestClient("locks:" + PASSWORD)) {
            operator.create()
                    .creatingParentsIfNeeded()
                    .withACL(List.of(
                            new ACL(ZooDefs.Perms.CREATE | ZooDefs.Perms.DELETE | ZooDefs.Perms.READ, locks),
                            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
                    .forPath(parent);
        }
        for (int i = 0; i < 3; i++) {
            Lease lease = p.lock(name).tryAcquire().orElseThrow();
            assertThat(lease.fencingToken()).isPresent();
            assertThat(anonymous.getChildren().forPath(parent)).hasSize(1);
            assertThat(lease.release()).isTrue();
        }
        assertThat(p.driver().multiCreates())
                .as("refused once, then plain creates")
                .isZero();
        assertThat(anonymous.getChildren().forPath(parent)).isEmpty();
        assertThat(anonymous.checkExists().forPath(parent).getVersion())
                .as("the parent's data was never set")
                .isZero();
    }

    @Test
    void otherClient_sameCredentials_cannotReleaseOrTakeTheHeldLock() throws Exception {
        ZooKeeperLockProvider a = secureClient();
        ZooKeeperLockProvider b = plainClient("locks", PASSWORD);
        Lease held = a.lock(name).acquire();
        String parent = a.lockPath(name);
        String node = parent + "/" + anonymous.getChildren().forPath(parent).get(0);
        Stat before = anonymous.checkExists().forPath(node);
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        Optional<Lease> timedOut = b.lock(name).tryAcquire(Duration.ofMillis(300));
        assertThat(timedOut).isEmpty();
        // b's attempts leave nothing behind and never touch a's node
        assertThat(anonymous.getChildren().forPath(parent)).containsExactly(node.substring(parent.length() + 1));
        Stat after = anonymous.checkExists().forPath(node);
        assertThat(after.getCzxid()).isEqualTo(before.getCzxid());
        assertThat(after.getEphemeralOwner()).isEqualTo(before.getEphemeralOwner());
        b.close(); // closing the other client (same credentials) releases only its own leases
        assertThat(anonymous.checkExists().forPath(node)).isNotNull();
        assertThat(held.isValid()).isTrue();
        assertThat(held.release()).isTrue();
    }

    @Test
    void readme_secureConfigurationExample_isTheTestedOne() {
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"),
                Path.of("src/test/java/io/distlock/zookeeper/ZooKeeperSecurityIT.java"),
                "secure-configuration");
    }

    @Test
    void secrets_wholeSessionWithClientLoggersAtTrace_appearInNoLogLine() {
        String uri = "zookeeper://locks:" + PASSWORD + "@" + server.secureConnectString()
                + "?rootPath=/secured&leaseTime=2s&connectionTimeout=10s&tls=true&tlsTrustStore="
                + URLEncoder.encode(certs.trustStore().toString(), StandardCharsets.UTF_8) + "&tlsTrustStorePassword="
                + certs.storePassword();
        String logged = LogCapture.wholeSessionAtTrace(() -> LockProviders.open(uri), name, () -> {});
        LogCapture.assertNoSecret(logged, PASSWORD);
        LogCapture.assertNoSecret(logged, certs.storePassword());
    }
}
