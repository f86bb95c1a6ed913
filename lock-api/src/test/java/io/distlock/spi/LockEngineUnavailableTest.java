package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A transient outage ends a single try at once, but not a wait that has budget left. */
class LockEngineUnavailableTest {

    /** Fails the first {@code failures} attempts with BackendUnavailableException. */
    private static final class FlakyDriver implements LockDriver {
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger abandoned = new AtomicInteger();
        final int failures;

        FlakyDriver(int failures) {
            this.failures = failures;
        }

        @Override
        public String backend() {
            return "flaky";
        }

        @Override
        public Capabilities capabilities() {
            return Capabilities.builder().automaticRenewal(true).build();
        }

        @Override
        public RenewalMode renewalMode() {
            return RenewalMode.SESSION;
        }

        @Override
        public Contender contender(AcquireContext ctx) {
            return new Contender() {
                @Override
                public Optional<HeldLock> tryAcquire() {
                    if (attempts.incrementAndGet() <= failures) {
                        throw new BackendUnavailableException("connection refused", ctx.lockName(), "flaky", null);
                    }
                    long validUntil = ctx.validUntil(ctx.ticker().read());
                    return Optional.of(new HeldLock() {
                        @Override
                        public OptionalLong fencingToken() {
                            return OptionalLong.empty();
                        }

                        @Override
                        public long validUntilNanos() {
                            return validUntil;
                        }

                        @Override
                        public boolean release() {
                            return true;
                        }
                    });
                }

                @Override
                public void awaitChange(long deadlineNanos) {}

                @Override
                public void abandon() {
                    abandoned.incrementAndGet();
                }
            };
        }

        @Override
        public void close() {}
    }

    @Test
    void tryAcquire_noWait_throwsAtOnce() {
        FlakyDriver driver = new FlakyDriver(1);
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            assertThatThrownBy(() -> engine.lock("x").tryAcquire()).isInstanceOf(BackendUnavailableException.class);
            assertThat(driver.attempts).hasValue(1);
        }
    }

    @Test
    void tryAcquireWithWait_transientOutage_retriedWithBackoffAndAcquired() throws Exception {
        FlakyDriver driver = new FlakyDriver(3);
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            long t0 = System.nanoTime();
            assertThat(engine.lock("x").tryAcquire(Duration.ofSeconds(10))).isPresent();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(driver.attempts).hasValue(4);
            assertThat(driver.abandoned).as("each failed attempt cleaned up").hasValueGreaterThanOrEqualTo(3);
            // backoff 10, 20, 40 ms with jitter: a few tens of ms, far below the budget
            assertThat(ms).isGreaterThanOrEqualTo(10).isLessThan(2_000);
        }
    }

    @Test
    void tryAcquireWithWait_outageOutlastsBudget_throwsLastUnavailabilityAtDeadline() {
        FlakyDriver driver = new FlakyDriver(Integer.MAX_VALUE);
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> engine.lock("x").tryAcquire(Duration.ofMillis(300)))
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("connection refused");
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(ms).isGreaterThanOrEqualTo(250).isLessThan(1_500);
            assertThat(driver.attempts.get()).isBetween(2, 30);
        }
    }
}
