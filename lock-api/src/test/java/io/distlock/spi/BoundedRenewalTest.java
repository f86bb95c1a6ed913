package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockObserver;
import io.distlock.LockOptions;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link LockOptions#maxRenewals()}: a lease ends, and reports the loss, when its renewal cap is reached. */
class BoundedRenewalTest {
    // renewed every 200 ms: a renewal late by a loaded scheduler still lands well inside the lease
    private static final Duration LEASE = Duration.ofMillis(600);

    private final MemoryLockServer server = MemoryLockServer.create();
    private final AtomicInteger renewals = new AtomicInteger();

    private MemoryLockProvider client(LockOptions.Builder options) {
        return MemoryLockProvider.builder()
                .server(server)
                .options(options.leaseTime(LEASE)
                        .observer(new LockObserver() {
                            @Override
                            public void renewed(String backend, String lockName) {
                                renewals.incrementAndGet();
                            }
                        })
                        .build())
                .build();
    }

    @Test
    void maxRenewals_watchdogBackend_leaseEndsAfterExactlyThatManyRenewals() throws Exception {
        try (MemoryLockProvider a = client(LockOptions.builder().maxRenewals(3));
                MemoryLockProvider b = client(LockOptions.builder())) {
            Lease lease = a.lock("capped").tryAcquire().orElseThrow();

            LeaseLostException cause = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

            assertThat(cause).hasMessageContaining("maximum number of renewals (3) reached");
            assertThat(renewals).hasValue(3);
            assertThat(lease.isValid()).isFalse();
            assertThatThrownBy(lease::checkValid)
                    .isInstanceOf(LeaseLostException.class)
                    .hasMessageContaining("maximum number of renewals (3) reached");
            // the lock is deleted on the server at once, not left to expire
            await().atMost(Duration.ofSeconds(2))
                    .until(() -> server.owner("capped").isEmpty());
            assertThat(b.lock("capped").tryAcquire()).isPresent();
            assertThat(lease.release()).as("release after the cap").isFalse();
        }
    }

    @Test
    void maxRenewals_zero_leaseEndsWhenTheFirstRenewalIsDue() throws Exception {
        try (MemoryLockProvider a = client(LockOptions.builder().maxRenewals(0))) {
            long start = System.nanoTime();
            Lease lease = a.lock("no-renewal").tryAcquire().orElseThrow();

            LeaseLostException cause = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

            assertThat(cause).hasMessageContaining("maximum number of renewals (0) reached");
            assertThat(renewals).hasValue(0);
            // due after leaseTime / 3, well before the lease itself would have run out
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(LEASE.dividedBy(3));
        }
    }

    @Test
    void maxRenewals_unset_leaseRenewedPastTheCapItWouldHaveHad() throws Exception {
        try (MemoryLockProvider a = client(LockOptions.builder().maxRenewals(2).unlimitedRenewals())) {
            Lease lease = a.lock("uncapped").tryAcquire().orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> renewals.get() >= 5);
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void maxRenewals_sessionBackend_leaseEndsWhereTheCapFalls() throws Exception {
        LockOptions options =
                LockOptions.builder().leaseTime(LEASE).maxRenewals(2).build();
        try (LockEngine engine = LockEngine.create(new SessionDriver(), options)) {
            long start = System.nanoTime();
            Lease lease = engine.lock("session").tryAcquire().orElseThrow();

            LeaseLostException cause = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

            assertThat(cause).hasMessageContaining("maximum number of renewals (2) reached");
            // (2 + 1) renewal intervals of 200 ms after the acquisition
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
            assertThat(engine.heldLeases()).containsExactly(lease); // lost, not yet released by its owner
            assertThat(lease.release()).isFalse();
            assertThat(engine.heldLeases()).isEmpty();
        }
    }

    @Test
    void maxRenewals_negative_rejectedNamingTheArgument() {
        assertThatThrownBy(() -> LockOptions.builder().maxRenewals(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxRenewals");
        LockOptions capped = LockOptions.builder().maxRenewals(4).build();
        assertThat(capped.maxRenewals()).hasValue(4);
        assertThat(capped.mutate().build().maxRenewals()).hasValue(4);
        assertThat(capped.mutate().unlimitedRenewals().build().maxRenewals()).isEmpty();
        assertThat(LockOptions.defaults().maxRenewals()).isEmpty();
        assertThat(capped.toString()).contains("maxRenewals=4");
    }

    @Test
    void maxRenewals_uriParameter_appliedToTheOptions() {
        UriParameters params = UriParameters.of(java.net.URI.create("mem://local?maxRenewals=7"), "mem");
        assertThat(params.lockOptions(LockOptions.defaults()).maxRenewals()).hasValue(7);
    }

    /** A driver whose leases are kept alive by a "session": always granted, valid for an hour. */
    private static final class SessionDriver implements LockDriver {
        @Override
        public String backend() {
            return "session-test";
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
                    long validUntil = Deadlines.after(ctx.ticker().read(), Duration.ofHours(1));
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
            };
        }

        @Override
        public void close() {}
    }
}
