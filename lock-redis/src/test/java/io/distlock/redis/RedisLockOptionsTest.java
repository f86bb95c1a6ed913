package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisLockOptionsTest {

    @Test
    void defaults_matchDocumentedConstants() {
        RedisLockOptions o = RedisLockOptions.defaults();
        assertThat(o.keyPrefix()).isEqualTo(RedisLockOptions.DEFAULT_KEY_PREFIX);
        assertThat(o.poolSize()).isEqualTo(RedisLockOptions.DEFAULT_POOL_SIZE);
        assertThat(o.connectTimeout()).isEqualTo(RedisLockOptions.DEFAULT_CONNECT_TIMEOUT);
        assertThat(o.socketTimeout()).isEqualTo(RedisLockOptions.DEFAULT_SOCKET_TIMEOUT);
        assertThat(o.requiredReplicas()).isZero();
        assertThat(o.replicaAckTimeout()).isEqualTo(RedisLockOptions.DEFAULT_REPLICA_ACK_TIMEOUT);
        assertThat(o.counterRetention()).isEqualTo(RedisLockOptions.DEFAULT_COUNTER_RETENTION);
        assertThat(o.assumePersistence()).isFalse();
        assertThat(o.tls()).isFalse();
        assertThat(o.username()).isEmpty();
        assertThat(o.password()).isEmpty();
    }

    @Test
    void mutate_changesOneSetting_keepsTheOthers() {
        RedisLockOptions o =
                RedisLockOptions.builder().keyPrefix("app").poolSize(3).build();
        RedisLockOptions m = o.mutate().poolSize(5).build();
        assertThat(m.keyPrefix()).isEqualTo("app");
        assertThat(m.poolSize()).isEqualTo(5);
        assertThat(o.poolSize()).isEqualTo(3);
    }

    @Test
    void keyPrefix_withBraces_rejectedNamingTheRule() {
        assertThatThrownBy(() -> RedisLockOptions.builder().keyPrefix("a{b}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix")
                .hasMessageContaining("U+007B");
    }

    @Test
    void keyPrefix_emptyTooLongOrColonEdged_rejected() {
        assertThatThrownBy(() -> RedisLockOptions.builder().keyPrefix(""))
                .hasMessageContaining("keyPrefix must be 1 to 64");
        assertThatThrownBy(() -> RedisLockOptions.builder().keyPrefix("x".repeat(65)))
                .hasMessageContaining("was 65");
        assertThatThrownBy(() -> RedisLockOptions.builder().keyPrefix("a:"))
                .hasMessageContaining("must not start or end with ':'");
        assertThatThrownBy(() -> RedisLockOptions.builder().keyPrefix("a b")).hasMessageContaining("U+0020");
    }

    @Test
    void numericSettings_outOfRange_rejectedWithValue() {
        assertThatThrownBy(() -> RedisLockOptions.builder().poolSize(0))
                .hasMessageContaining("poolSize must be between 1 and 1024 (was 0)");
        assertThatThrownBy(() -> RedisLockOptions.builder().requiredReplicas(-1))
                .hasMessageContaining("requiredReplicas");
        assertThatThrownBy(() -> RedisLockOptions.builder().database(-1))
                .hasMessageContaining("database must not be negative");
        assertThatThrownBy(() -> RedisLockOptions.builder().socketTimeout(Duration.ZERO))
                .hasMessageContaining("socketTimeout");
        assertThatThrownBy(() -> RedisLockOptions.builder().connectTimeout(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> RedisLockOptions.builder().counterRetention(Duration.ofSeconds(5)))
                .hasMessageContaining("counterRetention must be at least");
    }

    @Test
    void build_replicaAckTimeoutNotBelowSocketTimeout_rejected() {
        assertThatThrownBy(() -> RedisLockOptions.builder()
                        .requiredReplicas(1)
                        .replicaAckTimeout(Duration.ofSeconds(3))
                        .socketTimeout(Duration.ofSeconds(2))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaAckTimeout")
                .hasMessageContaining("socketTimeout");
    }

    @Test
    void toString_withPassword_neverShowsIt() {
        RedisLockOptions o =
                RedisLockOptions.builder().username("app").password("s3cret!").build();
        assertThat(o.toString()).doesNotContain("s3cret").contains("****").contains("'app'");
    }

    @Test
    void password_empty_rejected() {
        assertThatThrownBy(() -> RedisLockOptions.builder().password(""))
                .hasMessageContaining("password must not be empty");
    }
}
