package io.distlock.redlock;

import static io.distlock.redlock.RedlockTestAccess.lockKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TlsOptions;
import io.distlock.build.ReadmeExamples;
import io.distlock.redis.core.Scripts;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import io.distlock.testing.servers.TestCertificates;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Secure configuration of Redlock against three real masters, each with TLS only, a {@code default}
 * user password and the lock user's ACL rule as documented; owner isolation and foreign values.
 */
@Timeout(60)
class RedlockSecurityIT {
    private static final String ADMIN_PASSWORD = "admin-Pw-51aa0e";
    static final String USER = "locks";
    static final String PASSWORD = "s3cret-Redlock-Pw-8e21";

    /**
     * The minimal ACL rule of the lock user (keyPrefix {@code distlock-redlock}), after {@code ACL
     * SETUSER locks reset on >password}, exactly as documented in README.md.
     */
    static final String ACL_RULE = "~distlock-redlock:* &distlock-redlock:* -@all +evalsha +eval +script|load +ping "
            + "+subscribe +unsubscribe +client|setname +get +set +del +pttl +pexpire +publish +time +exists +zrange"
            + " +zadd +zrem +zscore +hget +hset +hdel";

    private static final String DENIED = "(?s).*(NOPERM|user executing the script can't (run this command|access)).*";

    private static TestCertificates certs;
    private static RedisServers nodes;

    private final List<LockProvider> providers = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startNodes() throws IOException {
        certs = TestCertificates.generate();
        nodes = RedisServers.independentMasters(
                3, b -> b.password(ADMIN_PASSWORD).tls(certs));
        for (RedisServer node : nodes.servers()) {
            List<String> cmd = new ArrayList<>(List.of("ACL", "SETUSER", USER, "reset", "on", ">" + PASSWORD));
            cmd.addAll(List.of(ACL_RULE.split(" ")));
            assertThat(node.call(cmd.toArray(new String[0]))).isEqualTo("OK");
        }
    }

    @AfterAll
    static void stopNodes() {
        if (nodes != null) {
            nodes.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    @BeforeEach
    void name(TestInfo info) throws IOException {
        name = "sec/" + info.getTestMethod().orElseThrow().getName();
        for (RedisServer node : nodes.servers()) {
            node.call("ACL", "LOG", "RESET");
        }
    }

    @AfterEach
    void close() {
        providers.forEach(LockProvider::close);
    }

    private <P extends LockProvider> P track(P p) {
        providers.add(p);
        return p;
    }

    private RedlockLockProvider aclClient(Duration leaseTime) {
        List<String> addresses = List.of(nodes.addresses().split(","));
        // README-BEGIN secure-configuration
        RedlockLockProvider locks = RedlockLockProvider.builder()
                .nodes(addresses) // each node: TLS, the ACL user below
                .options(RedlockLockOptions.builder()
                        // the same user and password on every node; never printed
                        .credentials(Credentials.of("locks", PASSWORD))
                        .tls(TlsOptions.builder()
                                .trustCertificates(certs.caCertificate()) // PEM CA certificates to trust
                                .build())
                        .keyPrefix("distlock-redlock") // must match the ACL's key and channel patterns
                        .nodeTimeout(Duration.ofMillis(200))
                        .build())
                .leaseTime(leaseTime)
                .build();
        // README-END
        return track(locks);
    }

    @Test
    void aclUserOverTls_minimalRule_acquireWaitRenewReleaseWithoutAnyDeniedCommand() throws Exception {
        RedlockLockProvider a = aclClient(Duration.ofMillis(900));
        RedlockLockProvider b = aclClient(Duration.ofMillis(900));
        Lease held = a.lock(name).acquire();
        CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        long until = System.nanoTime() + Duration.ofMillis(2000).toNanos();
        await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - until > 0);
        assertThat(held.isValid()).as("kept by the watchdog's renewals").isTrue();
        assertThat(waiter).isNotDone();
        assertThat(held.release()).isTrue();
        Lease second = waiter.get(5, TimeUnit.SECONDS);
        assertThat(second.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(second.release()).isTrue();
        a.close();
        b.close();
        for (RedisServer node : nodes.servers()) {
            assertThat(node.call("ACL", "LOG")).as("commands denied on " + node).isEqualTo("[]");
        }
    }

    @Test
    void aclUser_outsideItsPrefix_isDenied() throws IOException {
        RedisServer node = nodes.get(0);
        node.call("SET", "app:data", "precious");
        for (String[] cmd : new String[][] {
            {"GET", "app:data"},
            {"DEL", "app:data"},
            {"SET", "distlock:{x}:lock", "v"},
            {"FLUSHALL"},
            {"KEYS", "*"},
            {"CONFIG", "GET", "requirepass"},
            {"PUBLISH", "app:events", "x"},
            {"SCRIPT", "FLUSH"},
            {"EVAL", "return redis.call('DEL', KEYS[1])", "1", "app:data"}
        }) {
            assertThatThrownBy(() -> node.callAs(USER, PASSWORD, cmd))
                    .as(String.join(" ", cmd))
                    .hasMessageMatching(DENIED);
        }
        assertThat(node.call("GET", "app:data")).isEqualTo("precious");
    }

    @Test
    void uri_redlocksWithCaFile_locksWorkAndPasswordNeverShown() {
        String uri = "redlocks://" + USER + ":" + PASSWORD + "@" + nodes.addresses()
                + "?nodeTimeout=200ms&trustCertificates="
                + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8);
        LockProvider p = track(LockProviders.open(uri));
        Lease lease = p.lock(name).tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
        assertThat(p.toString()).contains("tls=TlsOptions{trust=").doesNotContain(PASSWORD);
    }

    @Test
    void wrongPassword_configurationErrorAtOnceWithoutThePasswordInMessagesOrLog() {
        String wrong = "wrong-Pw-5eed5eed";
        String logged = LogCapture.during(() -> {
            LockProvider p = LockProviders.open("redlocks://" + USER + ":" + wrong + "@" + nodes.addresses()
                    + "?nodeTimeout=200ms&trustCertificates="
                    + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8));
            try {
                assertThat(p.toString()).doesNotContain(wrong);
                long start = System.nanoTime();
                assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(5)))
                        .isInstanceOf(LockConfigurationException.class)
                        .satisfies(e -> assertThat(LogCapture.fullText(e))
                                .contains("WRONGPASS")
                                .doesNotContain(wrong));
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("not retried within the wait")
                        .isLessThan(Duration.ofMillis(1000));
            } finally {
                p.close();
            }
        });
        assertThat(logged).doesNotContain(wrong);
    }

    @Test
    void tls_caNotTrusted_failsOnEveryNode() {
        LockProvider p = track(LockProviders.open(
                "redlocks://" + USER + ":" + PASSWORD + "@" + nodes.addresses() + "?nodeTimeout=200ms"));
        assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(LogCapture.fullText(e))
                        .containsIgnoringCase("certification path")
                        .doesNotContain(PASSWORD));
    }

    @Test
    void otherOwner_sameCredentials_cannotReleaseExtendOrSteal() throws IOException {
        RedlockLockProvider a = aclClient(Duration.ofSeconds(5));
        RedlockLockProvider b = aclClient(Duration.ofSeconds(5));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String key = lockKey(a, name);
        String owner = nodes.get(0).call("GET", key);
        assertThat(owner).matches("[0-9a-f]{32}");
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        String otherOwner = "fedcba9876543210fedcba9876543210";
        for (RedisServer node : nodes.servers()) {
            assertThat(node.callAs(USER, PASSWORD, "EVAL", Scripts.RELEASE.text(), "1", key, otherOwner, "x"))
                    .isEqualTo("0");
            assertThat(node.callAs(USER, PASSWORD, "EVAL", Scripts.RENEW.text(), "1", key, otherOwner, "600000"))
                    .isEqualTo("0");
            assertThat(node.call("GET", key)).isEqualTo(owner);
            assertThat(Long.parseLong(node.call("PTTL", key))).isBetween(1L, 5000L);
        }
        assertThat(held.isValid()).isTrue();
        assertThat(held.release()).isTrue();
        assertThat(b.lock(name).tryAcquire()).isPresent();
    }

    @Test
    void foreignValue_onMajorityWhileHeld_holderLosesLeaseAndNobodyElseGetsIt() throws Exception {
        RedlockLockProvider a = aclClient(Duration.ofMillis(900));
        RedlockLockProvider b = aclClient(Duration.ofMillis(900));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String key = lockKey(a, name);
        nodes.get(0).call("SET", key, "written-by-hand");
        nodes.get(1).call("SET", key, "written-by-hand");
        held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(held.isValid()).isFalse();
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        held.release();
        assertThat(nodes.get(0).call("GET", key)).isEqualTo("written-by-hand");
        assertThat(nodes.get(1).call("GET", key)).isEqualTo("written-by-hand");
        nodes.get(0).call("DEL", key);
        nodes.get(1).call("DEL", key);
        assertThat(b.lock(name).tryAcquire()).isPresent();
    }

    @Test
    void foreignValue_onOneNodeWhileHeld_holderKeepsMajorityAndNobodyElseGetsIt() throws Exception {
        RedlockLockProvider a = aclClient(Duration.ofMillis(900));
        RedlockLockProvider b = aclClient(Duration.ofMillis(900));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String key = lockKey(a, name);
        nodes.get(2).call("SET", key, "written-by-hand");
        long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
        await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - until > 0);
        assertThat(held.isValid()).isTrue();
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(held.release()).isTrue();
        assertThat(nodes.get(2).call("GET", key)).isEqualTo("written-by-hand");
        nodes.get(2).call("DEL", key);
    }

    @Test
    void readme_secureConfigurationExampleAndAclRule_areTheTestedOnes() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        assertThat(readme).contains("ACL SETUSER locks reset on >" + "<password> " + ACL_RULE);
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"),
                Path.of("src/test/java/io/distlock/redlock/RedlockSecurityIT.java"),
                "secure-configuration");
    }

    @Test
    void secrets_wholeSessionWithClientLoggersAtTrace_appearInNoLogLine() {
        String uri = "redlocks://" + USER + ":" + PASSWORD + "@" + nodes.addresses()
                + "?nodeTimeout=200ms&trustCertificates="
                + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8);
        String logged = LogCapture.wholeSessionAtTrace(() -> LockProviders.open(uri), name, () -> {});
        LogCapture.assertNoSecret(logged, PASSWORD);
        LogCapture.assertNoSecret(logged, ADMIN_PASSWORD);
    }
}
