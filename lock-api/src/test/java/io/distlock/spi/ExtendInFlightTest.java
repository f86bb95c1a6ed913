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
 * Requests in flight: an extension whose server answered "extended" while the lease was lost
 * meanwhile (the driver reported the loss during the request) must not return as if the lease were
 * held; a release that finds the engine's own release of the lock in flight and is interrupted while
 * it waits for it keeps the interrupt.
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

    @Test
    void release_engineReleaseInFlight_interruptedWhileWaitingForIt_keepsTheInterrupt() throws Exception {
        java.util.concurrent.CountDownLatch releasing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        ScriptedDriver driver = new ScriptedDriver(null);
        driver.answer.set(ctx -> Optional.of(driver.held(ctx)));
        LockOptions options =
                LockOptions.builder().maxHoldTime(Duration.ofMillis(50)).build();
        try (LockEngine engine = LockEngine.create(driver, options)) {
            driver.onRenewOrRelease = () -> {
                releasing.countDown();
                try {
                    gate.await(); // the engine's release of the capped lease hangs in the network
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            Lease lease = engine.lock("capped").tryAcquire().orElseThrow();
            assertThat(releasing.await(5, java.util.concurrent.TimeUnit.SECONDS))
                    .isTrue();

            Thread.currentThread().interrupt();
            try {
                assertThat(lease.release()).isFalse();
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
                gate.countDown();
            }
        }
    }
}
