package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.zookeeper.internal.ZooKeeperLockProviderFactory;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ZooKeeperLockOptionsTest {

    @Test
    void defaults_noSessionTimeout_sessionTimeoutIsLeaseTime() {
        ZooKeeperLockOptions o = ZooKeeperLockOptions.builder()
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(7)).build())
                .build();
        assertThat(o.sessionTimeout()).isEqualTo(Duration.ofSeconds(7));
        assertThat(o.rootPath()).isEqualTo("/distlock");
        assertThat(o.connectString()).isEmpty();
    }

    @Test
    void rootPath_invalid_rejectedWithRule() {
        var b = ZooKeeperLockOptions.builder();
        assertThatThrownBy(() -> b.rootPath("locks")).hasMessageContaining("rootPath must start with '/'");
        assertThatThrownBy(() -> b.rootPath("/locks/")).hasMessageContaining("must not end with '/'");
        assertThatThrownBy(() -> b.rootPath("/a//b")).hasMessageContaining("empty, '.' or '..'");
        assertThatThrownBy(() -> b.rootPath("/a/../b")).hasMessageContaining("empty, '.' or '..'");
        assertThatThrownBy(() -> b.rootPath("/a\u0001")).hasMessageContaining("control");
        assertThatThrownBy(() -> b.rootPath(null)).hasMessageContaining("rootPath must not be null");
        assertThat(b.rootPath("/a/b-c_d").build().rootPath()).isEqualTo("/a/b-c_d");
    }

    @Test
    void connectString_invalid_rejectedWithRule() {
        var b = ZooKeeperLockOptions.builder();
        assertThatThrownBy(() -> b.connectString("")).hasMessageContaining("connectString");
        assertThatThrownBy(() -> b.connectString("h:1,,h:2")).hasMessageContaining("non-empty hosts");
        assertThatThrownBy(() -> b.connectString("h:99999")).hasMessageContaining("1..65535");
        assertThatThrownBy(() -> b.connectString("h:2181/bad/")).hasMessageContaining("chroot");
        assertThat(b.connectString("a:1,b:2/chroot").build().connectString()).hasValue("a:1,b:2/chroot");
    }

    @Test
    void timeouts_nonPositive_rejected() {
        var b = ZooKeeperLockOptions.builder();
        assertThatThrownBy(() -> b.sessionTimeout(Duration.ZERO))
                .hasMessageContaining("sessionTimeout must be at least 1ms");
        assertThatThrownBy(() -> b.connectionTimeout(Duration.ofMillis(-1)))
                .hasMessageContaining("connectionTimeout must be at least 1ms");
        assertThatThrownBy(() -> b.sessionTimeout(Duration.ofDays(30))).hasMessageContaining("at most");
    }

    @Test
    void digestCredentials_invalid_rejectedAndPasswordNeverPrinted() {
        var b = ZooKeeperLockOptions.builder();
        assertThatThrownBy(() -> b.digestCredentials("a:b", "x")).hasMessageContaining("no ':'");
        assertThatThrownBy(() -> b.digestCredentials("a", "")).hasMessageContaining("password must not be empty");
        assertThat(b.digestCredentials("user", "hunter2").build().toString())
                .contains("user")
                .doesNotContain("hunter2");
    }

    @Test
    void parseUri_commaSeparatedHostsAndChroot_parsed() {
        ZooKeeperLockOptions o = ZooKeeperLockProviderFactory.parse(URI.create(
                "zookeeper://h1:2181,h2:2182/app?sessionTimeout=10s&connectionTimeout=2s&leaseTime=5s&rootPath=/l"));
        assertThat(o.connectString()).hasValue("h1:2181,h2:2182/app");
        assertThat(o.sessionTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.connectionTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.lockOptions().leaseTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.rootPath()).isEqualTo("/l");
    }

    @Test
    void parseUri_userInfo_becomesDigestCredentials() {
        ZooKeeperLockOptions o = ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://app:pw@h1:2181"));
        assertThat(o.digestUser()).hasValue("app");
        assertThat(o.connectString()).hasValue("h1:2181");
    }

    @Test
    void parseUri_unknownParameterOrBadValue_configurationErrorWithoutPassword() {
        assertThatThrownBy(() -> ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://h:1?bogus=1")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("bogus");
        assertThatThrownBy(() ->
                        ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://u:secretpw@h:1?sessionTimeout=x")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("sessionTimeout")
                .hasMessageNotContaining("secretpw");
        assertThatThrownBy(() -> ZooKeeperLockProviderFactory.parse(URI.create("zookeeper:///chroot")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("host:port");
        assertThatThrownBy(() -> ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://h:1?rootPath=rel")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("rootPath must start with '/'");
    }

    @Test
    void builder_noConnectStringNoCurator_rejected() {
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectString must be set");
    }
}
