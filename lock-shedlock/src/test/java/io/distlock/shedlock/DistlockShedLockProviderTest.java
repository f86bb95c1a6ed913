package io.distlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How ShedLock's settings map to distlock's lease control, on the in-JVM backend (which keeps lease
 * times on its server): lease time, delayed release, owner-checked extension, the lease bound to the
 * locked task, and the errors.
 */
class DistlockShedLockProviderTest {
    private final MemoryLockServer server = MemoryLockServer.create();
    private final LockProvider locks =
            MemoryLockProvider.builder().server(server).build();
    private final LockProvider otherInstance =
            MemoryLockProvider.builder().server(server).build();
    private final DistlockShedLockProvider shedLock = DistlockShedLockProvider.create(locks);
    private final String name = "job-" + UUID.randomUUID();

    @AfterEach
    void close() {
        locks.close();
        otherInstance.close();
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
    }

    private boolean otherInstanceCanTake() {
        Optional<Lease> lease = otherInstance.lock(name).tryAcquire();
        lease.ifPresent(Lease::release);
        return lease.isPresent();
    }

    @Test
    void lock_lockAtMostFor_isTheLeaseTimeWithoutRenewal() {
        long start = System.nanoTime();
        SimpleLock lock = shedLock.lock(config(name, Duration.ofMillis(400), Duration.ZERO))
                .orElseThrow();
        Lease lease = locks.heldLeases().get(0);
        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(400));
        assertThat(otherInstanceCanTake()).isFalse();

        await().atMost(Duration.ofSeconds(2)).until(this::otherInstanceCanTake);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(lease.isValid()).isFalse();
        lock.unlock(); // the lease was lost: nothing to free, nothing thrown
    }

    @Test
    void unlock_beforeLockAtLeastFor_keepsTheLockUntilThen() {
        long start = System.nanoTime();
        SimpleLock lock = shedLock.lock(config(name, Duration.ofSeconds(10), Duration.ofMillis(600)))
                .orElseThrow();
        lock.unlock();

        assertThat(locks.heldLeases()).isEmpty();
        assertThat(otherInstanceCanTake()).isFalse();
        await().atMost(Duration.ofSeconds(3)).until(this::otherInstanceCanTake);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(600));
    }

    @Test
    void unlock_afterLockAtLeastFor_freesAtOnce() throws InterruptedException {
        SimpleLock lock = shedLock.lock(config(name, Duration.ofSeconds(10), Duration.ofMillis(50)))
                .orElseThrow();
        Thread.sleep(100); // past lockAtLeastFor
        lock.unlock();
        assertThat(otherInstanceCanTake()).isTrue();
    }

    @Test
    void lock_heldByOtherInstance_returnsEmpty() {
        Lease other = otherInstance.lock(name).tryAcquire().orElseThrow();
        assertThat(shedLock.lock(config(name, Duration.ofSeconds(10), Duration.ZERO)))
                .isEmpty();
        other.release();
    }

    @Test
    void extend_beforeExpiry_movesTheLeaseAndKeepsTheToken() {
        SimpleLock lock = shedLock.lock(config(name, Duration.ofMillis(300), Duration.ZERO))
                .orElseThrow();
        Lease lease = locks.heldLeases().get(0);
        long token = lease.fencingToken().getAsLong();

        SimpleLock extended = lock.extend(Duration.ofSeconds(10), Duration.ZERO).orElseThrow();

        assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(9));
        assertThat(locks.heldLeases())
                .extracting(l -> l.fencingToken().getAsLong())
                .containsExactly(token);
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already extended");
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
        extended.unlock();
        assertThat(otherInstanceCanTake()).isTrue();
    }

    @Test
    void extend_afterLockAtMostForBelowTheMinimumLease_returnsEmptyAndFreesTheLock() throws InterruptedException {
        SimpleLock lock =
                shedLock.lock(config(name, Duration.ofMillis(2), Duration.ZERO)).orElseThrow();
        Thread.sleep(4); // past lockAtMostFor, within the 10 ms the backend holds it

        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThat(otherInstanceCanTake()).isTrue();
        lock.unlock(); // the failed extension already freed it: a no-op, as for an expired lock
    }

    @Test
    void extend_afterTheLockWasTakenByAnotherInstance_returnsEmpty() {
        SimpleLock lock = shedLock.lock(config(name, Duration.ofMillis(100), Duration.ZERO))
                .orElseThrow();
        await().atMost(Duration.ofSeconds(2)).until(this::otherInstanceCanTake);
        Lease other = otherInstance.lock(name).tryAcquire().orElseThrow();

        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThat(other.isValid()).isTrue();
        other.release();
    }

    @Test
    void extend_badArguments_throwNamingThem() {
        SimpleLock lock = shedLock.lock(config(name, Duration.ofSeconds(1), Duration.ZERO))
                .orElseThrow();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor");
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(-1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor");
        lock.unlock();
    }

    @Test
    void unlock_twice_throws() {
        SimpleLock lock = shedLock.lock(config(name, Duration.ofSeconds(1), Duration.ZERO))
                .orElseThrow();
        lock.unlock();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already unlocked");
    }

    @Test
    void currentToken_insideTheLockedTask_isTheLeasesToken_andIncreasesFromHolderToHolder() {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(shedLock);
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            executor.executeWithLock(
                    (Runnable) () -> {
                        assertThat(DistlockLockAssert.currentLease().lockName()).isEqualTo(name);
                        tokens.add(DistlockLockAssert.currentToken());
                    },
                    config(name, Duration.ofSeconds(10), Duration.ZERO));
        }
        assertThat(tokens).hasSize(3).isSorted().doesNotHaveDuplicates();
        assertThatThrownBy(DistlockLockAssert::currentToken)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds no lock");
    }

    @Test
    void currentLease_nestedLocks_isTheInnermost_andLockExtenderKeepsIt() {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(shedLock);
        AtomicReference<String> inner = new AtomicReference<>();
        AtomicReference<String> outerAfter = new AtomicReference<>();
        executor.executeWithLock(
                (Runnable) () -> {
                    executor.executeWithLock(
                            (Runnable) () -> {
                                LockExtender.extendActiveLock(Duration.ofSeconds(20), Duration.ZERO);
                                inner.set(DistlockLockAssert.currentLease().lockName());
                            },
                            config(name + "-inner", Duration.ofSeconds(10), Duration.ZERO));
                    outerAfter.set(DistlockLockAssert.currentLease().lockName());
                },
                config(name, Duration.ofSeconds(10), Duration.ZERO));
        assertThat(inner).hasValue(name + "-inner");
        assertThat(outerAfter).hasValue(name);
        assertThat(locks.heldLeases()).isEmpty();
    }

    @Test
    void lock_lockAtMostForBeyondTheLongestLease_throwsNamingIt() {
        assertThatThrownBy(() -> shedLock.lock(config(name, Duration.ofDays(8), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor PT192H")
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining("backend mem")
                .hasMessageContaining("leaseTime must be between");
    }

    @Test
    void readme_withoutSpring_executorRunsTheTaskUnderTheLock() {
        List<Long> ran = new ArrayList<>();
        Runnable runReport = () -> ran.add(DistlockLockAssert.currentToken());
        // README-BEGIN shedlock-executor
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(DistlockShedLockProvider.create(locks));
        executor.executeWithLock(
                runReport,
                new LockConfiguration(Instant.now(), "report", Duration.ofMinutes(10), Duration.ofSeconds(30)));
        // README-END
        assertThat(ran).singleElement().satisfies(token -> assertThat(token).isPositive());
        assertThat(otherInstance.lock("report").tryAcquire())
                .as("held for lockAtLeastFor")
                .isEmpty();
    }

    @Test
    void lock_invalidName_throwsTheNameRule() {
        assertThatThrownBy(() -> shedLock.lock(config("bad\nname", Duration.ofSeconds(1), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock name must not contain control characters");
    }
}
