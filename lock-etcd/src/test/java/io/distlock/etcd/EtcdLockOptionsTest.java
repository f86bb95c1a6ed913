package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The options and the provider builder, without a server (a provider opens no connection until used). */
class EtcdLockOptionsTest {

    @Test
    void defaults_defaultPrefixNoCredentialsNoTlsSharedTimeouts() {
        EtcdLockOptions o = EtcdLockOptions.defaults();
        assertThat(o.keyPrefix()).isEqualTo("/distlock/");
        assertThat(o.timeouts()).isEqualTo(TimeoutOptions.defaults());
        assertThat(o.tls()).isEqualTo(TlsOptions.disabled());
        assertThat(o.credentials()).isEmpty();
        assertThat(o.perLockLease()).isFalse();
    }

    @Test
    void provider_defaults_localhostEndpointAndCommonLeaseTime() {
        try (EtcdLockProvider p = EtcdLockProvider.builder().build()) {
            assertThat(p.endpointUris()).containsExactly("http://127.0.0.1:2379");
            assertThat(p.lockOptions().leaseTime()).isEqualTo(LockOptions.DEFAULT_LEASE_TIME);
            assertThat(p.options()).isSameAs(EtcdLockOptions.defaults());
        }
    }

    @Test
    void endpoints_malformed_rejectedNamingTheRule() {
        assertThatThrownBy(() -> EtcdLockProvider.builder().endpoints("localhost"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endpoint must be host:port");
        assertThatThrownBy(() -> EtcdLockProvider.builder().endpoints("h:99999"))
                .hasMessageContaining("port must be 1..65535");
        assertThatThrownBy(() -> EtcdLockProvider.builder().endpoints(List.of()))
                .hasMessageContaining("endpoints must not be empty");
    }

    @Test
    void endpoints_httpsScheme_turnsTlsOnForAll() {
        try (EtcdLockProvider p =
                EtcdLockProvider.builder().endpoints("https://a:2379", "b:2379").build()) {
            assertThat(p.endpointUris()).containsExactly("https://a:2379", "https://b:2379");
        }
    }

    @Test
    void tls_enabled_endpointsWithoutSchemeAreHttps_explicitHttpRejected() {
        EtcdLockOptions tls =
                EtcdLockOptions.builder().tls(TlsOptions.enabled()).build();
        try (EtcdLockProvider p =
                EtcdLockProvider.builder().endpoints("a:2379").options(tls).build()) {
            assertThat(p.endpointUris()).containsExactly("https://a:2379");
        }
        assertThatThrownBy(() -> EtcdLockProvider.builder()
                        .endpoints("http://a:2379")
                        .options(tls)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://a:2379 is plain http while TLS is on");
    }

    @Test
    void tls_clientCertificate_keptAndShownAsPathsOnly(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "ca");
        Path cert = Files.writeString(dir.resolve("client.pem"), "cert");
        Path key = Files.writeString(dir.resolve("client.key"), "key");
        TlsOptions tls = TlsOptions.builder()
                .trustCertificates(ca)
                .clientCertificate(cert, key)
                .build();
        EtcdLockOptions o = EtcdLockOptions.builder().tls(tls).build();
        assertThat(o.tls()).isSameAs(tls);
        assertThat(o.toString()).contains(ca.toString(), "clientCertificate=" + cert);
        assertThat(o.mutate().build().tls()).isSameAs(tls);
    }

    @Test
    void tls_sslContext_rejectedNamingTheOption() throws Exception {
        TlsOptions tls =
                TlsOptions.builder().sslContext(SSLContext.getDefault()).build();
        assertThatThrownBy(() -> EtcdLockOptions.builder().tls(tls))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sslContext is not supported");
    }

    @Test
    void keyPrefix_withoutSlashesOrWithWildcards_rejected() {
        assertThatThrownBy(() -> EtcdLockOptions.builder().keyPrefix("locks"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix must start and end with '/'");
        assertThatThrownBy(() -> EtcdLockOptions.builder().keyPrefix("/a b/"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EtcdLockOptions.builder().keyPrefix("/a*/"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(EtcdLockOptions.builder().keyPrefix("/app/locks/").build().keyPrefix())
                .isEqualTo("/app/locks/");
    }

    @Test
    void timeouts_belowTenMilliseconds_rejectedNamingTheTimeout() {
        assertThatThrownBy(() -> EtcdLockOptions.builder().timeouts(TimeoutOptions.of(Duration.ofMillis(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectTimeout must be at least 10ms");
        assertThatThrownBy(() -> EtcdLockOptions.builder()
                        .timeouts(TimeoutOptions.defaults().withRequestTimeout(Duration.ofMillis(9))))
                .hasMessageContaining("requestTimeout must be at least 10ms");
    }

    @Test
    void credentials_withoutUser_rejected() {
        assertThatThrownBy(() -> EtcdLockOptions.builder().credentials(Credentials.password("p")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("credentials must name an etcd user");
    }

    @Test
    void toString_neverShowsPassword() {
        EtcdLockOptions o = EtcdLockOptions.builder()
                .credentials(Credentials.of("alice", "s3cr3t-pw"))
                .build();
        assertThat(o.toString()).contains("alice").doesNotContain("s3cr3t-pw");
        try (EtcdLockProvider p = EtcdLockProvider.builder().options(o).build()) {
            assertThat(p.toString()).contains("alice").doesNotContain("s3cr3t-pw");
        }
    }

    @Test
    void mutate_keepsEverything() {
        EtcdLockOptions o = EtcdLockOptions.builder()
                .keyPrefix("/x/")
                .credentials(Credentials.of("u", "p"))
                .timeouts(TimeoutOptions.of(Duration.ofSeconds(2)))
                .perLockLease(true)
                .build();
        EtcdLockOptions m = o.mutate().build();
        assertThat(m.toString()).isEqualTo(o.toString());
        assertThat(m.credentials()).isEqualTo(o.credentials());
    }

    @Test
    void perLockLease_defaultOffAndSettable_buildsAProvider() {
        assertThat(EtcdLockOptions.builder().build().perLockLease()).isFalse();
        EtcdLockOptions o = EtcdLockOptions.builder().perLockLease(true).build();
        assertThat(o.perLockLease()).isTrue();
        assertThat(o.toString()).contains("perLockLease=true");
        try (EtcdLockProvider p =
                EtcdLockProvider.builder().endpoints("127.0.0.1:1").options(o).build()) {
            assertThat(p.options().perLockLease()).isTrue();
            assertThat(p.sessionLeaseId()).isEqualTo(-1L);
        }
    }

    @Test
    void builder_endpointsAndClientBoth_rejected() {
        try (io.etcd.jetcd.Client client =
                io.etcd.jetcd.Client.builder().endpoints("http://127.0.0.1:1").build()) {
            assertThatThrownBy(() -> EtcdLockProvider.builder()
                            .endpoints("127.0.0.1:1")
                            .client(client)
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("either endpoints or client");
        }
    }
}
