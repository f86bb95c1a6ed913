package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.lockKey;
import static io.distlock.redis.RedisTestAccess.subscribedChannels;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.build.ReadmeExamples;
import io.distlock.redis.core.Scripts;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.RedisServer;
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
 * Secure configuration against real servers: a password ({@code requirepass}), an ACL user with
 * exactly the documented minimal rule, TLS ({@code rediss://}) with a CA generated for the test,
 * owner isolation between clients with the same credentials, foreign values in lock keys, and no
 * password in any message, log line or {@code toString()}.
 */
@Timeout(60)
class RedisSecurityIT {
    /** Password of the {@code default} (admin) user of both servers. */
    private static final String ADMIN_PASSWORD = "admin-Pw-7f3a9c";
    /** The lock user's name and password (the password never appears in any output). */
    static final String USER = "locks";

    static final String PASSWORD = "s3cret-Lock-Pw-41d2e8";

    /**
     * The minimal ACL rule of the lock user (keyPrefix {@code distlock}), after {@code ACL SETUSER
     * locks reset on >password}, exactly as documented in README.md ("Secure configuration");
     * {@link #readme_secureConfigurationExampleAndAclRule_areTheTestedOnes} checks that.
     */
    static final String ACL_RULE =
            "~distlock:* &distlock:* -@all +evalsha +eval +ping +subscribe +unsubscribe +client|setname "
                    + "+get +set +del +pttl +pexpire +time +publish +exists +zrange +zadd +zrem +zscore +zcard +hget +hset +hdel";

    /** How Redis says "not allowed": NOPERM for a command, or this for a command inside a script. */
    private static final String DENIED = "(?s).*(NOPERM|user executing the script can't (run this command|access)).*";

    private static TestCertificates certs;
    /** Plain TCP, {@code requirepass}. */
    private static RedisServer passwordServer;
    /** TLS only, {@code requirepass}, and the ACL user {@link #USER}. */
    private static RedisServer tlsServer;

    private final List<LockProvider> providers = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startServers() throws IOException {
        certs = TestCertificates.generate();
        passwordServer = RedisServer.builder().password(ADMIN_PASSWORD).start();
        // also on 127.0.0.2, an address the test certificate does not name
        tlsServer = RedisServer.builder()
                .password(ADMIN_PASSWORD)
                .tls(certs)
                .args("--bind", "127.0.0.1", "127.0.0.2")
                .start();
        for (RedisServer s : List.of(passwordServer, tlsServer)) {
            createLockUser(s);
        }
    }

    /** The ACL SETUSER the README documents. */
    static void createLockUser(RedisServer server) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ACL", "SETUSER", USER, "reset", "on", ">" + PASSWORD));
        cmd.addAll(List.of(ACL_RULE.split(" ")));
        assertThat(server.call(cmd.toArray(new String[0]))).isEqualTo("OK");
    }

    @AfterAll
    static void stopServers() {
        for (AutoCloseable c : new AutoCloseable[] {passwordServer, tlsServer, certs}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // next
            }
        }
    }

    @BeforeEach
    void name(TestInfo info) throws IOException {
        name = "sec/" + info.getTestMethod().orElseThrow().getName();
        tlsServer.call("ACL", "LOG", "RESET");
        passwordServer.call("ACL", "LOG", "RESET");
    }

    @AfterEach
    void close() {
        providers.forEach(LockProvider::close);
    }

    private <P extends LockProvider> P track(P p) {
        providers.add(p);
        return p;
    }

    private RedisLockProvider aclClient(Duration leaseTime) {
        // README-BEGIN secure-configuration
        RedisLockProvider locks = RedisLockProvider.builder()
                .standalone("127.0.0.1", tlsServer.port())
                .options(RedisLockOptions.builder()
                        // the ACL user (rule below); the password e.g. from a secret store, never printed
                        .credentials(Credentials.of("locks", PASSWORD))
                        .tls(TlsOptions.builder()
                                .trustCertificates(certs.caCertificate()) // PEM CA certificates to trust
                                .build())
                        .keyPrefix("distlock") // must match ~distlock:* and &distlock:*
                        .build())
                .leaseTime(leaseTime)
                .build();
        // README-END
        return track(locks);
    }

    @Test
    void password_uriWithPassword_locksWork() {
        LockProvider p = track(
                LockProviders.open("redis://:" + ADMIN_PASSWORD + "@" + passwordServer.address() + "?leaseTime=2s"));
        Lease lease = p.lock(name).tryAcquire().orElseThrow();
        assertThat(lease.fencingToken()).isPresent();
        assertThat(lease.release()).isTrue();
        assertThat(p.toString()).doesNotContain(ADMIN_PASSWORD);
    }

    @Test
    void password_wrongPassword_configurationErrorAtOnceWithoutThePassword() {
        String wrong = "wrong-Pw-c0ffee99";
        String logged = LogCapture.during(() -> {
            LockProvider p = track(LockProviders.open("redis://:" + wrong + "@" + passwordServer.address()));
            assertThat(p.toString()).doesNotContain(wrong);
            long start = System.nanoTime();
            assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(5)))
                    .isInstanceOf(LockConfigurationException.class)
                    .satisfies(e -> assertThat(LogCapture.fullText(e))
                            .contains("WRONGPASS")
                            .contains(name)
                            .doesNotContain(wrong));
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("not retried within the wait")
                    .isLessThan(Duration.ofMillis(1000));
            p.close();
        });
        assertThat(logged).doesNotContain(wrong);
    }

    @Test
    void password_unknownUser_configurationErrorAtOnce() {
        LockProvider p = track(RedisLockProvider.builder()
                .standalone("127.0.0.1", passwordServer.port())
                .options(RedisLockOptions.builder()
                        .credentials(Credentials.of("nobody", PASSWORD))
                        .build())
                .build());
        long start = System.nanoTime();
        assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(LogCapture.fullText(e)).contains("WRONGPASS"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1000));
    }

    @Test
    void password_none_configurationErrorWithNoAuth() {
        LockProvider p = track(LockProviders.open(passwordServer.uri()));
        assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(LogCapture.fullText(e)).contains("NOAUTH"));
    }

    @Test
    void password_serverStopped_backendUnavailableNotConfiguration() {
        try (RedisServer doomed = RedisServer.builder().password(ADMIN_PASSWORD).start()) {
            LockProvider p = track(RedisLockProvider.builder()
                    .standalone("127.0.0.1", doomed.port())
                    .options(RedisLockOptions.builder()
                            .credentials(Credentials.password(ADMIN_PASSWORD))
                            .timeouts(TimeoutOptions.of(Duration.ofMillis(300)))
                            .build())
                    .build());
            p.lock(name).tryAcquire().orElseThrow().release();
            doomed.kill();
            assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofMillis(500)))
                    .isInstanceOf(BackendUnavailableException.class);
        }
    }

    @Test
    void aclUser_minimalRule_acquireWaitRenewReleaseWithoutAnyDeniedCommand() throws Exception {
        RedisLockProvider a = aclClient(Duration.ofMillis(600));
        RedisLockProvider b = aclClient(Duration.ofMillis(600));
        Lease held = a.lock(name).acquire();
        CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribedChannels(b) == 1);
        // hold past two lease times: only the watchdog's renewals keep it
        long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
        await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - until > 0);
        assertThat(held.isValid()).isTrue();
        assertThat(waiter).isNotDone();
        assertThat(held.release()).isTrue();
        Lease second = waiter.get(5, TimeUnit.SECONDS);
        assertThat(second.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(second.release()).isTrue();
        a.close();
        b.close();
        assertThat(tlsServer.call("ACL", "LOG")).as("commands the ACL denied").isEqualTo("[]");
    }

    @Test
    void aclUser_outsideItsPrefix_isDenied() throws IOException {
        assertThat(tlsServer.callAs(USER, PASSWORD, "SET", "distlock:{x}:lock", "v"))
                .isEqualTo("OK");
        tlsServer.call("DEL", "distlock:{x}:lock");
        tlsServer.call("SET", "app:data", "precious");
        assertThatThrownBy(() -> tlsServer.callAs(USER, PASSWORD, "GET", "app:data"))
                .hasMessageContaining("NOPERM");
        assertThatThrownBy(() -> tlsServer.callAs(USER, PASSWORD, "DEL", "app:data"))
                .hasMessageContaining("NOPERM");
        assertThatThrownBy(() -> tlsServer.callAs(USER, PASSWORD, "SET", "distlockX", "v"))
                .hasMessageContaining("NOPERM");
        // a script may only touch keys it declares, and those must match the pattern
        assertThatThrownBy(() ->
                        tlsServer.callAs(USER, PASSWORD, "EVAL", "return redis.call('DEL', KEYS[1])", "1", "app:data"))
                .hasMessageMatching(DENIED);
        assertThatThrownBy(() -> tlsServer.callAs(USER, PASSWORD, "EVAL", "return redis.call('FLUSHALL')", "0"))
                .hasMessageMatching(DENIED);
        assertThatThrownBy(() -> tlsServer.callAs(USER, PASSWORD, "EVAL", "return redis.call('GET', 'app:data')", "0"))
                .hasMessageMatching(DENIED);
        for (String[] cmd : new String[][] {
            {"FLUSHALL"}, {"KEYS", "*"}, {"SCAN", "0"}, {"CONFIG", "GET", "requirepass"}, {"ACL", "LIST"},
            {"INFO"}, {"SCRIPT", "FLUSH"}, {"MONITOR"}, {"CLIENT", "LIST"}, {"PUBLISH", "app:events", "x"},
            {"SUBSCRIBE", "app:events"}, {"EXPIRE", "app:data", "1"}
        }) {
            assertThatThrownBy(() -> tlsServer.callAs(USER, PASSWORD, cmd))
                    .as(String.join(" ", cmd))
                    .hasMessageContaining("NOPERM");
        }
        assertThat(tlsServer.call("GET", "app:data")).isEqualTo("precious");
    }

    @Test
    void tls_uriWithUserPasswordAndCaFile_locksWork() {
        String uri =
                "rediss://" + USER + ":" + PASSWORD + "@" + tlsServer.address() + "?leaseTime=2s&trustCertificates="
                        + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8);
        LockProvider p = track(LockProviders.open(uri));
        Lease lease = p.lock(name).tryAcquire().orElseThrow();
        assertThat(lease.release()).isTrue();
        assertThat(p.toString()).contains("tls=true").doesNotContain(PASSWORD);
    }

    @Test
    void tls_serverCertificateNotTrusted_connectionRefusedWithClearError() throws IOException {
        // without trustCertificates the JVM's default trust store is used, which does not know the test CA
        LockProvider untrusted =
                track(LockProviders.open("rediss://" + USER + ":" + PASSWORD + "@" + tlsServer.address()));
        long start = System.nanoTime();
        assertThatThrownBy(() -> untrusted.lock(name).tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(LogCapture.fullText(e))
                        .containsIgnoringCase("certification path")
                        .doesNotContain(PASSWORD));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1000));
        // another CA's certificate file: still refused
        try (TestCertificates other = TestCertificates.generate()) {
            LockProvider wrongCa = track(RedisLockProvider.builder()
                    .standalone("127.0.0.1", tlsServer.port())
                    .options(RedisLockOptions.builder()
                            .credentials(Credentials.of(USER, PASSWORD))
                            .tls(TlsOptions.builder()
                                    .trustCertificates(other.caCertificate())
                                    .build())
                            .build())
                    .build());
            assertThatThrownBy(() -> wrongCa.lock(name).tryAcquire()).isInstanceOf(LockConfigurationException.class);
        }
    }

    @Test
    void tls_plainClientOnTlsPort_fails() {
        LockProvider plain = track(RedisLockProvider.builder()
                .standalone("127.0.0.1", tlsServer.port())
                .options(RedisLockOptions.builder()
                        .credentials(Credentials.of(USER, PASSWORD))
                        .timeouts(RedisLockOptions.DEFAULT_TIMEOUTS.withRequestTimeout(Duration.ofMillis(500)))
                        .build())
                .build());
        assertThatThrownBy(() -> plain.lock(name).tryAcquire()).isInstanceOf(BackendUnavailableException.class);
    }

    @Test
    void tls_hostNameNotInCertificate_refused() {
        // the certificate names 127.0.0.1, ::1 and localhost; 127.0.0.2 reaches the same server (it
        // listens there too) but is not in the certificate
        LockProvider p = track(RedisLockProvider.builder()
                .standalone("127.0.0.2", tlsServer.port())
                .options(RedisLockOptions.builder()
                        .credentials(Credentials.of(USER, PASSWORD))
                        .tls(TlsOptions.builder()
                                .trustCertificates(certs.caCertificate())
                                .build())
                        .build())
                .build());
        assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(5)))
                .isInstanceOf(LockConfigurationException.class)
                .satisfies(e -> assertThat(LogCapture.fullText(e))
                        .contains("No subject alternative names matching IP address 127.0.0.2"));
    }

    @Test
    void otherOwner_sameCredentials_cannotReleaseExtendOrSteal() throws IOException {
        RedisLockProvider a = aclClient(Duration.ofSeconds(5));
        RedisLockProvider b = aclClient(Duration.ofSeconds(5));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String key = lockKey(a, name);
        String owner = tlsServer.call("GET", key);
        assertThat(owner).matches("[0-9a-f]{32}");
        // the other client, same user: the provider API gives it no way in
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        // and the scripts themselves, called with another owner value, change nothing
        String otherOwner = "0123456789abcdef0123456789abcdef";
        assertThat(tlsServer.callAs(USER, PASSWORD, "EVAL", Scripts.RELEASE.text(), "1", key, otherOwner, "distlock:x"))
                .isEqualTo("0");
        assertThat(tlsServer.callAs(USER, PASSWORD, "EVAL", Scripts.RENEW.text(), "1", key, otherOwner, "600000"))
                .isEqualTo("0");
        // not extended to 600 s (the holder's own watchdog may legitimately renew it to its 5 s lease)
        assertThat(Long.parseLong(tlsServer.call("PTTL", key))).isLessThanOrEqualTo(5_000);
        assertThat(tlsServer.call("GET", key)).isEqualTo(owner);
        assertThat(held.isValid()).isTrue();
        assertThat(held.release()).isTrue();
        assertThat(b.lock(name).tryAcquire()).isPresent();
    }

    @Test
    void foreignValue_setByHandWhileHeld_holderLosesLeaseAndNobodyElseGetsIt() throws Exception {
        RedisLockProvider a = aclClient(Duration.ofMillis(900));
        RedisLockProvider b = aclClient(Duration.ofMillis(900));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String key = lockKey(a, name);
        tlsServer.call("SET", key, "written-by-hand"); // no TTL: nobody's lease
        held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(held.isValid()).isFalse();
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(held.release()).isFalse();
        assertThat(tlsServer.call("GET", key)).isEqualTo("written-by-hand");
        tlsServer.call("DEL", key);
        assertThat(b.lock(name).tryAcquire()).isPresent();
    }

    @Test
    void foreignValue_wrongTypeInLockKey_clearErrorNamingLock() throws IOException {
        RedisLockProvider a = aclClient(Duration.ofSeconds(2));
        String key = lockKey(a, name);
        tlsServer.call("HSET", key, "f", "v");
        try {
            assertThatThrownBy(() -> a.lock(name).tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("WRONGTYPE")
                    .satisfies(e -> assertThat(((BackendUnavailableException) e).lockName())
                            .isEqualTo(name));
        } finally {
            tlsServer.call("DEL", key);
        }
    }

    @Test
    void aclUser_withoutLockCommands_failsWithNoPermNamingTheCommand() throws IOException {
        tlsServer.call(
                "ACL",
                "SETUSER",
                "reader",
                "reset",
                "on",
                ">" + PASSWORD,
                "~distlock:*",
                "&distlock:*",
                "+@read",
                "+ping",
                "+client|setname",
                "+subscribe",
                "+unsubscribe");
        try {
            RedisLockProvider p = track(RedisLockProvider.builder()
                    .standalone("127.0.0.1", tlsServer.port())
                    .options(RedisLockOptions.builder()
                            .credentials(Credentials.of("reader", PASSWORD))
                            .tls(TlsOptions.builder()
                                    .trustCertificates(certs.caCertificate())
                                    .build())
                            .build())
                    .build());
            long start = System.nanoTime();
            assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(5)))
                    .isInstanceOf(LockConfigurationException.class)
                    .satisfies(e -> assertThat(LogCapture.fullText(e))
                            .contains("NOPERM")
                            .doesNotContain(PASSWORD));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1000));
        } finally {
            tlsServer.call("ACL", "DELUSER", "reader");
        }
    }

    @Test
    void readme_secureConfigurationExampleAndAclRule_areTheTestedOnes() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        assertThat(readme).contains("ACL SETUSER locks reset on >" + "<password> " + ACL_RULE);
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"),
                Path.of("src/test/java/io/distlock/redis/RedisSecurityIT.java"),
                "secure-configuration");
    }

    @Test
    void secrets_wholeSessionWithClientLoggersAtTrace_appearInNoLogLine() {
        String uri =
                "rediss://" + USER + ":" + PASSWORD + "@" + tlsServer.address() + "?leaseTime=2s&trustCertificates="
                        + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8);
        String logged = LogCapture.wholeSessionAtTrace(() -> LockProviders.open(uri), name, () -> {
            LockProvider wrong = LockProviders.open(uri.replace(PASSWORD, "x" + PASSWORD + "x"));
            assertThatThrownBy(() -> wrong.lock(name).tryAcquire()).isInstanceOf(LockConfigurationException.class);
            wrong.close();
        });
        LogCapture.assertNoSecret(logged, PASSWORD);
        LogCapture.assertNoSecret(logged, ADMIN_PASSWORD);
    }
}
