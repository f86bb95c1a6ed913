package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A reply that arrives after the lease's validity is neither a lease nor "held elsewhere". */
class LockEngineLateReplyTest {

    /** A driver whose first {@code slowReplies} acquisitions come back with no validity left. */
    private static final class SlowDriver implements LockDriver {
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();
        final int slowReplies;

        SlowDriver(int slowReplies) {
            this.slowReplies = slowReplies;
        }

        @Override
        public String backend() {
            return "slow";
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
                    boolean late = attempts.incrementAndGet() <= slowReplies;
                    long validUntil = late
                            ? ctx.ticker().read() - 1
                            : ctx.validUntil(ctx.ticker().read());
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
                            releases.incrementAndGet();
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
    void tryAcquire_oneLateReply_retriesAtOnceAndAcquires() {
        SlowDriver driver = new SlowDriver(1);
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            assertThat(engine.lock("x").tryAcquire()).isPresent();
            assertThat(driver.attempts).hasValue(2);
            assertThat(driver.releases)
                    .as("the late acquisition was given back")
                    .hasValue(1);
        }
    }

    @Test
    void tryAcquire_persistentlyLateReplies_throwBackendUnavailableNotEmpty() {
        SlowDriver driver = new SlowDriver(Integer.MAX_VALUE);
        try (LockEngine engine = LockEngine.create(
                driver, LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build())) {
            assertThatThrownBy(() -> engine.lock("x").tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("answered too slowly")
                    .hasMessageContaining("lock 'x', backend slow");
            assertThat(driver.releases).hasValue(2);
        }
    }

    @Test
    void tryAcquire_persistentlyLateRepliesOnAHandleWithItsOwnLeaseTime_nameThatLeaseTime() {
        SlowDriver driver = new SlowDriver(Integer.MAX_VALUE);
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            assertThatThrownBy(() -> engine.lock("x")
                            .withLeaseTime(Duration.ofMillis(10))
                            .tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("(lease PT0.01S, safety margin PT0.0021S)");
        }
    }
}
