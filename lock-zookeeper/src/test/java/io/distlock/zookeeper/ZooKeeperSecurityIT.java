package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
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
 * delete, change nor re-ACL a held lock's node, nor create a node in the lock's parent, and its
 * provider fails at once with a configuration error), TLS with a CA generated for the test (a trust
 * that does not accept the server is a configuration error at once), clients with the same
 * credentials, and no password in any output.
 */
@Timeout(90)
class ZooKeeperSecurityIT {
    static final String PASSWORD = "s3cret-Zk-Pw-9d0c1f";
    private static final LockOptions SHORT =
            LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build();
    private static final TimeoutOptions CONNECT_10S =
            TimeoutOptions.defaults().withConnectTimeout(Duration.ofSeconds(10));

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
                .connectString(secureConnectString) // the servers' secureClientPort
                .options(ZooKeeperLockOptions.builder()
                        .rootPath("/secured")
                        .credentials(Credentials.of("locks", PASSWORD)) // ACL on every node the provider creates
                        .tls(TlsOptions.builder()
                                .trustStore(certs.trustStore(), certs.storePassword()) // CA certificates
                                .build())
                        .timeouts(TimeoutOptions.defaults().withConnectTimeout(Duration.ofSeconds(10)))
                        .build())
                .lockOptions(SHORT)
                .build();
        // README-END
        return track(locks);
    }

    /** A provider on the TLS port with {@code tls} and a 10 s connect timeout. */
    private static ZooKeeperLockProvider.Builder tlsClient(TlsOptions tls) {
        return ZooKeeperLockProvider.builder()
                .connectString(server.secureConnectString())
                .options(ZooKeeperLockOptions.builder()
                        .credentials(Credentials.of("locks", PASSWORD))
                        .tls(tls)
                        .timeouts(CONNECT_10S)
                        .build())
                .lockOptions(SHORT);
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
        ZooKeeperLockOptions.Builder b =
                ZooKeeperLockOptions.builder().rootPath("/secured").timeouts(CONNECT_10S);
        if (user != null) {
            b.credentials(Credentials.of(user, password));
        }
        return track(ZooKeeperLockProvider.builder()
                .connectString(server.address())
                .options(b.build())
                .lockOptions(SHORT)
                .build());
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
        assertThat(a.toString())
                .contains("tls=TlsOptions{trust=store")
                .doesNotContain(PASSWORD)
                .doesNotContain(certs.storePassword());
    }

    @Test
    void tls_pemTrustCertificates_locksWork() {
        ZooKeeperLockProvider p = track(tlsClient(TlsOptions.builder()
                        .trustCertificates(certs.caCertificate())
                        .build())
                .build());
        Lease lease = p.lock(name).tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
    }

    @Test
    void tls_uriWithTrustStore_locksWorkAndPasswordsNeverShown() {
        String uri = "zookeeper://locks:" + PASSWORD + "@" + server.secureConnectString()
                + "?rootPath=/secured&leaseTime=2s&connectTimeout=10s&trustStore="
                + URLEncoder.encode(certs.trustStore().toString(), StandardCharsets.UTF_8) + "&trustStorePassword="
                + certs.storePassword();
        LockProvider p = track(LockProviders.open(uri));
        Lease lease = p.lock(name).tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
        assertThat(p.toString()).doesNotContain(PASSWORD).doesNotContain(certs.storePassword());
    }

    @Test
    void tls_trustStoreOfAnotherCa_configurationErrorAtOnce() {
        try (TestCertificates other = TestCertificates.generate()) {
            long start = System.nanoTime();
            String logged = LogCapture.during(() -> assertThatThrownBy(() -> tlsClient(TlsOptions.builder()
                                    .trustStore(other.trustStore(), other.storePassword())
                                    .build())
                            .build())
                    .isInstanceOf(LockConfigurationException.class)
                    .satisfies(e -> assertThat(LogCapture.fullText(e))
                            .contains("certificate")
                            .contains(server.secureConnectString())
                            .doesNotContain(PASSWORD)
                            .doesNotContain(other.storePassword())));
            // one handshake, not the 10 s connect timeout of an outage
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
            assertThat(logged).doesNotContain(PASSWORD).doesNotContain(other.storePassword());
        }
    }

    @Test
    void tls_wrongTrustStorePassword_configurationErrorWithoutThePassword() {
        String wrong = "not-" + certs.storePassword();
        assertThatThrownBy(() -> tlsClient(TlsOptions.builder()
                                .trustStore(certs.trustStore(), wrong)
                                .build())
                        .build())
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(LogCapture.fullText(e))
                        .contains("could not be loaded")
                        .doesNotContain(wrong));
    }

    @Test
    void tls_plainClientOnSecurePort_cannotConnect() {
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder()
                        .connectString(server.secureConnectString())
                        .options(ZooKeeperLockOptions.builder()
                                .timeouts(TimeoutOptions.defaults().withConnectTimeout(Duration.ofSeconds(2)))
                                .build())
                        .lockOptions(SHORT)
                        .build())
                .isInstanceOf(BackendUnavailableException.class);
    }

    @Test
    void digestAcl_clientWithoutOrWithWrongCredentials_cannotDeleteChangeOrCreate() throws Exception {
        ZooKeeperLockProvider holder = secureClient();
        Lease lease = holder.lock(name).acquire();
        String parent = holder.internals().lockPath(name);
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
        // lock providers without or with wrong credentials cannot take the lock either, not even
        // once it is free: a configuration error at once, never retried within the wait
        ZooKeeperLockProvider noCredentials = plainClient(null, null);
        ZooKeeperLockProvider wrongPassword = plainClient("locks", "not-" + PASSWORD);
        for (ZooKeeperLockProvider p : List.of(noCredentials, wrongPassword)) {
            assertRefusedAtOnce(p);
        }
        assertThat(anonymous.getChildren().forPath(parent)).containsExactlyElementsOf(children);
        assertThat(lease.release()).isTrue();
        for (ZooKeeperLockProvider p : List.of(noCredentials, wrongPassword)) {
            assertRefusedAtOnce(p);
        }
    }

    /** {@code tryAcquire(10 s)} fails with a configuration error naming NoAuth, well before the wait ends. */
    private void assertRefusedAtOnce(ZooKeeperLockProvider p) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(10)))
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(LogCapture.fullText(e))
                        .contains("NoAuth")
                        .contains(name)
                        .doesNotContain(PASSWORD));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void parentWithoutWritePermission_createFallsBackFromTheMulti_locksStillWork() throws Exception {
        ZooKeeperLockProvider p = plainClient("locks", PASSWORD);
        String parent = p.internals().lockPath(name);
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
        assertThat(p.internals().counters().multiCreates())
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
        String parent = a.internals().lockPath(name);
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
                + "?rootPath=/secured&leaseTime=2s&connectTimeout=10s&trustStore="
                + URLEncoder.encode(certs.trustStore().toString(), StandardCharsets.UTF_8) + "&trustStorePassword="
                + certs.storePassword();
        String logged = LogCapture.wholeSessionAtTrace(() -> LockProviders.open(uri), name, () -> {});
        LogCapture.assertNoSecret(logged, PASSWORD);
        LogCapture.assertNoSecret(logged, certs.storePassword());
    }
}
