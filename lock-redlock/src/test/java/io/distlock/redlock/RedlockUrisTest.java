package io.distlock.redlock;

import static io.distlock.redlock.RedlockTestAccess.lockKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TimeoutOptions;
import io.distlock.redlock.internal.NodeAddress;
import io.distlock.redlock.internal.RedlockUris;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code redlock://} URIs through {@link LockProviders#open(URI)}; opening does no I/O. */
class RedlockUrisTest {

    @Test
    void open_commaSeparatedNodesAndParameters_configuresProvider() {
        try (LockProvider p = LockProviders.open(URI.create(
                "redlock://127.0.0.1:7001,127.0.0.1:7002,localhost?leaseTime=5s&nodeTimeout=30ms&fencing=false"
                        + "&maxRetryDelay=20ms&keyPrefix=app"))) {
            assertThat(p).isInstanceOf(RedlockLockProvider.class);
            RedlockLockProvider r = (RedlockLockProvider) p;
            assertThat(r.nodes()).containsExactly("127.0.0.1:7001", "127.0.0.1:7002", "localhost:6379");
            assertThat(lockKey(r, "job")).startsWith("app:{");
            assertThat(p.backend()).isEqualTo("redlock");
        }
    }

    @Test
    void parse_parameters_giveOptionsAndLockOptions() {
        RedlockUris.Parsed parsed = parse("redlock://127.0.0.1:7001,127.0.0.1:7002,localhost?leaseTime=5s"
                + "&nodeTimeout=30ms&fencing=false&maxRetryDelay=20ms&keyPrefix=app&poolSize=3"
                + "&connectTimeout=300ms&requestTimeout=400ms&database=2");
        assertThat(parsed.nodes())
                .extracting(NodeAddress::address)
                .containsExactly("127.0.0.1:7001", "127.0.0.1:7002", "localhost:6379");
        assertThat(parsed.lockOptions().leaseTime()).isEqualTo(Duration.ofSeconds(5));
        RedlockLockOptions o = parsed.options();
        assertThat(o.nodeTimeout()).isEqualTo(Duration.ofMillis(30));
        assertThat(o.fencing()).isFalse();
        assertThat(o.maxRetryDelay()).isEqualTo(Duration.ofMillis(20));
        assertThat(o.keyPrefix()).isEqualTo("app");
        assertThat(o.poolSize()).isEqualTo(3);
        assertThat(o.timeouts()).isEqualTo(new TimeoutOptions(Duration.ofMillis(300), Duration.ofMillis(400)));
        assertThat(o.database()).isEqualTo(2);
        assertThat(o.tls().isEnabled()).isFalse();
    }

    @Test
    void parse_redlocksAndTrustParameters_giveTlsOptions() {
        RedlockLockOptions o =
                parse("redlocks://a:1,b:2,c:3?trustCertificates=pom.xml").options();
        assertThat(o.tls().trustCertificates()).contains(Path.of("pom.xml"));
        assertThatThrownBy(() -> parse("redlock://a:1,b:2,c:3?trustCertificates=pom.xml"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("trustCertificates needs TLS (use redlocks:// or tls=true)");
        assertThatThrownBy(() -> parse("redlocks://a:1,b:2,c:3?tlsCaFile=pom.xml"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown parameter(s) [tlsCaFile]");
        assertThatThrownBy(() -> parse("redlock://a:1,b:2,c:3?socketTimeout=1s"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("unknown parameter(s) [socketTimeout]");
    }

    private static RedlockUris.Parsed parse(String uri) {
        return RedlockUris.parse(URI.create(uri));
    }

    @Test
    void open_emptyPassword_meansNoPasswordAsForRedis() {
        assertThat(parse("redlock://app:@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3")
                        .options()
                        .credentials())
                .isEmpty();
    }

    @Test
    void open_plusInPassword_staysAPlus() {
        assertThat(parse("redlock://app:p+w@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3")
                        .options()
                        .credentials())
                .contains(Credentials.of("app", "p+w"));
    }

    @Test
    void open_credentials_areUsedButNeverShown() {
        assertThat(parse("redlock://app:s3cret@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3")
                        .options()
                        .credentials())
                .contains(Credentials.of("app", "s3cret"));
        try (LockProvider p =
                LockProviders.open(URI.create("redlock://app:s3cret@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3"))) {
            assertThat(p.toString()).doesNotContain("s3cret");
        }
        assertThatThrownBy(() -> LockProviders.open(URI.create("redlock://app:s3cret@127.0.0.1:1,127.0.0.1:2")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("at least 3")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void open_unknownParameter_isRejectedListingAcceptedOnes() {
        assertThatThrownBy(() -> LockProviders.open(
                        URI.create("redlock://:pw@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3?nodeTimout=10ms")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("nodeTimout")
                .hasMessageContaining("nodeTimeout")
                .hasMessageNotContaining(":pw@");
    }

    @Test
    void open_evenNodeCount_needsExplicitPermission() {
        String nodes = "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3,127.0.0.1:4";
        assertThatThrownBy(() -> LockProviders.open(URI.create("redlock://" + nodes)))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("odd");
        try (LockProvider p = LockProviders.open(URI.create("redlock://" + nodes + "?allowEvenNodeCount=true"))) {
            assertThat(((RedlockLockProvider) p).nodes()).hasSize(4);
        }
    }

    @Test
    void open_badNodeList_isRejected() {
        assertThatThrownBy(() -> LockProviders.open(URI.create("redlock://127.0.0.1:1,,127.0.0.1:3")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("empty node");
        assertThatThrownBy(() -> LockProviders.open(URI.create("redlock://a:1,b:x,c:3")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("port must be a number");
    }

    @Test
    void open_perNodeCredentials_acceptedForListedNodesOnlyAndNeverShown() {
        String nodes = "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3";
        assertThat(parse("redlock://" + nodes
                                + "?node1.username=a&node1.password=pw-one-s3cret&node3.password=pw-three-s3cret")
                        .nodes())
                .extracting(NodeAddress::ownCredentials)
                .containsExactly(Credentials.of("a", "pw-one-s3cret"), null, Credentials.password("pw-three-s3cret"));
        try (LockProvider p = LockProviders.open(URI.create("redlock://" + nodes
                + "?node1.username=a&node1.password=pw-one-s3cret&node3.password=pw-three-s3cret"))) {
            assertThat(((RedlockLockProvider) p).nodes()).containsExactly("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3");
            assertThat(p.toString()).doesNotContain("s3cret");
        }
        assertThatThrownBy(
                        () -> LockProviders.open(URI.create("redlock://" + nodes + "?node4.password=pw-four-s3cret")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("node4.password")
                .hasMessageContaining("node3.password")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> LockProviders.open(URI.create("redlock://" + nodes + "?node2.username=b")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("node2.username needs node2.password");
        assertThatThrownBy(() -> LockProviders.open(
                        URI.create("redlock://u:shared-s3cret@" + nodes + "?node2.password=&poolSize=0")))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void builder_nodeWithOwnCredentials_validatedAndNeverShown() {
        assertThatThrownBy(() -> RedlockLockProvider.builder().node("127.0.0.1", 1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("credentials");
        assertThatThrownBy(() -> RedlockLockProvider.builder().node("127.0.0.1", 1, Credentials.password("")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("password must not be empty");
        assertThatThrownBy(() -> RedlockLockProvider.builder()
                        .node("127.0.0.1", 1, Credentials.of("u", "pw-s3cret"))
                        .node("127.0.0.1", 1, Credentials.of("v", "other-s3cret"))
                        .node("127.0.0.1", 2)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("distinct")
                .hasMessageContaining("127.0.0.1:1 (user u)")
                .hasMessageNotContaining("s3cret");
        try (RedlockLockProvider p = RedlockLockProvider.builder()
                .node("127.0.0.1", 1, Credentials.of("u", "pw-s3cret"))
                .node("127.0.0.1", 2, Credentials.password("pw2-s3cret"))
                .node("127.0.0.1", 3)
                .build()) {
            assertThat(p.nodes()).containsExactly("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3");
            assertThat(p.toString()).doesNotContain("s3cret");
        }
    }
}
