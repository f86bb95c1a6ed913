package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * How the engine arms a lease: one task on the timer thread, which wakes neither engine thread per
 * acquisition, and a validity deadline moved earlier by the driver before the first renewal still
 * fires at once.
 */
class LeaseArmingTest {

    /** Grants every try; each held lock's deadline can be moved by the test. */
    private static final class GrantingDriver implements LockDriver {
        final AtomicInteger renewals = new AtomicInteger();
        final AtomicReference<Runnable> moveLastDeadline = new AtomicReference<>();

        @Override
        public String backend() {
            return "arming";
        }

        @Override
        public Capabilities capabilities() {
            return Capabilities.builder().automaticRenewal(true).build();
        }

        @Override
        public RenewalMode renewalMode() {
            return RenewalMode.WATCHDOG;
        }

        @Override
        public Contender contender(AcquireContext ctx) {
            return new Contender() {
                @Override
                public Optional<HeldLock> tryAcquire() {
                    long[] validUntil = {ctx.validUntil(ctx.ticker().read())};
                    moveLastDeadline.set(() -> {
                        validUntil[0] = ctx.ticker().read() + TimeUnit.MILLISECONDS.toNanos(100);
                        ctx.validityChanged();
                    });
                    return Optional.of(new HeldLock() {
                        @Override
                        public OptionalLong fencingToken() {
                            return OptionalLong.empty();
                        }

                        @Override
                        public synchronized long validUntilNanos() {
                            return validUntil[0];
                        }

                        @Override
                        public boolean renew() {
                            renewals.incrementAndGet();
                            return true;
                        }

                        @Override
                        public boolean release() {
                            return true;
                        }
                    });
                }

                @Override
                public void awaitChange(long deadlineNanos) {}
            };
        }

        @Override
        public void close() {}
    }

    @Test
    void acquireRelease_thousandsOfShortHolds_wakesNeitherEngineThreadPerAcquisition() {
        GrantingDriver driver = new GrantingDriver();
        LockEngine engine = LockEngine.create(
                driver, LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build());
        try {
            for (int i = 0; i < 5_000; i++) {
                engine.lock("short").tryAcquire().orElseThrow().release();
            }

            // expected: about one wake-up per 1,024 schedules (to drop cancelled tasks), not 5,000
            assertThat(engine.timer().wakeUps()).isLessThan(50);
            assertThat(engine.watchdog().wakeUps()).isZero();
            assertThat(driver.renewals).hasValue(0);
        } finally {
            engine.close();
        }
    }

    @Test
    void validityChanged_beforeTheFirstRenewal_leaseLostAtTheEarlierDeadline() throws Exception {
        GrantingDriver driver = new GrantingDriver();
        // first renewal due in 20 s: only the moved deadline can end this lease within the test
        LockEngine engine = LockEngine.create(
                driver, LockOptions.builder().leaseTime(Duration.ofSeconds(60)).build());
        try {
            Lease lease = engine.lock("moved").tryAcquire().orElseThrow();
            long moved = System.nanoTime();
            driver.moveLastDeadline.get().run();

            LeaseLostException cause = lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);

            assertThat(cause).hasMessageContaining("validity deadline passed");
            assertThat(Duration.ofNanos(System.nanoTime() - moved)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
            assertThat(driver.renewals).hasValue(0);
        } finally {
            engine.close();
        }
    }

    @Test
    void sessionDeadlineMovedLaterUnannounced_lossReportedAtTheNewDeadline() throws Exception {
        ScriptedDriver driver = new ScriptedDriver(null);
        driver.answer.set(ctx -> Optional.of(driver.held(ctx)));
        driver.renewalMode = RenewalMode.SESSION;
        AtomicLong validUntil = new AtomicLong(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));
        driver.deadline = validUntil::get;
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            long start = System.nanoTime();
            Lease lease = engine.lock("moved").tryAcquire().orElseThrow();
            // a keepalive moved the deadline later without telling the engine
            validUntil.set(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(900));

            assertThat(lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(LeaseLostException.class);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(850);
        }
    }
}
