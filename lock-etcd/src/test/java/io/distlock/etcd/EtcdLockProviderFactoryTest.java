package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TimeoutOptions;
import io.distlock.testing.servers.TestCertificates;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening a provider does no I/O, so these need no server (port 1 is never contacted). */
class EtcdLockProviderFactoryTest {

    @Test
    void open_hostList_parsesEndpointsPrefixAndParameters() {
        try (LockProvider p = LockProviders.open(
                URI.create("etcd://127.0.0.1:1,127.0.0.2:1/app/locks?leaseTime=3s&requestTimeout=2s"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.endpointUris()).containsExactly("http://127.0.0.1:1", "http://127.0.0.2:1");
            assertThat(e.options().keyPrefix()).isEqualTo("/app/locks/");
            assertThat(e.options().timeouts().requestTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(e.options().timeouts().connectTimeout()).isEqualTo(TimeoutOptions.DEFAULT_CONNECT_TIMEOUT);
            assertThat(e.lockOptions().leaseTime()).isEqualTo(Duration.ofSeconds(3));
            assertThat(e.backend()).isEqualTo("etcd");
            assertThat(e.capabilities().fencing().present()).isTrue();
        }
    }

    @Test
    void open_withoutPortOrParameters_usesDefaults() {
        try (LockProvider p = LockProviders.open(URI.create("etcd://127.0.0.1"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.endpointUris()).containsExactly("http://127.0.0.1:2379");
            assertThat(e.options().keyPrefix()).isEqualTo("/distlock/");
            assertThat(e.options().timeouts()).isEqualTo(TimeoutOptions.defaults());
            assertThat(e.options().tls().isEnabled()).isFalse();
            assertThat(e.lockOptions().leaseTime()).isEqualTo(LockOptions.DEFAULT_LEASE_TIME);
        }
    }

    @Test
    void open_plusInUserInfo_staysAPlus() {
        try (LockProvider p = LockProviders.open(URI.create("etcd://b+b:p+w@127.0.0.1:1"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.options().credentials()).contains(Credentials.of("b+b", "p+w"));
        }
    }

    @Test
    void open_userInfo_setsCredentialsAndKeepsPasswordOutOfToString() {
        try (LockProvider p = LockProviders.open(URI.create("etcd://bob:hunter2@127.0.0.1:1"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.options().credentials()).contains(Credentials.of("bob", "hunter2"));
            assertThat(e.toString()).doesNotContain("hunter2");
        }
    }

    @Test
    void open_unknownParameter_rejectedWithoutPassword() {
        assertThatThrownBy(() -> LockProviders.open(URI.create("etcd://bob:hunter2@127.0.0.1:1?bogus=1")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("bogus")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void open_badDuration_rejectedNamingParameter() {
        assertThatThrownBy(() -> LockProviders.open(URI.create("etcd://127.0.0.1:1?requestTimeout=soon")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("requestTimeout");
    }

    @Test
    void open_perLockLease_parsedAndDefaultOff() {
        try (LockProvider on = LockProviders.open(URI.create("etcd://127.0.0.1:1?perLockLease=true"));
                LockProvider off = LockProviders.open(URI.create("etcd://127.0.0.1:1"))) {
            assertThat(((EtcdLockProvider) on).options().perLockLease()).isTrue();
            assertThat(((EtcdLockProvider) off).options().perLockLease()).isFalse();
        }
        assertThatThrownBy(() -> LockProviders.open(URI.create("etcd://127.0.0.1:1?perLockLease=maybe")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("perLockLease");
    }

    @Test
    void open_badEndpoint_rejected() {
        assertThatThrownBy(() -> LockProviders.open(URI.create("etcd://127.0.0.1:1,,x:2")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("empty endpoint");
    }

    @Test
    void open_timeouts_bothParametersMapped() {
        try (LockProvider p =
                LockProviders.open(URI.create("etcd://127.0.0.1:1?connectTimeout=750ms&requestTimeout=4s"))) {
            assertThat(((EtcdLockProvider) p).options().timeouts())
                    .isEqualTo(new TimeoutOptions(Duration.ofMillis(750), Duration.ofSeconds(4)));
        }
    }

    @Test
    void open_tlsParameters_trustSourcesAndClientCertificate(@TempDir Path dir) throws Exception {
        try (TestCertificates certs = TestCertificates.generate()) {
            openTls(certs.caCertificate(), certs.serverCertificate(), certs.serverKey());
        }
        // files that are not PEM: a configuration error while opening
        Path junk = Files.writeString(dir.resolve("junk.pem"), "junk");
        assertThatThrownBy(() -> LockProviders.open(URI.create("etcd://127.0.0.1:1?trustCertificates=" + junk)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining(junk.toString());
    }

    private static void openTls(Path ca, Path cert, Path key) {
        try (LockProvider p = LockProviders.open(URI.create(
                "etcd://127.0.0.1:1?trustCertificates=" + ca + "&clientCertificate=" + cert + "&clientKey=" + key))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.options().tls().trustCertificates()).contains(ca);
            assertThat(e.options().tls().clientCertificate()).contains(cert);
            assertThat(e.options().tls().clientKey()).contains(key);
            assertThat(e.endpointUris()).containsExactly("https://127.0.0.1:1");
        }
        try (LockProvider p = LockProviders.open(URI.create("etcd://127.0.0.1:1?tls=true"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.options().tls().isEnabled()).isTrue();
            assertThat(e.options().tls().usesDefaultTrust()).isTrue();
            assertThat(e.endpointUris()).containsExactly("https://127.0.0.1:1");
        }
        assertThatThrownBy(() -> LockProviders.open(URI.create("etcd://127.0.0.1:1?clientCertificate=" + cert)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("clientCertificate and clientKey must be given together");
        assertThatThrownBy(() -> LockProviders.open(URI.create("etcd://127.0.0.1:1?tls=false&trustCertificates=" + ca)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("TLS is disabled");
    }

    @Test
    void open_oldTlsSpelling_rejectedAsUnknown() {
        assertThatThrownBy(() -> LockProviders.open(URI.create("etcd://127.0.0.1:1?trustCertificate=/x.pem")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown parameter(s) [trustCertificate]");
    }
}
