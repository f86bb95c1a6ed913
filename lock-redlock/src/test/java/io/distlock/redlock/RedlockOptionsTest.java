package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Capabilities;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedlockOptionsTest {

    @Test
    void defaults_areDocumentedValues() {
        RedlockOptions o = RedlockOptions.defaults();
        assertThat(o.nodeTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(o.fencing()).isTrue();
        assertThat(o.assumePersistence()).isFalse();
        assertThat(o.allowEvenNodeCount()).isFalse();
        assertThat(o.keyPrefix()).isEqualTo("distlock-redlock");
        assertThat(o.mutate().build().toString()).isEqualTo(o.toString());
    }

    @Test
    void nodeTimeout_notBelowHalfTheLease_isRejected() {
        assertThatThrownBy(() -> RedlockOptions.builder()
                        .leaseTime(Duration.ofMillis(100))
                        .nodeTimeout(Duration.ofMillis(50))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodeTimeout must be below half the leaseTime");
    }

    @Test
    void builder_badValues_areRejectedNamingTheArgument() {
        assertThatThrownBy(() -> RedlockOptions.builder().nodeTimeout(Duration.ZERO))
                .hasMessageContaining("nodeTimeout must be positive");
        assertThatThrownBy(() -> RedlockOptions.builder().poolSize(0)).hasMessageContaining("poolSize");
        assertThatThrownBy(() -> RedlockOptions.builder().keyPrefix("a b")).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedlockOptions.builder().database(-1)).hasMessageContaining("database");
        assertThatThrownBy(() -> RedlockOptions.builder().maxRetryDelay(Duration.ofMillis(-1)))
                .hasMessageContaining("maxRetryDelay");
    }

    @Test
    void toString_withPassword_doesNotShowIt() {
        assertThat(RedlockOptions.builder().password("s3cret").build().toString())
                .doesNotContain("s3cret")
                .contains("password=****");
    }

    @Test
    void provider_fewerThanThreeNodes_isRejected() {
        assertThatThrownBy(() -> RedlockLockProvider.builder()
                        .nodes("127.0.0.1:1", "127.0.0.1:2")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 3");
    }

    @Test
    void provider_evenNodeCount_isRejectedUnlessAllowed() {
        String[] four = {"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3", "127.0.0.1:4"};
        assertThatThrownBy(() -> RedlockLockProvider.builder().nodes(four).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be odd");
        try (RedlockLockProvider p = RedlockLockProvider.builder()
                .nodes(four)
                .options(RedlockOptions.builder().allowEvenNodeCount(true).build())
                .build()) {
            assertThat(p.nodes()).hasSize(4);
        }
    }

    @Test
    void provider_duplicateNode_isRejected() {
        assertThatThrownBy(() -> RedlockLockProvider.builder()
                        .nodes("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:1")
                        .build())
                .hasMessageContaining("distinct");
    }

    @Test
    void capabilities_declareWhatTheAlgorithmGives() {
        String[] three = {"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"};
        try (RedlockLockProvider p = RedlockLockProvider.builder().nodes(three).build()) {
            Capabilities c = p.capabilities();
            assertThat(c.fencing()).isEqualTo(Capabilities.Fencing.MONOTONIC_PER_LOCK);
            assertThat(c.fencingSurvivesServerRestart()).isFalse();
            assertThat(c.failover()).isEqualTo(Capabilities.Failover.MAY_GRANT_TWICE);
            assertThat(c.wakeUp()).isEqualTo(Capabilities.WakeUp.NOTIFICATION);
            assertThat(c.automaticRenewal()).isTrue();
        }
        try (RedlockLockProvider p = RedlockLockProvider.builder()
                .nodes(three)
                .options(RedlockOptions.builder().assumePersistence(true).build())
                .build()) {
            assertThat(p.capabilities().fencingSurvivesServerRestart()).isTrue();
        }
        try (RedlockLockProvider p = RedlockLockProvider.builder()
                .nodes(three)
                .options(RedlockOptions.builder()
                        .fencing(false)
                        .assumePersistence(true)
                        .build())
                .build()) {
            assertThat(p.capabilities().fencing()).isEqualTo(Capabilities.Fencing.NONE);
            assertThat(p.capabilities().fencingSurvivesServerRestart()).isFalse();
        }
    }
}
