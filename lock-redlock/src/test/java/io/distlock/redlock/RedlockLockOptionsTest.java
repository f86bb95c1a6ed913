package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Capabilities;
import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.redis.core.RedisConnectionOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedlockLockOptionsTest {

    @Test
    void defaults_areDocumentedValues() {
        RedlockLockOptions o = RedlockLockOptions.defaults();
        assertThat(o.nodeTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(o.fencing()).isTrue();
        assertThat(o.assumePersistence()).isFalse();
        assertThat(o.allowEvenNodeCount()).isFalse();
        assertThat(o.keyPrefix())
                .isEqualTo(RedlockLockOptions.DEFAULT_KEY_PREFIX)
                .isEqualTo("distlock-redlock");
        assertThat(o.poolSize()).isEqualTo(RedlockLockOptions.DEFAULT_POOL_SIZE);
        assertThat(o.timeouts()).isEqualTo(RedlockLockOptions.DEFAULT_TIMEOUTS);
        assertThat(o.timeouts()).isEqualTo(TimeoutOptions.of(Duration.ofSeconds(1)));
        assertThat(o.tls()).isEqualTo(TlsOptions.disabled());
        assertThat(o.credentials()).isEmpty();
        assertThat(o.mutate().build().toString()).isEqualTo(o.toString());
    }

    @Test
    void connection_sharedBlock_holdsTheConnectionSettings() {
        RedlockLockOptions o = RedlockLockOptions.builder()
                .credentials(Credentials.of("locks", "pw"))
                .keyPrefix("app")
                .poolSize(3)
                .database(1)
                .build();
        assertThat(o.connection().credentials()).contains(Credentials.of("locks", "pw"));
        assertThat(o.connection().keyPrefix()).isEqualTo("app");
        assertThat(o.connection().poolSize()).isEqualTo(3);
        assertThat(o.connection().database()).isEqualTo(1);
        assertThatThrownBy(() -> RedlockLockOptions.builder()
                        .connection(
                                RedisConnectionOptions.builder().poolSize(300).build()))
                .hasMessageContaining("poolSize must be between 1 and 256 (was 300)");
    }

    @Test
    void provider_nodeTimeoutNotBelowHalfTheLease_isRejected() {
        assertThatThrownBy(() -> RedlockLockProvider.builder()
                        .nodes("127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3")
                        .options(RedlockLockOptions.builder()
                                .nodeTimeout(Duration.ofMillis(50))
                                .build())
                        .leaseTime(Duration.ofMillis(100))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodeTimeout must be below half the leaseTime");
    }

    @Test
    void builder_badValues_areRejectedNamingTheArgument() {
        assertThatThrownBy(() -> RedlockLockOptions.builder().nodeTimeout(Duration.ZERO))
                .hasMessageContaining("nodeTimeout must be positive");
        assertThatThrownBy(() -> RedlockLockOptions.builder().poolSize(0)).hasMessageContaining("poolSize");
        assertThatThrownBy(() -> RedlockLockOptions.builder().keyPrefix("a b")).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedlockLockOptions.builder().database(-1)).hasMessageContaining("database");
        assertThatThrownBy(() -> RedlockLockOptions.builder().maxRetryDelay(Duration.ofMillis(-1)))
                .hasMessageContaining("maxRetryDelay");
    }

    @Test
    void toString_withPassword_doesNotShowIt() {
        assertThat(RedlockLockOptions.builder()
                        .credentials(Credentials.password("s3cret"))
                        .build()
                        .toString())
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
                .options(RedlockLockOptions.builder().allowEvenNodeCount(true).build())
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
                .options(RedlockLockOptions.builder().assumePersistence(true).build())
                .build()) {
            assertThat(p.capabilities().fencingSurvivesServerRestart()).isTrue();
        }
        try (RedlockLockProvider p = RedlockLockProvider.builder()
                .nodes(three)
                .options(RedlockLockOptions.builder()
                        .fencing(false)
                        .assumePersistence(true)
                        .build())
                .build()) {
            assertThat(p.capabilities().fencing()).isEqualTo(Capabilities.Fencing.NONE);
            assertThat(p.capabilities().fencingSurvivesServerRestart()).isFalse();
        }
    }
}
