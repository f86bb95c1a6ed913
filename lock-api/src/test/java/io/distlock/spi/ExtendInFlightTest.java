package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An extension whose server answered "extended" while the lease was lost meanwhile (the driver
 * reported the loss during the request): {@code extend} must not return as if the lease were held.
 */
class ExtendInFlightTest {

    @Test
    void extend_leaseLostWhileTheRequestWasInFlight_throwsLeaseLost() {
        ScriptedDriver driver = new ScriptedDriver(null);
        driver.answer.set(ctx -> Optional.of(driver.held(ctx)));
        driver.extendAnswer = ctx -> {
            ctx.reportLost("session expired during the extension", null);
            return true;
        };
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            Lease lease = engine.lock("in-flight").tryAcquire().orElseThrow();

            assertThatThrownBy(() -> lease.extend(Duration.ofMinutes(1)))
                    .isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("session expired during the extension");
            assertThat(lease.isValid()).isFalse();
            assertThat(lease.lockName()).isEqualTo("in-flight");
        }
    }
}
