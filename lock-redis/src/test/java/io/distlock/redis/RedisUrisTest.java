package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.redis.internal.RedisUris;
import io.distlock.redis.internal.Topology;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

class RedisUrisTest {

    private static RedisUris.Parsed parse(String uri) {
        return RedisUris.parse(URI.create(uri));
    }

    @Test
    void parse_plusInUserInfo_staysAPlus() {
        RedisLockOptions o = parse("redis://a+b:p+w%2Bx@127.0.0.1:6380").options();
        assertThat(o.credentials()).contains(Credentials.of("a+b", "p+w+x"));
    }

    @Test
    void parse_standaloneWithCredentialsDbAndParams_readsAll() {
        RedisUris.Parsed p = parse("redis://app:p%40ss@127.0.0.1:6380/3?leaseTime=5s&keyPrefix=svc&poolSize=2"
                + "&connectTimeout=100ms&requestTimeout=1s&requiredReplicas=1&replicaAckTimeout=50ms"
                + "&assumePersistence=true&counterRetention=2d&autoRenew=false&handOff=false");
        assertThat(p.topology().kind()).isEqualTo(Topology.Kind.STANDALONE);
        assertThat(p.topology().nodes()).containsExactly(new HostAndPort("127.0.0.1", 6380));
        RedisLockOptions o = p.options();
        assertThat(o.credentials()).contains(Credentials.of("app", "p@ss"));
        assertThat(o.database()).isEqualTo(3);
        assertThat(p.lockOptions().leaseTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.lockOptions().autoRenew()).isFalse();
        assertThat(o.keyPrefix()).isEqualTo("svc");
        assertThat(o.poolSize()).isEqualTo(2);
        assertThat(o.timeouts()).isEqualTo(new TimeoutOptions(Duration.ofMillis(100), Duration.ofSeconds(1)));
        assertThat(o.requiredReplicas()).isEqualTo(1);
        assertThat(o.replicaAckTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(o.assumePersistence()).isTrue();
        assertThat(o.counterRetention()).isEqualTo(Duration.ofDays(2));
        assertThat(o.handOff()).isFalse();
        assertThat(o.tls().isEnabled()).isFalse();
    }

    @Test
    void parse_trustParameters_giveTlsOptions() {
        TlsOptions pem =
                parse("rediss://h:1?trustCertificates=pom.xml").options().tls();
        assertThat(pem.trustCertificates()).contains(Path.of("pom.xml"));
        TlsOptions store = parse("redis://h:1?tls=true&trustStore=pom.xml&trustStorePassword=changeit")
                .options()
                .tls();
        assertThat(store.trustStore()).contains(Path.of("pom.xml"));
        assertThat(store.trustStorePassword()).contains("changeit");
        assertThatThrownBy(() -> parse("redis://h:1?trustCertificates=pom.xml"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("trustCertificates needs TLS (use rediss:// or tls=true)");
        assertThatThrownBy(() -> parse("rediss://h:1?clientCertificate=pom.xml&clientKey=pom.xml"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("clientCertificate");
    }

    @Test
    void parse_oldParameterNames_rejectedAsUnknown() {
        for (String old : new String[] {"socketTimeout=1s", "tlsCaFile=pom.xml"}) {
            assertThatThrownBy(() -> parse("rediss://h:1?" + old))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("unknown parameter(s) [" + old.substring(0, old.indexOf('=')) + "]");
        }
    }

    @Test
    void parse_userWithEmptyPassword_meansNoCredentials() {
        assertThat(parse("redis://app:@h:1").options().credentials()).isEmpty();
        assertThat(parse("redis://:pw@h:1").options().credentials()).contains(Credentials.password("pw"));
    }

    @Test
    void parse_noHandOffParameter_handOffOnByDefault() {
        assertThat(parse("redis://127.0.0.1:6379").options().handOff()).isTrue();
        assertThat(RedisLockOptions.defaults().handOff()).isTrue();
        assertThat(parse("redis://127.0.0.1:6379?handOff=false").options().handOff())
                .isFalse();
    }

    @Test
    void parse_rediss_enablesTls() {
        assertThat(parse("rediss://localhost:6379").options().tls().isEnabled()).isTrue();
    }

    @Test
    void parse_redissSentinel_enablesTlsForSentinelsAndDataNodes() {
        RedisUris.Parsed p = parse("rediss-sentinel://u:pw@h1,h2:26380/mymaster?trustCertificates=pom.xml");
        assertThat(p.options().tls().trustCertificates()).contains(Path.of("pom.xml"));
        assertThat(p.topology().kind()).isEqualTo(Topology.Kind.SENTINEL);
        assertThat(p.topology().masterName()).isEqualTo("mymaster");
        assertThat(p.topology().nodes()).extracting(Object::toString).containsExactly("h1:26379", "h2:26380");
        assertThat(parse("redis-sentinel://h1/mymaster").options().tls().isEnabled())
                .isFalse();
        assertThat(parse("redis-sentinel://h1/mymaster?tls=true")
                        .options()
                        .tls()
                        .isEnabled())
                .isTrue();
    }

    @Test
    void parse_lonePasswordUserinfo_isPassword() {
        RedisLockOptions o = parse("redis://secret@localhost:6379").options();
        assertThat(o.credentials()).contains(Credentials.password("secret"));
    }

    @Test
    void parse_sentinel_readsHostsAndMaster() {
        RedisUris.Parsed p = parse("redis-sentinel://h1:26379,h2:26380,h3:26381/mymaster?leaseTime=1s");
        assertThat(p.topology().kind()).isEqualTo(Topology.Kind.SENTINEL);
        assertThat(p.topology().masterName()).isEqualTo("mymaster");
        assertThat(p.topology().nodes())
                .containsExactly(
                        new HostAndPort("h1", 26379), new HostAndPort("h2", 26380), new HostAndPort("h3", 26381));
    }

    @Test
    void parse_ipv6Standalone_readsBracketedHost() {
        assertThat(parse("redis://[::1]:6379").topology().nodes()).containsExactly(new HostAndPort("::1", 6379));
    }

    @Test
    void parse_hostsWithoutPort_useDefaultPorts() {
        assertThat(parse("redis://localhost").topology().nodes()).containsExactly(new HostAndPort("localhost", 6379));
        assertThat(parse("redis://[::1]/2").topology().nodes()).containsExactly(new HostAndPort("::1", 6379));
        assertThat(parse("redis-sentinel://s1,s2:26380/m").topology().nodes())
                .containsExactly(new HostAndPort("s1", 26379), new HostAndPort("s2", 26380));
    }

    @Test
    void parse_cluster_readsSeedNodes() {
        RedisUris.Parsed p = parse("redis-cluster://a:7000,b:7001");
        assertThat(p.topology().kind()).isEqualTo(Topology.Kind.CLUSTER);
        assertThat(p.topology().nodes()).hasSize(2);
    }

    @Test
    void parse_sentinelWithoutMaster_rejected() {
        assertThatThrownBy(() -> parse("redis-sentinel://h1:26379"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("master name is missing");
    }

    @Test
    void parse_clusterWithDatabase_rejected() {
        assertThatThrownBy(() -> parse("redis-cluster://a:7000?database=2"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("database must be 0");
    }

    @Test
    void parse_unknownParameter_rejectedListingAccepted() {
        assertThatThrownBy(() -> parse("redis://localhost:6379?leasetime=5s"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown parameter(s) [leasetime]")
                .hasMessageContaining("leaseTime");
    }

    @Test
    void parse_badValues_rejectedWithoutPassword() {
        assertThatThrownBy(() -> parse("redis://u:topsecret@localhost:6379?poolSize=0"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("poolSize")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis://u:topsecret@localhost:notaport"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis://u:topsecret@a:1,b:2"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("redis-cluster://")
                .hasMessageNotContaining("topsecret");
        assertThatThrownBy(() -> parse("redis://u:topsecret@localhost:6379?leaseTime=forever"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageNotContaining("topsecret");
    }

    @Test
    void parse_missingHost_rejected() {
        assertThatThrownBy(() -> parse("redis:///0")).isInstanceOf(LockConfigurationException.class);
    }
}
