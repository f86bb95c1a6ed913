package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A session backend's lock without renewal, whose try sends a preparatory request (a lease grant)
 * before the one that takes the lock: the engine counts the lock's own lease time from the
 * acquiring request the driver reports ({@link AcquireContext#acquiringRequestSent}), never from
 * earlier than the try, and a lock whose own lease time is already over when the try returns is
 * not handed out.
 */
class AcquiringRequestTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final ScriptedDriver driver = new ScriptedDriver(null);

    {
        driver.renewalMode = RenewalMode.SESSION;
        driver.deadline = () -> Deadlines.NEVER; // the session is kept alive
    }

    private LockEngine engine() {
        return LockEngine.create(driver, LockOptions.builder().ticker(now::get).build());
    }

    /** A try that prepares for {@code prepareMs}, then takes the lock with a request of {@code requestMs}. */
    private void tryTakes(long prepareMs, long requestMs, boolean report) {
        driver.answer.set(ctx -> {
            now.addAndGet(prepareMs * MS);
            if (report) {
                ctx.acquiringRequestSent(now.get());
            }
            now.addAndGet(requestMs * MS);
            return Optional.of(driver.held(ctx));
        });
    }

    /** Lock "x" with a 1 s lease time and no renewal, waiting at most {@code wait}. */
    private static Lease oneSecondLockWithoutRenewal(LockEngine engine, Duration wait) throws InterruptedException {
        return engine.lock("x")
                .withLeaseTime(Duration.ofSeconds(1))
                .withAutoRenew(false)
                .tryAcquire(wait)
                .orElseThrow();
    }

    @Test
    void reportedAcquiringRequest_ownLeaseTimeCountsFromIt() throws InterruptedException {
        tryTakes(300, 100, true);
        try (LockEngine engine = engine()) {
            Lease lease = oneSecondLockWithoutRenewal(engine, Duration.ZERO);
            // 1 s - margin (10 ms + 2 ms) - the acquiring request's 100 ms; the grant's 300 ms do not count
            assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(1_000 - 12 - 100));
        }
    }

    @Test
    void noReport_ownLeaseTimeCountsFromBeforeTheTry() throws InterruptedException {
        tryTakes(300, 100, false);
        try (LockEngine engine = engine()) {
            Lease lease = oneSecondLockWithoutRenewal(engine, Duration.ZERO);
            assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(1_000 - 12 - 400));
        }
    }

    @Test
    void reportFromAnEarlierTry_ignored() throws InterruptedException {
        AtomicInteger tries = new AtomicInteger();
        driver.answer.set(ctx -> {
            if (tries.incrementAndGet() == 1) {
                ctx.acquiringRequestSent(now.get()); // the first try's request; the lock was taken
                now.addAndGet(100 * MS);
                return Optional.empty();
            }
            now.addAndGet(200 * MS); // the second try takes it with its first request
            return Optional.of(driver.held(ctx));
        });
        try (LockEngine engine = engine()) {
            Lease lease = oneSecondLockWithoutRenewal(engine, Duration.ofSeconds(5));
            assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(1_000 - 12 - 200));
        }
    }

    @Test
    void ownLeaseTimeOverWhenTheTryReturns_givenBackNotHandedOut() {
        // a 10 ms lock (validity 10 ms - 2.1 ms) taken by a try that took 20 ms: the session would
        // keep the lock, but its own lease time is over
        tryTakes(0, 20, false);
        try (LockEngine engine = engine()) {
            assertThatThrownBy(() -> engine.lock("x")
                            .withLeaseTime(Duration.ofMillis(10))
                            .withAutoRenew(false)
                            .tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("no validity left");
            assertThat(driver.released).as("both late acquisitions given back").hasValue(2);
        }
    }
}
