package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.redis.core.RedisConnectionOptions;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisLockOptionsTest {

    @Test
    void defaults_matchDocumentedConstants() {
        RedisLockOptions o = RedisLockOptions.defaults();
        assertThat(o.keyPrefix()).isEqualTo(RedisLockOptions.DEFAULT_KEY_PREFIX);
        assertThat(o.poolSize()).isEqualTo(RedisLockOptions.DEFAULT_POOL_SIZE);
        assertThat(o.timeouts()).isEqualTo(RedisLockOptions.DEFAULT_TIMEOUTS).isEqualTo(TimeoutOptions.defaults());
        assertThat(o.requiredReplicas()).isZero();
        assertThat(o.replicaAckTimeout()).isEqualTo(RedisLockOptions.DEFAULT_REPLICA_ACK_TIMEOUT);
        assertThat(o.counterRetention()).isEqualTo(RedisLockOptions.DEFAULT_COUNTER_RETENTION);
        assertThat(o.assumePersistence()).isFalse();
        assertThat(o.handOff()).isTrue();
        assertThat(o.tls()).isEqualTo(TlsOptions.disabled());
        assertThat(o.credentials()).isEmpty();
        assertThat(o.database()).isZero();
        assertThat(o.connection()).isEqualTo(RedisConnectionOptions.defaults());
    }

    @Test
    void mutate_changesOneSetting_keepsTheOthers() {
        RedisLockOptions o = RedisLockOptions.builder()
                .keyPrefix("app")
                .poolSize(3)
                .credentials(Credentials.password("pw"))
                .build();
        RedisLockOptions m = o.mutate().poolSize(5).build();
        assertThat(m.keyPrefix()).isEqualTo("app");
        assertThat(m.poolSize()).isEqualTo(5);
        assertThat(m.credentials()).isEqualTo(o.credentials());
        assertThat(o.poolSize()).isEqualTo(3);
    }

    @Test
    void connection_sharedBlock_replacesEveryConnectionSettingAndKeepsTheOthers() {
        RedisConnectionOptions c = RedisConnectionOptions.builder()
                .keyPrefix("shared")
                .database(2)
                .timeouts(TimeoutOptions.of(Duration.ofMillis(300)))
                .build();
        RedisLockOptions o = RedisLockOptions.builder()
                .handOff(false)
                .poolSize(2)
                .connection(c)
                .build();
        assertThat(o.connection()).isEqualTo(c);
        assertThat(o.keyPrefix()).isEqualTo("shared");
        assertThat(o.poolSize()).isEqualTo(RedisConnectionOptions.DEFAULT_POOL_SIZE);
        assertThat(o.handOff()).isFalse();
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
        assertThatThrownBy(() -> RedisLockOptions.builder().timeouts(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("timeouts");
        assertThatThrownBy(() -> RedisLockOptions.builder().counterRetention(Duration.ofSeconds(5)))
                .hasMessageContaining("counterRetention must be at least");
        assertThatThrownBy(() -> RedisLockOptions.builder().replicaAckTimeout(Duration.ZERO))
                .hasMessageContaining("replicaAckTimeout");
    }

    @Test
    void build_replicaAckTimeoutNotBelowRequestTimeout_rejected() {
        assertThatThrownBy(() -> RedisLockOptions.builder()
                        .requiredReplicas(1)
                        .replicaAckTimeout(Duration.ofSeconds(3))
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(2)))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaAckTimeout")
                .hasMessageContaining("requestTimeout");
    }

    @Test
    void toString_withPassword_neverShowsIt() {
        RedisLockOptions o = RedisLockOptions.builder()
                .credentials(Credentials.of("app", "s3cret!"))
                .build();
        assertThat(o.toString()).doesNotContain("s3cret").contains("****").contains("app");
    }

    @Test
    void credentials_emptyPasswordOrUserWithWhitespace_rejected() {
        assertThatThrownBy(() -> RedisLockOptions.builder().credentials(Credentials.password("")))
                .hasMessageContaining("password must not be empty");
        assertThatThrownBy(() -> RedisLockOptions.builder().credentials(Credentials.of("a b", "pw")))
                .hasMessageContaining("user name must not contain whitespace");
    }

    @Test
    void tls_clientCertificateFiles_rejectedNamingTheOptionAndTheWayToDoIt() {
        TlsOptions mutual = TlsOptions.builder()
                .clientCertificate(Path.of("pom.xml"), Path.of("pom.xml"))
                .build();
        assertThatThrownBy(() -> RedisLockOptions.builder().tls(mutual))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientCertificate")
                .hasMessageContaining("sslContext");
    }
}
