package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.lockKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TlsOptions;
import io.distlock.build.ReadmeExamples;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.RedisSentinelSetup;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.TestCertificates;
import io.distlock.testing.servers.TestServer;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Sentinel over TLS: master, replica and three sentinels all serve TLS only (replication and the
 * sentinels' own links over TLS too), with a certificate from a throw-away CA; the data nodes
 * require a password and have the documented ACL user. The provider reaches the sentinels and the
 * master over TLS, verifying the host name ({@code 127.0.0.1}) against each certificate.
 */
@Timeout(120)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisSentinelTlsIT {
    private static final String ADMIN_PASSWORD = "admin-SentinelTls-Pw-5e1a";
    private static TestCertificates certs;
    private static RedisSentinelSetup setup;

    private final List<LockProvider> providers = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        certs = TestCertificates.generate();
        setup = RedisSentinelSetup.start(ADMIN_PASSWORD, certs);
        for (RedisServer node : List.of(setup.master(), setup.replica())) {
            RedisSecurityIT.createLockUser(node);
        }
    }

    @AfterAll
    static void stop() {
        if (setup != null) {
            setup.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    @AfterEach
    void close() {
        providers.forEach(LockProvider::close);
    }

    private RedisLockProvider builderClient() {
        List<String> sentinels =
                setup.sentinels().stream().map(TestServer::address).collect(Collectors.toList());
        // README-BEGIN sentinel-tls
        RedisLockProvider locks = RedisLockProvider.builder()
                .sentinel("distlock-master", sentinels) // the Sentinels' TLS ports
                .options(RedisLockOptions.builder()
                        // the ACL user on master and replicas (not the Sentinels)
                        .credentials(Credentials.of("locks", RedisSecurityIT.PASSWORD))
                        .tls(TlsOptions.builder() // Sentinels and data nodes alike
                                .trustCertificates(certs.caCertificate()) // CA of all their certificates
                                .build())
                        .build())
                .leaseTime(Duration.ofSeconds(2))
                .build();
        // README-END
        providers.add(locks);
        return locks;
    }

    private String uri(String password, boolean withCa) {
        return "rediss-sentinel://" + RedisSecurityIT.USER + ":" + password + "@" + setup.sentinelAddresses() + "/"
                + setup.masterName() + "?leaseTime=2s&connectTimeout=2s"
                + (withCa
                        ? "&trustCertificates="
                                + URLEncoder.encode(certs.caCertificate().toString(), StandardCharsets.UTF_8)
                        : "");
    }

    @Test
    @Order(1)
    void builder_tlsToSentinelsAndMaster_locksWorkAsTheAclUser() throws IOException {
        setup.master().call("ACL", "LOG", "RESET");
        RedisLockProvider a = builderClient();
        RedisLockProvider b = builderClient();
        Lease lease = a.lock("sentinel-tls").tryAcquire().orElseThrow();
        assertThat(setup.master().call("GET", lockKey(a, "sentinel-tls"))).matches("[0-9a-f]{32}");
        assertThat(b.lock("sentinel-tls").tryAcquire()).isEmpty();
        assertThat(lease.release()).isTrue();
        assertThat(b.lock("sentinel-tls").tryAcquire()).isPresent();
        assertThat(setup.master().call("ACL", "LOG"))
                .as("commands the ACL denied")
                .isEqualTo("[]");
        assertThat(setup.master().call("CLIENT", "LIST"))
                .as("the lock's connections reached the TLS-only master")
                .contains("name=distlock ");
    }

    @Test
    @Order(2)
    void uri_redissSentinel_locksWorkAndNoSecretInAnyLogLine() {
        String logged;
        try (LogCapture logs = LogCapture.start()) {
            LockProvider p = LockProviders.open(uri(RedisSecurityIT.PASSWORD, true));
            providers.add(p);
            assertThat(p.toString()).contains("tls=true");
            Lease lease = p.lock("sentinel-tls-uri").tryAcquire().orElseThrow();
            assertThat(lease.release()).isTrue();
            assertThat(p.toString()).doesNotContain(RedisSecurityIT.PASSWORD);
            logged = logs.text();
        }
        LogCapture.assertNoSecret(logged, RedisSecurityIT.PASSWORD);
        LogCapture.assertNoSecret(logged, ADMIN_PASSWORD);
    }

    @Test
    @Order(3)
    void uri_caNotTrusted_failsClearlyWithoutThePassword() {
        assertThatThrownBy(() -> {
                    LockProvider p = LockProviders.open(uri(RedisSecurityIT.PASSWORD, false));
                    providers.add(p);
                    p.lock("sentinel-tls-untrusted").tryAcquire();
                })
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("cannot find master 'distlock-master' through the Sentinels")
                .satisfies(e -> assertThat(LogCapture.fullText(e))
                        .containsIgnoringCase("certification path")
                        .doesNotContain(RedisSecurityIT.PASSWORD));
    }

    @Test
    @Order(4)
    void plainRedisSentinelScheme_onTlsPorts_fails() {
        assertThatThrownBy(() -> {
                    LockProvider p = LockProviders.open("redis-sentinel://" + setup.sentinelAddresses() + "/"
                            + setup.masterName() + "?connectTimeout=1s&requestTimeout=1s");
                    providers.add(p);
                    p.lock("sentinel-plain").tryAcquire();
                })
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("tls=false");
    }

    @Test
    @Order(5)
    void failover_overTls_lockWorksOnThePromotedMaster() throws IOException {
        RedisLockProvider p = builderClient();
        assertThat(p.lock("sentinel-tls-failover").tryAcquire().orElseThrow().release())
                .isTrue();
        RedisServer promoted = setup.failover();
        Lease lease = awaitLease(p, "sentinel-tls-failover");
        assertThat(promoted.call("GET", lockKey(p, "sentinel-tls-failover"))).matches("[0-9a-f]{32}");
        assertThat(lease.release()).isTrue();
    }

    private static Lease awaitLease(RedisLockProvider p, String name) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                var lease = p.lock(name).tryAcquire(Duration.ofSeconds(2));
                if (lease.isPresent()) {
                    return lease.get();
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("lock '" + name + "' not acquired within 30 s after the failover");
                }
            } catch (BackendUnavailableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void readme_sentinelTlsExample_isTheTestedOne() {
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"),
                Path.of("src/test/java/io/distlock/redis/RedisSentinelTlsIT.java"),
                "sentinel-tls");
    }
}
