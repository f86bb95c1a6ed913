package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class EtcdLockOptionsTest {

    @Test
    void defaults_areLocalhostDefaultPrefixFiveSeconds() {
        EtcdLockOptions o = EtcdLockOptions.defaults();
        assertThat(o.endpoints()).containsExactly("127.0.0.1:2379");
        assertThat(o.endpointUris()).containsExactly("http://127.0.0.1:2379");
        assertThat(o.keyPrefix()).isEqualTo("/distlock/");
        assertThat(o.requestTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.tls()).isFalse();
        assertThat(o.user()).isEmpty();
    }

    @Test
    void endpoints_malformed_rejectedNamingTheRule() {
        assertThatThrownBy(() -> EtcdLockOptions.builder().endpoints("localhost"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("endpoint must be host:port");
        assertThatThrownBy(() -> EtcdLockOptions.builder().endpoints("h:99999"))
                .hasMessageContaining("port must be 1..65535");
        assertThatThrownBy(() -> EtcdLockOptions.builder().endpoints(List.of()))
                .hasMessageContaining("endpoints must not be empty");
    }

    @Test
    void endpoints_httpsScheme_turnsTlsOn() {
        EtcdLockOptions o =
                EtcdLockOptions.builder().endpoints("https://a:2379", "b:2379").build();
        assertThat(o.tls()).isTrue();
        assertThat(o.endpointUris()).containsExactly("https://a:2379", "https://b:2379");
    }

    @Test
    void clientCertificate_setWithItsKey_turnsTlsOnAndShowsPathsOnly(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path cert = Files.writeString(dir.resolve("client.pem"), "cert");
        Path key = Files.writeString(dir.resolve("client.key"), "key");
        EtcdLockOptions o = EtcdLockOptions.builder()
                .endpoints("a:2379")
                .clientCertificate(cert, key)
                .build();
        assertThat(o.tls()).isTrue();
        assertThat(o.endpointUris()).containsExactly("https://a:2379");
        assertThat(o.clientCertificate()).contains(cert);
        assertThat(o.clientKey()).contains(key);
        assertThat(o.toString()).contains("clientCertificate=" + cert, "clientKey=" + key);
        assertThat(o.mutate().build().clientKey()).contains(key);
    }

    @Test
    void clientCertificate_withoutItsKeyOrUnreadable_rejectedNamingTheArgument(
            @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path cert = Files.writeString(dir.resolve("client.pem"), "cert");
        assertThatThrownBy(() -> EtcdLockOptions.builder().clientCertificate(cert, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientCertificate and its private key must be given together");
        assertThatThrownBy(() -> EtcdLockOptions.builder().clientCertificate(null, cert))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be given together");
        assertThatThrownBy(() -> EtcdLockOptions.builder().clientCertificate(cert, dir.resolve("missing.key")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientKey must be a readable file");
        assertThatThrownBy(() -> EtcdLockOptions.builder().clientCertificate(dir.resolve("missing.pem"), cert))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientCertificate must be a readable file");
    }

    @Test
    void credentialsInClear_onlyPlainHttpToRemoteHostsWithCredentials() {
        EtcdLockOptions remote = EtcdLockOptions.builder()
                .endpoints("etcd-1.example:2379", "127.0.0.1:2379", "[::1]:2379", "localhost:2379", "10.0.0.7:2379")
                .credentials("app", "secret")
                .build();
        assertThat(EtcdLockProvider.credentialsInClear(remote))
                .containsExactly("http://etcd-1.example:2379", "http://10.0.0.7:2379");
        // no credentials, or TLS: nothing to warn about
        assertThat(EtcdLockProvider.credentialsInClear(
                        remote.mutate().credentials(null, null).build()))
                .isEmpty();
        assertThat(EtcdLockProvider.credentialsInClear(EtcdLockOptions.builder()
                        .endpoints("https://etcd-1.example:2379")
                        .credentials("app", "secret")
                        .build()))
                .isEmpty();
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
    void requestTimeout_outOfRange_rejected() {
        assertThatThrownBy(() -> EtcdLockOptions.builder().requestTimeout(Duration.ofMillis(1)))
                .hasMessageContaining("requestTimeout must be between");
    }

    @Test
    void credentials_halfGiven_rejected() {
        assertThatThrownBy(() -> EtcdLockOptions.builder().credentials("u", null))
                .hasMessageContaining("user and password must be given together");
    }

    @Test
    void toString_neverShowsPassword() {
        EtcdLockOptions o =
                EtcdLockOptions.builder().credentials("alice", "s3cr3t-pw").build();
        assertThat(o.toString()).contains("alice").doesNotContain("s3cr3t-pw");
    }

    @Test
    void mutate_keepsEverything() {
        EtcdLockOptions o = EtcdLockOptions.builder()
                .endpoints("a:1", "b:2")
                .keyPrefix("/x/")
                .credentials("u", "p")
                .requestTimeout(Duration.ofSeconds(2))
                .build();
        EtcdLockOptions m = o.mutate().build();
        assertThat(m.toString()).isEqualTo(o.toString());
        assertThat(m.password()).contains("p");
    }

    @Test
    void perLockLease_defaultOffAndSettable_buildsAProvider() {
        assertThat(EtcdLockOptions.builder().build().perLockLease()).isFalse();
        EtcdLockOptions o = EtcdLockOptions.builder()
                .endpoints("127.0.0.1:1")
                .perLockLease(true)
                .build();
        assertThat(o.perLockLease()).isTrue();
        assertThat(o.toString()).contains("perLockLease=true");
        try (EtcdLockProvider p = EtcdLockProvider.builder().etcdOptions(o).build()) {
            assertThat(p.etcdOptions().perLockLease()).isTrue();
            assertThat(p.sessionLeaseId()).isEqualTo(-1L);
        }
    }
}
