package io.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockProvider;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The registry's {@link Lock} semantics on the in-JVM backend: reentrancy per thread, waits, owner-only
 * unlock, the lease and its token, a lost lease seen by the holder, renewal, expiry of cached locks.
 * Two providers on one in-JVM server stand for two processes.
 */
class DistlockLockRegistryTest {
    private final MemoryLockServer server = MemoryLockServer.create();
    private final LockProvider locks =
            MemoryLockProvider.builder().server(server).build();
    private final LockProvider otherProcess =
            MemoryLockProvider.builder().server(server).build();
    private final DistlockLockRegistry registry = DistlockLockRegistry.create(locks);
    private final DistlockLockRegistry otherRegistry = DistlockLockRegistry.create(otherProcess);
    private final String key = "orders-" + UUID.randomUUID();

    @AfterEach
    void close() {
        locks.close();
        otherProcess.close();
    }

    private static <T> T onOtherThread(java.util.concurrent.Callable<T> task) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        t.start();
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    @Test
    void obtain_sameKey_sameLock_andRejectsOtherKeys() {
        assertThat(registry.obtain(key)).isSameAs(registry.obtain(key));
        assertThatThrownBy(() -> registry.obtain(42))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockKey must be a String (was java.lang.Integer)");
        assertThatThrownBy(() -> registry.obtain(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock name must not be blank");
    }

    @Test
    void lock_isReentrantPerThread_andExclusiveAcrossThreadsAndProcesses() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lock();
        assertThat(lock.tryLock()).isTrue(); // reentrant: no backend request, no wait
        boolean otherThreadGotIt = onOtherThread(lock::tryLock);
        assertThat(otherThreadGotIt).isFalse();
        assertThat(otherRegistry.obtain(key).tryLock()).isFalse();

        lock.unlock();
        assertThat(registry.lease(key)).isPresent();
        assertThat(otherRegistry.obtain(key).tryLock()).isFalse();

        lock.unlock();
        assertThat(registry.lease(key)).isEmpty();
        Lock other = otherRegistry.obtain(key);
        assertThat(other.tryLock()).isTrue();
        other.unlock();
    }

    @Test
    void tryLock_withWait_getsTheLockWhenTheOtherProcessReleasesIt() throws Exception {
        Lock other = otherRegistry.obtain(key);
        other.lock();
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(() -> {
            waiting.countDown();
            try {
                boolean got = registry.obtain(key).tryLock(10, TimeUnit.SECONDS);
                registry.obtain(key).unlock();
                return got;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        waiting.await();
        assertThat(acquired).isNotDone();
        other.unlock();
        assertThat(acquired.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void tryLock_waitRunsOut_returnsFalseAndHoldsNothing() throws Exception {
        Lock other = otherRegistry.obtain(key);
        other.lock();
        long start = System.nanoTime();
        assertThat(registry.obtain(key).tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(locks.heldLeases()).isEmpty();
        assertThatThrownBy(() -> registry.executeLocked(key, Duration.ofMillis(50), () -> {}))
                .isInstanceOf(TimeoutException.class);
        other.unlock();
    }

    @Test
    void lockInterruptibly_interrupted_throwsAndHoldsNothing() throws Exception {
        Lock other = otherRegistry.obtain(key);
        other.lock();
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            waiter.set(Thread.currentThread());
            try {
                registry.obtain(key).lockInterruptibly();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> t.getState() == Thread.State.TIMED_WAITING || t.getState() == Thread.State.WAITING);
        t.interrupt();
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(locks.heldLeases()).isEmpty();
        other.unlock();
        assertThat(registry.obtain(key).tryLock()).isTrue();
        registry.obtain(key).unlock();
    }

    @Test
    void unlock_byAnotherThread_throwsIllegalMonitorState() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lock();
        assertThatThrownBy(() -> onOtherThread(() -> {
                    lock.unlock();
                    return null;
                }))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(key);
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void lease_whileHeld_givesTheTokenOfThisHold_fromAnyThread() throws Exception {
        registry.executeLocked(key, () -> {
            Lease lease = registry.lease(key).orElseThrow();
            assertThat(lease.isValid()).isTrue();
            assertThat(onOtherThread(() -> registry.lease(key).orElseThrow())).isSameAs(lease);
        });
        long first = tokenOfAHold(registry);
        long second = tokenOfAHold(otherRegistry);
        assertThat(second).isGreaterThan(first);
        assertThat(registry.lease(key)).isEmpty();
    }

    private long tokenOfAHold(DistlockLockRegistry r) throws InterruptedException {
        return r.executeLocked(
                key, () -> r.lease(key).orElseThrow().fencingToken().getAsLong());
    }

    private DistlockLockRegistry withoutRenewal(Duration leaseTime) {
        return DistlockLockRegistry.builder(locks)
                .leaseTime(leaseTime)
                .autoRenew(false)
                .build();
    }

    @Test
    void lostLease_relockByTheHolder_throwsLeaseLost_andUnlockSaysItWasLost() {
        DistlockLockRegistry expiring = withoutRenewal(Duration.ofMillis(200));
        Lock lock = expiring.obtain(key);
        lock.lock();
        Lease lease = expiring.lease(key).orElseThrow();
        await().atMost(Duration.ofSeconds(3)).until(() -> !lease.isValid());
        assertThat(otherRegistry.obtain(key).tryLock()).isTrue(); // another process takes it over

        assertThatThrownBy(lock::tryLock)
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("unlock it before locking it again");
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("may have overlapped");
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        otherRegistry.obtain(key).unlock();
    }

    @Test
    void renewLock_extendsTheHoldersLease_ownerOnly() throws Exception {
        DistlockLockRegistry expiring = withoutRenewal(Duration.ofMillis(300));
        Lock lock = expiring.obtain(key);
        lock.lock();
        Lease lease = expiring.lease(key).orElseThrow();
        expiring.renewLock(key, Duration.ofSeconds(10));
        assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(9));
        expiring.renewLock(key); // by the last ttl
        assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(9));
        assertThatThrownBy(() -> onOtherThread(() -> {
                    expiring.renewLock(key);
                    return null;
                }))
                .isInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
        assertThatThrownBy(() -> expiring.renewLock(key)).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void renewLock_withoutAKnownLeaseTime_saysHowToGiveOne() {
        Lock lock = registry.obtain(key);
        lock.lock();
        assertThatThrownBy(() -> registry.renewLock(key))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("renewLock(lockKey, ttl)");
        lock.unlock();
    }

    @Test
    void lockWithTtl_isTheLeaseTimeOfThatHold() {
        DistlockLockRegistry noRenewal =
                DistlockLockRegistry.builder(locks).autoRenew(false).build();
        DistributedLock lock = noRenewal.obtain(key);
        lock.lock(Duration.ofMillis(300));
        Lease lease = noRenewal.lease(key).orElseThrow();
        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(300));
        noRenewal.renewLock(key); // by the ttl of the hold
        assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofMillis(200));
        lock.unlock();
    }

    @Test
    void expireUnusedOlderThan_dropsOnlyLocksNobodyHolds() {
        Lock held = registry.obtain(key);
        Lock idle = registry.obtain(key + "-idle");
        held.lock();
        registry.expireUnusedOlderThan(0);
        assertThat(registry.obtain(key)).isSameAs(held);
        assertThat(registry.obtain(key + "-idle")).isNotSameAs(idle);
        held.unlock();
    }

    @Test
    void builder_leaseTimeOutOfBounds_throwsNamingIt() {
        assertThatThrownBy(() -> DistlockLockRegistry.builder(locks).leaseTime(Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime must be between");
    }

    @Test
    void leaderInitiator_twoCandidates_oneLeads_stoppingItElectsTheOther() {
        LockRegistryLeaderInitiator a = initiator(registry, "a");
        LockRegistryLeaderInitiator b = initiator(otherRegistry, "b");
        try {
            a.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> a.getContext().isLeader());
            b.start();
            long tokenA = registry.lease(key).orElseThrow().fencingToken().getAsLong();
            await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> !b.getContext().isLeader());

            a.stop();
            await().atMost(Duration.ofSeconds(5)).until(() -> b.getContext().isLeader());
            assertThat(a.getContext().isLeader()).isFalse();
            assertThat(otherRegistry.lease(key).orElseThrow().fencingToken().getAsLong())
                    .isGreaterThan(tokenA);
        } finally {
            a.stop();
            b.stop();
        }
    }

    private LockRegistryLeaderInitiator initiator(DistlockLockRegistry r, String id) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
                r, new org.springframework.integration.leader.DefaultCandidate(id, key));
        initiator.setHeartBeatMillis(100);
        initiator.setLeaderEventPublisher(new org.springframework.integration.leader.event.LeaderEventPublisher() {
            @Override
            public void publishOnGranted(
                    Object source, org.springframework.integration.leader.Context c, String role) {}

            @Override
            public void publishOnRevoked(
                    Object source, org.springframework.integration.leader.Context c, String role) {}

            @Override
            public void publishOnFailedToAcquire(
                    Object source, org.springframework.integration.leader.Context c, String role) {}
        });
        return initiator;
    }
}
