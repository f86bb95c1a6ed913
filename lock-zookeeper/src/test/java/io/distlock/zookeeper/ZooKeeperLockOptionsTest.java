package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.zookeeper.internal.ZooKeeperLockProviderFactory;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

class ZooKeeperLockOptionsTest {
    private static final Path READABLE = Path.of("pom.xml");

    @Test
    void defaults_noSessionTimeout_sessionTimeoutIsLeaseTimeAndConnectTimeoutCappedByIt() {
        ZooKeeperLockOptions o = ZooKeeperLockOptions.defaults();
        assertThat(o.sessionTimeout()).isEmpty();
        assertThat(o.rootPath()).isEqualTo("/distlock");
        assertThat(o.credentials()).isEmpty();
        assertThat(o.tls()).isEqualTo(TlsOptions.disabled());
        assertThat(o.timeouts()).isEqualTo(ZooKeeperLockOptions.DEFAULT_TIMEOUTS);
        assertThat(o.connectTimeout(Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(7));
        assertThat(o.connectTimeout(LockOptions.DEFAULT_LEASE_TIME)).isEqualTo(Duration.ofSeconds(15));
        ZooKeeperLockOptions set = o.mutate()
                .timeouts(TimeoutOptions.defaults().withConnectTimeout(Duration.ofSeconds(20)))
                .build();
        assertThat(set.connectTimeout(Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(20));
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
        var b = ZooKeeperLockProvider.builder();
        assertThatThrownBy(() -> b.connectString("")).hasMessageContaining("connectString");
        assertThatThrownBy(() -> b.connectString("h:1,,h:2")).hasMessageContaining("non-empty hosts");
        assertThatThrownBy(() -> b.connectString("h:99999")).hasMessageContaining("1..65535");
        assertThatThrownBy(() -> b.connectString("h:2181/bad/")).hasMessageContaining("chroot");
        assertThatThrownBy(() -> b.connectString(null)).hasMessageContaining("connectString must not be null");
    }

    @Test
    void sessionTimeout_outOfRange_rejected() {
        var b = ZooKeeperLockOptions.builder();
        assertThatThrownBy(() -> b.sessionTimeout(Duration.ZERO))
                .hasMessageContaining("sessionTimeout must be at least 1ms");
        assertThatThrownBy(() -> b.sessionTimeout(Duration.ofDays(30))).hasMessageContaining("at most");
        assertThat(b.sessionTimeout(Duration.ofSeconds(7)).build().sessionTimeout())
                .hasValue(Duration.ofSeconds(7));
    }

    @Test
    void timeouts_requestTimeoutOtherThanDefault_rejectedNamingWhatBoundsARequest() {
        var b = ZooKeeperLockOptions.builder();
        assertThatThrownBy(() -> b.timeouts(TimeoutOptions.of(Duration.ofSeconds(5))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestTimeout is not supported")
                .hasMessageContaining("sessionTimeout");
        TimeoutOptions connectOnly = TimeoutOptions.defaults().withConnectTimeout(Duration.ofSeconds(3));
        assertThat(b.timeouts(connectOnly).build().timeouts()).isEqualTo(connectOnly);
    }

    @Test
    void credentials_invalid_rejectedAndPasswordNeverPrinted() {
        var b = ZooKeeperLockOptions.builder();
        assertThatThrownBy(() -> b.credentials(Credentials.of("a:b", "x"))).hasMessageContaining("':'");
        assertThatThrownBy(() -> b.credentials(Credentials.of("a", ""))).hasMessageContaining("must not be empty");
        assertThatThrownBy(() -> b.credentials(Credentials.password("x"))).hasMessageContaining("must name a user");
        assertThat(b.credentials(Credentials.of("user", "hunter2")).build().toString())
                .contains("user")
                .doesNotContain("hunter2");
    }

    @Test
    void tls_trustSourcesTheClientCannotUse_rejectedNamingTheOption() throws Exception {
        var b = ZooKeeperLockOptions.builder();
        assertThatThrownBy(() -> b.tls(TlsOptions.enabled())).hasMessageContaining("trustCertificates or trustStore");
        assertThatThrownBy(() -> b.tls(
                        TlsOptions.builder().sslContext(SSLContext.getDefault()).build()))
                .hasMessageContaining("sslContext");
        assertThatThrownBy(() -> b.tls(TlsOptions.builder()
                        .trustCertificates(READABLE)
                        .clientCertificate(READABLE, READABLE)
                        .build()))
                .hasMessageContaining("clientCertificate");
        TlsOptions pem = TlsOptions.builder().trustCertificates(READABLE).build();
        assertThat(b.tls(pem).build().tls()).isEqualTo(pem);
        assertThat(b.tls(TlsOptions.disabled()).build().tls().isEnabled()).isFalse();
    }

    @Test
    void parseUri_commaSeparatedHostsAndChroot_parsed() {
        ZooKeeperLockProviderFactory.Parsed p = ZooKeeperLockProviderFactory.parse(URI.create(
                "zookeeper://h1:2181,h2:2182/app?sessionTimeout=10s&connectTimeout=2s&leaseTime=5s&rootPath=/l"));
        assertThat(p.connectString()).isEqualTo("h1:2181,h2:2182/app");
        assertThat(p.options().sessionTimeout()).hasValue(Duration.ofSeconds(10));
        assertThat(p.options().timeouts().connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(p.options().timeouts().requestTimeout()).isEqualTo(TimeoutOptions.DEFAULT_REQUEST_TIMEOUT);
        assertThat(p.lockOptions().leaseTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.options().rootPath()).isEqualTo("/l");
    }

    @Test
    void parseUri_userInfo_becomesDigestCredentials() {
        ZooKeeperLockProviderFactory.Parsed p =
                ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://app:p%2Bw+x@h1:2181"));
        assertThat(p.options().credentials()).hasValue(Credentials.of("app", "p+w+x"));
        assertThat(p.connectString()).isEqualTo("h1:2181");
    }

    @Test
    void parseUri_trustParameters_turnTlsOn() {
        String pem = READABLE.toAbsolutePath().toString();
        ZooKeeperLockProviderFactory.Parsed p =
                ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://h:1?trustCertificates=" + pem));
        assertThat(p.options().tls().isEnabled()).isTrue();
        assertThat(p.options().tls().trustCertificates()).hasValue(Path.of(pem));
        p = ZooKeeperLockProviderFactory.parse(
                URI.create("zookeeper://h:1?tls=true&trustStore=" + pem + "&trustStorePassword=pw"));
        assertThat(p.options().tls().trustStore()).hasValue(Path.of(pem));
        assertThat(p.options().tls().trustStorePassword()).hasValue("pw");
        assertThat(ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://h:1?tls=false"))
                        .options()
                        .tls()
                        .isEnabled())
                .isFalse();
    }

    @Test
    void parseUri_unknownParameterOrBadValue_configurationErrorWithoutPassword() {
        assertThatThrownBy(() -> ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://h:1?bogus=1")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("bogus");
        assertThatThrownBy(() -> ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://h:1?connectionTimeout=1s")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("connectionTimeout");
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
        assertThatThrownBy(() -> ZooKeeperLockProviderFactory.parse(URI.create("zookeeper://h:1?requestTimeout=5s")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("requestTimeout is not supported");
    }

    @Test
    void builder_noAddressOrBoth_rejected() {
        assertThatThrownBy(() -> ZooKeeperLockProvider.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectString or curator must be set");
        try (CuratorFramework notStarted = CuratorFrameworkFactory.newClient("h:1", new RetryOneTime(1))) {
            assertThatThrownBy(() -> ZooKeeperLockProvider.builder()
                            .connectString("h:1")
                            .curator(notStarted)
                            .build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exclusive");
        }
    }
}
