package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockObserver;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.ReentrantLockProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link LockProvider#heldLeases()} and {@link LockProvider#releaseAll()} on the in-JVM backend. */
class HeldLeasesTest {
    private final MemoryLockServer server = MemoryLockServer.create();

    private MemoryLockProvider client(LockOptions options) {
        return MemoryLockProvider.builder().server(server).options(options).build();
    }

    @Test
    void heldLeases_twoLocksHeld_listsNameTokenAcquiredAtAndValidUntil() {
        try (MemoryLockProvider a = client(LockOptions.defaults())) {
            Instant before = Instant.now();
            Lease x = a.lock("x").tryAcquire().orElseThrow();
            Lease y = a.lock("y").tryAcquire().orElseThrow();
            Instant after = Instant.now();

            assertThat(a.heldLeases()).containsExactlyInAnyOrder(x, y);
            for (Lease l : a.heldLeases()) {
                assertThat(l.fencingToken()).isPresent();
                assertThat(l.acquiredAt()).isBetween(before, after);
                assertThat(l.validUntil())
                        .isAfter(after)
                        .isBefore(Instant.now()
                                .plus(LockOptions.DEFAULT_LEASE_TIME)
                                .plusMillis(1));
            }
            y.release();
            assertThat(a.heldLeases()).containsExactly(x);
            assertThat(x.validUntil()).isAfter(Instant.now());
            x.release();
            assertThat(x.validUntil()).isBeforeOrEqualTo(Instant.now());
        }
    }

    @Test
    void releaseAll_someLeasesHeld_releasesThemAndCountsOnlyTheHeldOnes() {
        try (MemoryLockProvider a = client(LockOptions.defaults());
                MemoryLockProvider b = client(LockOptions.defaults())) {
            Lease x = a.lock("x").tryAcquire().orElseThrow();
            Lease y = a.lock("y").tryAcquire().orElseThrow();
            Lease other = b.lock("z").tryAcquire().orElseThrow();

            assertThat(a.releaseAll()).isEqualTo(2);

            assertThat(x.isValid()).isFalse();
            assertThat(y.release()).isFalse();
            assertThat(a.heldLeases()).isEmpty();
            assertThat(b.lock("x").tryAcquire()).isPresent();
            assertThat(other.isValid()).isTrue();
            assertThat(a.releaseAll()).isZero();
        }
    }

    @Test
    void releaseAll_reentrantDecorator_releasesTheOuterLeaseAndInvalidatesNestedOnes() throws Exception {
        try (LockProvider a = ReentrantLockProvider.wrap(client(LockOptions.defaults()));
                MemoryLockProvider b = client(LockOptions.defaults())) {
            Lease outer = a.lock("r").acquire();
            Lease nested = a.lock("r").acquire();
            assertThat(a.heldLeases()).hasSize(1);
            assertThat(nested.acquiredAt()).isEqualTo(outer.acquiredAt());

            assertThat(a.releaseAll()).isEqualTo(1);

            assertThat(outer.isValid()).isFalse();
            assertThat(nested.isValid()).isFalse();
            assertThat(b.lock("r").tryAcquire()).isPresent();
        }
    }

    @Test
    void releasedObserver_waiterThatAcquiredLater_holdTimeExcludesTheWait() throws Exception {
        AtomicLong now = new AtomicLong();
        CountDownLatch attemptStarted = new CountDownLatch(1);
        AtomicReference<Duration> heldFor = new AtomicReference<>();
        LockObserver observer = new LockObserver() {
            @Override
            public void attempt(String backend, String lockName, Duration maxWait) {
                attemptStarted.countDown();
            }

            @Override
            public void released(String backend, String lockName, Duration held, boolean wasValid) {
                heldFor.set(held);
            }
        };
        try (MemoryLockProvider a = client(LockOptions.defaults());
                MemoryLockProvider b = client(LockOptions.builder()
                        .observer(observer)
                        .ticker(now::get)
                        .build())) {
            Lease first = a.lock("w").tryAcquire().orElseThrow();
            CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock("w").tryAcquire(Duration.ofMinutes(5)).orElseThrow();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(attemptStarted.await(10, TimeUnit.SECONDS)).isTrue();
            now.addAndGet(Duration.ofSeconds(20).toNanos()); // the waiter waited 20 s on its ticker
            first.release();
            Lease second = waiter.get(10, TimeUnit.SECONDS);
            second.release();

            assertThat(heldFor.get()).isLessThan(Duration.ofSeconds(20));
        }
    }
}
