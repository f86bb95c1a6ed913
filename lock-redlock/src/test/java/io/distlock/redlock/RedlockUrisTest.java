package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import java.net.URI;
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
            assertThat(r.options().lockOptions().leaseTime()).isEqualTo(Duration.ofSeconds(5));
            assertThat(r.options().nodeTimeout()).isEqualTo(Duration.ofMillis(30));
            assertThat(r.options().fencing()).isFalse();
            assertThat(r.options().maxRetryDelay()).isEqualTo(Duration.ofMillis(20));
            assertThat(r.lockKey("job")).startsWith("app:{");
            assertThat(p.backend()).isEqualTo("redlock");
        }
    }

    @Test
    void open_emptyPassword_meansNoPasswordAsForRedis() {
        try (LockProvider p = LockProviders.open(URI.create("redlock://app:@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3"))) {
            assertThat(((RedlockLockProvider) p).options().username()).contains("app");
            assertThat(((RedlockLockProvider) p).options().password()).isEmpty();
        }
    }

    @Test
    void open_plusInPassword_staysAPlus() {
        try (LockProvider p = LockProviders.open(URI.create("redlock://app:p+w@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3"))) {
            assertThat(((RedlockLockProvider) p).options().password()).contains("p+w");
        }
    }

    @Test
    void open_credentials_areUsedButNeverShown() {
        try (LockProvider p =
                LockProviders.open(URI.create("redlock://app:s3cret@127.0.0.1:1,127.0.0.1:2,127.0.0.1:3"))) {
            RedlockLockProvider r = (RedlockLockProvider) p;
            assertThat(r.options().username()).contains("app");
            assertThat(r.options().password()).contains("s3cret");
            assertThat(r.toString()).doesNotContain("s3cret");
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
        assertThatThrownBy(() -> RedlockLockProvider.builder().node("127.0.0.1", 1, "u", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("password");
        assertThatThrownBy(() -> RedlockLockProvider.builder().node("127.0.0.1", 1, "", "pw"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("username must not be empty");
        assertThatThrownBy(() -> RedlockLockProvider.builder()
                        .node("127.0.0.1", 1, "u", "pw-s3cret")
                        .node("127.0.0.1", 1, "v", "other-s3cret")
                        .node("127.0.0.1", 2)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("distinct")
                .hasMessageContaining("127.0.0.1:1 (user u)")
                .hasMessageNotContaining("s3cret");
        try (RedlockLockProvider p = RedlockLockProvider.builder()
                .node("127.0.0.1", 1, "u", "pw-s3cret")
                .node("127.0.0.1", 2, null, "pw2-s3cret")
                .node("127.0.0.1", 3)
                .build()) {
            assertThat(p.nodes()).containsExactly("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3");
            assertThat(p.toString()).doesNotContain("s3cret");
        }
    }
}
