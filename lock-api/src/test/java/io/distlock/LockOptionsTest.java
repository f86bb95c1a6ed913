package io.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockOptionsTest {

    @Test
    void defaults_areDocumentedValues() {
        LockOptions o = LockOptions.defaults();
        assertThat(o.leaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.autoRenew()).isTrue();
        assertThat(o.safetyMargin()).isEqualTo(Duration.ofMillis(302));
        assertThat(o.maxHoldTime()).isEmpty();
    }

    @Test
    void leaseTime_outOfRange_rejectedNamingArgument() {
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ofMillis(9)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime must be between");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ofDays(8)))
                .hasMessageContaining("leaseTime")
                .hasMessageContaining("PT192H");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(Duration.ofSeconds(-1)))
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> LockOptions.builder().leaseTime(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("leaseTime");
    }

    @Test
    void otherSettings_outOfRange_rejected() {
        assertThatThrownBy(() -> LockOptions.builder().renewalFraction(0)).hasMessageContaining("renewalFraction");
        assertThatThrownBy(() -> LockOptions.builder().renewalFraction(Double.NaN))
                .hasMessageContaining("renewalFraction");
        assertThatThrownBy(() -> LockOptions.builder().clockDriftFactor(0.5)).hasMessageContaining("clockDriftFactor");
        assertThatThrownBy(() -> LockOptions.builder().minimumSafetyMargin(Duration.ofMillis(-1)))
                .hasMessageContaining("minimumSafetyMargin");
        assertThatThrownBy(() -> LockOptions.builder().maxHoldTime(Duration.ZERO))
                .hasMessageContaining("maxHoldTime");
        assertThatThrownBy(() -> LockOptions.builder()
                        .leaseTime(Duration.ofMillis(10))
                        .minimumSafetyMargin(Duration.ofMillis(10))
                        .build())
                .hasMessageContaining("safety margin");
    }

    @Test
    void mutate_keepsValuesAndChangesOne() {
        LockOptions a = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(5))
                .autoRenew(false)
                .build();
        LockOptions b = a.mutate().maxHoldTime(Duration.ofMinutes(1)).build();
        assertThat(b.leaseTime()).isEqualTo(Duration.ofSeconds(5));
        assertThat(b.autoRenew()).isFalse();
        assertThat(b.maxHoldTime()).contains(Duration.ofMinutes(1));
        assertThat(a.maxHoldTime()).isEmpty();
    }
}
