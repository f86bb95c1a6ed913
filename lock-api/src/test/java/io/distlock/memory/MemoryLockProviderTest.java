package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockObserver;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockTimeoutException;
import io.distlock.ReentrantLockProvider;
import io.distlock.spi.FaultHooks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MemoryLockProviderTest {
    private final MemoryLockServer server = MemoryLockServer.create();
    private final List<MemoryLockProvider> clients = new ArrayList<>();

    private MemoryLockProvider client(LockOptions options) {
        MemoryLockProvider p =
                MemoryLockProvider.builder().server(server).options(options).build();
        clients.add(p);
        return p;
    }

    private MemoryLockProvider client() {
        return client(LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build());
    }

    @AfterEach
    void closeClients() {
        clients.forEach(MemoryLockProvider::close);
    }

    @Test
    void tryAcquire_heldByOtherClient_returnsEmptyThenSucceedsAfterRelease() {
        MemoryLockProvider a = client();
        MemoryLockProvider b = client();
        Lease lease = a.lock("job").tryAcquire().orElseThrow();
        assertThat(b.lock("job").tryAcquire()).isEmpty();
        assertThat(lease.release()).isTrue();
        assertThat(lease.release()).as("second release").isFalse();
        assertThat(b.lock("job").tryAcquire()).isPresent();
    }

    @Test
    void tokens_increaseAcrossHoldersAndLocks() {
        MemoryLockProvider a = client();
        long t1 = a.lock("x").tryAcquire().orElseThrow().fencingToken().getAsLong();
        a.heldLeases().forEach(Lease::release);
        long t2 = a.lock("y").tryAcquire().orElseThrow().fencingToken().getAsLong();
        a.heldLeases().forEach(Lease::release);
        long t3 = a.lock("x").tryAcquire().orElseThrow().fencingToken().getAsLong();
        assertThat(t2).isGreaterThan(t1);
        assertThat(t3).isGreaterThan(t2);
        assertThat(a.capabilities().fencing()).isEqualTo(Capabilities.Fencing.GLOBALLY_MONOTONIC);
    }

    @Test
    void tryAcquireWithWait_wokenByRelease_notByTimeout() throws Exception {
        MemoryLockProvider a =
                client(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build());
        MemoryLockProvider b = client();
        Lease held = a.lock("h").acquire();
        CompletableFuture<Long> waitedMs = CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            try {
                Optional<Lease> l = b.lock("h").tryAcquire(Duration.ofSeconds(20));
                l.orElseThrow().release();
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> server.requests() >= 3); // waiter has tried once
        held.release();
        // far below both the holder's 30 s lease and the waiter's 20 s budget
        assertThat(waitedMs.get(10, TimeUnit.SECONDS)).isLessThan(5_000);
    }

    @Test
    void tryAcquireWithWait_timesOut_returnsEmptyAfterBudget() throws Exception {
        MemoryLockProvider a = client();
        MemoryLockProvider b = client();
        a.lock("t").acquire();
        long start = System.nanoTime();
        assertThat(b.lock("t").tryAcquire(Duration.ofMillis(300))).isEmpty();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(ms).isGreaterThanOrEqualTo(300).isLessThan(1_500);
        assertThat(server.trackedLocks()).as("waiter left nothing behind").isEqualTo(1);
    }

    @Test
    void durations_badValues_haveDefinedOutcomes() throws Exception {
        MemoryLockProvider a = client();
        assertThatThrownBy(() -> a.lock("d").tryAcquire(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("maxWait");
        assertThatThrownBy(() -> a.lock("d").tryAcquire(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWait must not be negative");
        assertThat(a.lock("d").tryAcquire(Duration.ZERO)).isPresent();
        assertThat(client().lock("e").tryAcquire(Duration.ofSeconds(Long.MAX_VALUE)))
                .isPresent();
    }

    @Test
    void renewal_keepsLeaseBeyondSeveralLeaseTimes() {
        // renewed every 200 ms: a renewal that a loaded machine runs 300 ms late still lands inside
        // the lease, so only a renewal that does not happen loses it
        MemoryLockProvider a =
                client(LockOptions.builder().leaseTime(Duration.ofMillis(600)).build());
        MemoryLockProvider b = client();
        Lease lease = a.lock("r").tryAcquire().orElseThrow();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2_000);
        await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - until > 0);
        assertThat(lease.isValid()).isTrue();
        assertThat(b.lock("r").tryAcquire()).isEmpty();
    }

    @Test
    void noRenewal_leaseLostAtDeadline_andOthersAcquire() throws Exception {
        MemoryLockProvider a = client(LockOptions.builder()
                .leaseTime(Duration.ofMillis(200))
                .autoRenew(false)
                .build());
        MemoryLockProvider b = client();
        Lease lease = a.lock("n").tryAcquire().orElseThrow();
        assertThat(a.capabilities().automaticRenewal()).isFalse();
        long start = System.nanoTime();
        LeaseLostException cause = lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(ms).isLessThan(1_000);
        assertThat(cause)
                .hasMessageContaining("validity deadline passed: the lease time ran out (this lease is not renewed)")
                .hasMessageContaining("lock 'n'");
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::checkValid).isInstanceOf(LeaseLostException.class);
        Lease next = b.lock("n").tryAcquire(Duration.ofSeconds(2)).orElseThrow();
        assertThat(lease.release()).as("release of a lost lease").isFalse();
        assertThat(next.isValid()).isTrue();
        assertThat(client().lock("n").tryAcquire())
                .as("old holder's release left the new holder alone")
                .isEmpty();
    }

    @Test
    void expiredOnServer_renewalFindsOtherOwner_leaseLostAndNewHolderKept() throws Exception {
        MemoryLockProvider a =
                client(LockOptions.builder().leaseTime(Duration.ofMillis(300)).build());
        MemoryLockProvider b = client();
        Lease lease = a.lock("o").tryAcquire().orElseThrow();
        server.expire("o");
        Lease other = b.lock("o").tryAcquire().orElseThrow();
        LeaseLostException cause = lease.lost().toCompletableFuture().get(3, TimeUnit.SECONDS);
        assertThat(cause).hasMessageContaining("renewal found the lock gone or owned by another client");
        assertThat(other.isValid()).isTrue();
        assertThat(lease.release()).isFalse();
        assertThat(other.release()).isTrue();
    }

    @Test
    void serverUnavailable_renewalFails_leaseLostByDeadline() throws Exception {
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        LockObserver observer = new LockObserver() {
            @Override
            public void renewalFailed(String backend, String lockName, Throwable error) {
                events.add("renewalFailed");
            }

            @Override
            public void lost(String backend, String lockName, LeaseLostException cause) {
                events.add("lost");
            }
        };
        MemoryLockProvider a = client(LockOptions.builder()
                .leaseTime(Duration.ofMillis(300))
                .observer(observer)
                .build());
        Lease lease = a.lock("u").tryAcquire().orElseThrow();
        long deadline = System.nanoTime() + lease.remainingValidity().toNanos();
        server.setAvailable(false);
        try {
            lease.lost().toCompletableFuture().get(3, TimeUnit.SECONDS);
            long lateMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - deadline);
            // lost no later than the deadline plus scheduling slack; never before renewal failed
            assertThat(lateMs).isLessThan(200);
            assertThat(events).contains("renewalFailed", "lost");
        } finally {
            server.setAvailable(true);
        }
    }

    @Test
    void maxHoldTime_endsLeaseAndReleasesOnServer() throws Exception {
        MemoryLockProvider a = client(LockOptions.builder()
                // renewed every 200 ms: on a loaded machine a late renewal still lands inside the
                // lease, so the cap, not a missed renewal, ends it
                .leaseTime(Duration.ofMillis(600))
                .maxHoldTime(Duration.ofMillis(1000))
                .build());
        Lease lease = a.lock("cap").tryAcquire().orElseThrow();
        LeaseLostException cause = lease.lost().toCompletableFuture().get(3, TimeUnit.SECONDS);
        assertThat(cause).hasMessageContaining("maximum hold time");
        await().atMost(Duration.ofSeconds(2)).until(() -> server.owner("cap").isEmpty());
    }

    @Test
    void release_completesLostStageExceptionally() {
        Lease lease = client().lock("c").tryAcquire().orElseThrow();
        lease.release();
        CompletableFuture<LeaseLostException> f = lease.lost().toCompletableFuture();
        assertThat(f).isCompletedExceptionally();
        assertThatThrownBy(f::get).hasRootCauseInstanceOf(java.util.concurrent.CancellationException.class);
        assertThat(lease.remainingValidity()).isEqualTo(Duration.ZERO);
        assertThatThrownBy(lease::checkValid).hasMessageContaining("released");
    }

    @Test
    void interruptedWaiter_throwsAndLeavesNothing() throws Exception {
        MemoryLockProvider a = client();
        MemoryLockProvider b = client();
        Lease held = a.lock("i").acquire();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                b.lock("i").acquire();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
        waiter.interrupt();
        waiter.join(5_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        held.release();
        assertThat(server.trackedLocks()).isZero();
    }

    @Test
    void close_releasesLeasesWakesWaitersAndStopsThreads() throws Exception {
        MemoryLockProvider a = client();
        MemoryLockProvider b = client();
        Lease held = a.lock("z").acquire();
        Lease other = b.lock("w").acquire();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
            started.countDown();
            try {
                b.lock("z").acquire();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        started.await();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.requests() >= 3);
        b.close();
        assertThat(waiter.get(5, TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(other.isValid()).isFalse();
        assertThat(server.owner("w")).as("closing released b's lease").isEmpty();
        assertThat(held.isValid()).isTrue();
        assertThatThrownBy(() -> b.lock("q")).isInstanceOf(IllegalStateException.class);
        clients.forEach(MemoryLockProvider::close);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().startsWith("distlock-mem-")));
    }

    @Test
    void faultHooksSimulateCrash_leavesLockUntilTtl() throws Exception {
        MemoryLockProvider a =
                client(LockOptions.builder().leaseTime(Duration.ofMillis(300)).build());
        MemoryLockProvider b = client();
        Lease lease = a.lock("k").tryAcquire().orElseThrow();
        a.unwrap(FaultHooks.class).orElseThrow().simulateCrash();
        assertThat(lease.isValid()).isFalse();
        assertThat(server.owner("k")).isPresent();
        long start = System.nanoTime();
        Lease next = b.lock("k").tryAcquire(Duration.ofSeconds(3)).orElseThrow();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1_500);
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(lease.fencingToken().getAsLong());
    }

    @Test
    void unwrap_selfFaultHooksAndThroughTheReentrantDecorator() {
        MemoryLockProvider a = client();
        LockProvider wrapped = ReentrantLockProvider.wrap(a);
        assertThat(a.unwrap(MemoryLockProvider.class)).containsSame(a);
        assertThat(wrapped.unwrap(MemoryLockProvider.class)).containsSame(a);
        assertThat(wrapped.unwrap(ReentrantLockProvider.class)).containsSame((ReentrantLockProvider) wrapped);
        assertThat(wrapped.unwrap(FaultHooks.class)).isPresent();
        assertThat(a.unwrap(String.class)).isEmpty();
        assertThatThrownBy(() -> a.unwrap(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("type");
    }

    @Test
    void withLock_runsReleasesAndTimesOut() throws Exception {
        MemoryLockProvider a = client();
        MemoryLockProvider b = client();
        OptionalLong token = a.lock("w").withLock(Duration.ofSeconds(1), Lease::fencingToken);
        assertThat(token).isPresent();
        assertThat(server.owner("w")).isEmpty();
        a.lock("w").acquire();
        assertThatThrownBy(() -> b.lock("w").withLock(Duration.ofMillis(50), l -> "x"))
                .isInstanceOf(LockTimeoutException.class)
                .hasMessageContaining("lock 'w'");
        assertThatThrownBy(() -> b.lock("v").withLock(Duration.ZERO, l -> {
                    throw new java.io.IOException("boom");
                }))
                .isInstanceOf(java.io.IOException.class);
        assertThat(server.owner("v")).as("released after the action threw").isEmpty();
    }

    @Test
    void observer_seesAttemptAcquireReleaseAndFailuresDoNotBreakLocks() {
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        LockObserver observer = new LockObserver() {
            @Override
            public void attempt(String backend, String lockName, Duration maxWait) {
                events.add("attempt");
                throw new IllegalStateException("observer bug");
            }

            @Override
            public void acquired(String backend, String lockName, Duration waited, OptionalLong token) {
                events.add("acquired " + backend + " " + lockName);
            }

            @Override
            public void notAcquired(String backend, String lockName, Duration waited) {
                events.add("notAcquired");
            }

            @Override
            public void released(String backend, String lockName, Duration held, boolean wasValid) {
                events.add("released " + wasValid);
            }
        };
        MemoryLockProvider a = client(LockOptions.builder().observer(observer).build());
        Lease l = a.lock("obs").tryAcquire().orElseThrow();
        assertThat(a.lock("obs").tryAcquire()).isEmpty();
        l.release();
        assertThat(events).containsExactly("attempt", "acquired mem obs", "attempt", "notAcquired", "released true");
    }

    @Test
    void executionException_unwrapsNothing() throws ExecutionException {
        // guard: the lost() stage cannot be completed by callers
        Lease l = client().lock("m").tryAcquire().orElseThrow();
        l.lost().toCompletableFuture().complete(null);
        assertThat(l.isValid()).isTrue();
    }
}
