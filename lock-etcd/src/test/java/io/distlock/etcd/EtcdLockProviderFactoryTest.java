package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Opening a provider does no I/O, so these need no server (port 1 is never contacted). */
class EtcdLockProviderFactoryTest {

    @Test
    void open_hostList_parsesEndpointsPrefixAndParameters() {
        try (LockProvider p = LockProviders.open(
                URI.create("etcd://127.0.0.1:1,127.0.0.2:1/app/locks?leaseTime=3s&requestTimeout=2s"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.etcdOptions().endpoints()).containsExactly("127.0.0.1:1", "127.0.0.2:1");
            assertThat(e.etcdOptions().keyPrefix()).isEqualTo("/app/locks/");
            assertThat(e.etcdOptions().requestTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(e.options().leaseTime()).isEqualTo(Duration.ofSeconds(3));
            assertThat(e.backend()).isEqualTo("etcd");
            assertThat(e.capabilities().fencing().present()).isTrue();
        }
    }

    @Test
    void open_withoutPortOrParameters_usesDefaults() {
        try (LockProvider p = LockProviders.open(URI.create("etcd://127.0.0.1"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.etcdOptions().endpoints()).containsExactly("127.0.0.1:2379");
            assertThat(e.etcdOptions().keyPrefix()).isEqualTo("/distlock/");
            assertThat(e.options().leaseTime()).isEqualTo(EtcdLockProvider.DEFAULT_LEASE_TIME);
        }
    }

    @Test
    void open_plusInUserInfo_staysAPlus() {
        try (LockProvider p = LockProviders.open(URI.create("etcd://b+b:p+w@127.0.0.1:1"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.etcdOptions().user()).contains("b+b");
            assertThat(e.etcdOptions().password()).contains("p+w");
        }
    }

    @Test
    void open_userInfo_setsCredentialsAndKeepsPasswordOutOfToString() {
        try (LockProvider p = LockProviders.open(URI.create("etcd://bob:hunter2@127.0.0.1:1"))) {
            EtcdLockProvider e = (EtcdLockProvider) p;
            assertThat(e.etcdOptions().user()).contains("bob");
            assertThat(e.etcdOptions().password()).contains("hunter2");
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
            assertThat(((EtcdLockProvider) on).etcdOptions().perLockLease()).isTrue();
            assertThat(((EtcdLockProvider) off).etcdOptions().perLockLease()).isFalse();
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
}
