package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.testing.servers.EtcdServer;
import io.distlock.testing.servers.TestCertificates;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Mutual TLS against a real etcd started with {@code --client-cert-auth}: a provider that presents
 * a certificate signed by the trusted CA locks, waits and hands off (the shared watch stream runs
 * on the same channel); one without a certificate is refused by the server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdMutualTlsIT {
    private TestCertificates certs;
    private EtcdServer etcd;

    @BeforeAll
    void start() {
        certs = TestCertificates.generate();
        etcd = EtcdServer.builder().tls(certs).clientCertAuth(true).start();
    }

    @AfterAll
    void stop() {
        if (etcd != null) {
            etcd.close();
        }
        if (certs != null) {
            certs.close();
        }
    }

    private EtcdLockProvider provider(boolean withClientCertificate) {
        TlsOptions.Builder tls = TlsOptions.builder().trustCertificates(certs.caCertificate());
        if (withClientCertificate) {
            // the test server certificate also allows client authentication
            tls.clientCertificate(certs.serverCertificate(), certs.serverKey());
        }
        return EtcdLockProvider.builder()
                .endpoints(etcd.endpoint())
                .options(EtcdLockOptions.builder()
                        .tls(tls.build())
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(3)))
                        .build())
                .leaseTime(Duration.ofSeconds(5))
                .build();
    }

    @Test
    void clientCertificate_locksExcludesAndHandsOffOverTheSharedWatchStream() throws Exception {
        try (EtcdLockProvider a = provider(true);
                EtcdLockProvider b = provider(true)) {
            EtcdSecurityIT.assertHandOffOnSharedWatchStream(a, b, "mtls");
        }
    }

    @Test
    void noClientCertificate_refusedByTheServer() {
        Throwable refused = catchThrowable(() -> {
            try (EtcdLockProvider p = provider(false)) {
                p.lock("mtls-refused").tryAcquire();
            }
        });
        assertThat(refused).isNotNull();
        assertThat(stackOfMessages(refused)).containsIgnoringCase("certificate");
    }

    @Test
    void uri_clientCertificateAndKey_work() {
        String uri = "etcd://" + etcd.address() + "?trustCertificates=" + encode(certs.caCertificate())
                + "&clientCertificate=" + encode(certs.serverCertificate())
                + "&clientKey=" + encode(certs.serverKey());
        try (LockProvider p = LockProviders.open(URI.create(uri))) {
            Lease held = p.lock("mtls-uri").tryAcquire().orElseThrow();
            assertThat(held.fencingToken()).isPresent();
            assertThat(held.release()).isTrue();
        }
    }

    private static String encode(java.nio.file.Path p) {
        return URLEncoder.encode(p.toString(), StandardCharsets.UTF_8);
    }

    private static String stackOfMessages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c).append(" | ");
        }
        return sb.toString();
    }
}
