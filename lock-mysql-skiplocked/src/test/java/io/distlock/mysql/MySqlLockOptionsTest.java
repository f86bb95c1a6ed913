package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class MySqlLockOptionsTest {

    @Test
    void defaults_areDocumentedValues() {
        MySqlLockOptions o = MySqlLockOptions.defaults();
        assertThat(o.table()).isEqualTo("distlock_locks");
        assertThat(o.tokenTable()).isEqualTo("distlock_locks_token");
        assertThat(o.poolSize()).isEqualTo(MySqlLockOptions.DEFAULT_POOL_SIZE);
        assertThat(o.createSchema()).isFalse();
        assertThat(o.waitTimeoutSeconds()).isEqualTo(30);
    }

    @Test
    void table_unsafeIdentifier_rejectedNamingTheRule() {
        assertThatThrownBy(() -> MySqlLockOptions.builder().table("locks; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table must match");
        assertThatThrownBy(() -> MySqlLockOptions.builder().table("a".repeat(59)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(MySqlLockOptions.builder().table("a".repeat(58)).build().tokenTable())
                .hasSize(64);
    }

    @Test
    void poolSizeAndTimeout_outOfRange_rejected() {
        assertThatThrownBy(() -> MySqlLockOptions.builder().poolSize(0)).hasMessageContaining("poolSize");
        assertThatThrownBy(() -> MySqlLockOptions.builder().connectionTimeout(Duration.ofMillis(10)))
                .hasMessageContaining("connectionTimeout");
    }

    @Test
    void waitTimeoutSeconds_roundsLeaseUpToWholeSecondsAtLeastOne() {
        assertThat(MySqlLockOptions.builder()
                        .leaseTime(Duration.ofMillis(300))
                        .build()
                        .waitTimeoutSeconds())
                .isEqualTo(1);
        assertThat(MySqlLockOptions.builder()
                        .leaseTime(Duration.ofMillis(2001))
                        .build()
                        .waitTimeoutSeconds())
                .isEqualTo(3);
        assertThat(MySqlLockOptions.builder()
                        .leaseTime(Duration.ofSeconds(2))
                        .build()
                        .waitTimeoutSeconds())
                .isEqualTo(2);
    }

    @Test
    void mutate_keepsValuesAndBuilderToStringHidesPassword() {
        MySqlLockOptions o = MySqlLockOptions.builder().table("t1").poolSize(3).build();
        assertThat(o.mutate().build().toString()).isEqualTo(o.toString());
        assertThat(MySqlLockProvider.builder()
                        .jdbcUrl("jdbc:mysql://h/db?password=hunter2")
                        .password("hunter2")
                        .toString())
                .doesNotContain("hunter2");
    }
}
