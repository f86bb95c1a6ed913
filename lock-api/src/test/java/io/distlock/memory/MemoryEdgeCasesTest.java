package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.spi.Deadlines;
import io.distlock.spi.LockEngine;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * Edges of the in-JVM server and the engine that the TCK does not reach: the server's fault hooks
 * and bookkeeping, deadline arithmetic at the ends of a long, the lock adapter's re-entry check, a
 * crash hook, and what handles and engines say about themselves.
 */
class MemoryEdgeCasesTest {

    @Test
    void expire_heldOrFree_saysWhetherThereWasAHolder_andWakesWaiters() throws Exception {
        MemoryLockServer server = MemoryLockServer.create();
        try (MemoryLockProvider a = MemoryLockProvider.builder().server(server).build();
                MemoryLockProvider b =
                        MemoryLockProvider.builder().server(server).build()) {
            assertThat(server.expire("edge")).isFalse();
            a.lock("edge").tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
            Thread waiter = waitInBackground(b, "edge", Duration.ofSeconds(20), result);
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
            assertThat(server.expire("edge")).isTrue();
            assertThat(result.get(5, TimeUnit.SECONDS)).isPresent();
        }
    }

    @Test
    void trackedLocks_afterReleaseExpiryAndATimedOutWait_dropsBackToZero() throws Exception {
        MemoryLockServer server = MemoryLockServer.create();
        try (MemoryLockProvider a = MemoryLockProvider.builder().server(server).build();
                MemoryLockProvider b =
                        MemoryLockProvider.builder().server(server).build()) {
            Lease l = a.lock("t1").tryAcquire().orElseThrow();
            assertThat(server.trackedLocks()).isEqualTo(1);
            assertThat(l.release()).isTrue();
            assertThat(server.trackedLocks()).isZero();
            a.lock("t2").tryAcquire().orElseThrow();
            assertThat(b.lock("t2").tryAcquire(Duration.ofMillis(30))).isEmpty();
            assertThat(server.trackedLocks()).isEqualTo(1);
            assertThat(server.expire("t2")).isTrue();
            assertThat(server.trackedLocks()).isZero();
            Thread other = new Thread(server::trackedLocks);
            other.start();
            other.join(TimeUnit.SECONDS.toMillis(5));
            assertThat(other.isAlive())
                    .as("trackedLocks() left the server's mutex locked")
                    .isFalse();
        }
    }

    @Test
    void release_whileTheServerIsDown_failsAsAnOutage() {
        MemoryLockServer server = MemoryLockServer.create();
        try (MemoryLockProvider a = MemoryLockProvider.builder().server(server).build()) {
            Lease l = a.lock("down").tryAcquire().orElseThrow();
            server.setAvailable(false);
            assertThatThrownBy(l::release).isInstanceOf(BackendUnavailableException.class);
            server.setAvailable(true);
            assertThat(server.owner("down")).isPresent();
        }
    }

    @Test
    void named_sameNameSameServer_otherNameOther() {
        MemoryLockServer s = MemoryLockServer.named("edge-named");
        assertThat(s).isNotNull().isSameAs(MemoryLockServer.named("edge-named"));
        assertThat(MemoryLockServer.named("edge-named-2")).isNotNull().isNotSameAs(s);
    }

    @Test
    void deadlines_atTheEndsOfALong_saturate() {
        assertThat(Deadlines.after(5, 10)).isEqualTo(15);
        assertThat(Deadlines.after(-5, 3)).isEqualTo(-2);
        assertThat(Deadlines.after(Long.MAX_VALUE - 1, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Deadlines.after(Long.MAX_VALUE - 5, 10)).isEqualTo(Deadlines.NEVER);
        assertThat(Deadlines.after(Long.MIN_VALUE + 5, -10)).isEqualTo(Deadlines.NEVER);
        assertThat(Deadlines.after(1, Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Deadlines.NEVER);
        assertThat(Deadlines.after(1, Duration.ofNanos(2))).isEqualTo(3);
    }

    /** A wait too long for a long of nanoseconds is a wait without a limit, not no wait at all. */
    @Test
    void tryAcquire_aWaitBeyondALongOfNanoseconds_waitsUntilTheRelease() throws Exception {
        MemoryLockServer server = MemoryLockServer.create();
        try (MemoryLockProvider a = MemoryLockProvider.builder().server(server).build();
                MemoryLockProvider b =
                        MemoryLockProvider.builder().server(server).build()) {
            Lease held = a.lock("long-wait").tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
            Thread waiter = waitInBackground(b, "long-wait", Duration.ofSeconds(Long.MAX_VALUE), result);
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> waiter.getState() == Thread.State.TIMED_WAITING
                            || waiter.getState() == Thread.State.WAITING
                            || result.isDone());
            assertThat(result).as("returned while the lock was still held").isNotDone();
            held.release();
            assertThat(result.get(5, TimeUnit.SECONDS)).isPresent();
        }
    }

    /** A lock the server expired early (before the client noticed) is not the holder's to release. */
    @Test
    void release_ofALockTheServerExpiredEarly_answersFalse() {
        MemoryLockServer server = MemoryLockServer.create();
        try (MemoryLockProvider a = MemoryLockProvider.builder().server(server).build()) {
            Lease lease = a.lock("expired-early").tryAcquire().orElseThrow();
            assertThat(server.expire("expired-early")).isTrue();

            assertThat(lease.release())
                    .as("release of a lock the server no longer gives this owner")
                    .isFalse();
        }
    }

    @Test
    void lockAdapter_secondTryLockOfTheHoldingThread_rejected() throws Exception {
        try (MemoryLockProvider a = MemoryLockProvider.create();
                MemoryLockProvider b =
                        MemoryLockProvider.builder().server(a.server()).build()) {
            Lock lock = a.lock("adapter").asLock();
            assertThat(lock.tryLock()).isTrue();
            assertThatThrownBy(lock::tryLock).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> lock.tryLock(10, TimeUnit.MILLISECONDS)).isInstanceOf(IllegalStateException.class);
            assertThat(b.lock("adapter").asLock().tryLock(10, TimeUnit.MILLISECONDS))
                    .isFalse();
            lock.unlock();
        }
    }

    @Test
    void handleAndEngine_describeThemselves() {
        MemoryLockServer server = MemoryLockServer.create();
        LockEngine engine = LockEngine.create(new MemoryDriver(server, Duration.ZERO), LockOptions.defaults());
        DistributedLock handle = engine.lock("described");
        assertThat(handle.backend()).isEqualTo("mem");
        assertThat(handle.toString()).contains("described").contains("mem").doesNotContain("leaseTime");
        assertThat(handle.withLeaseTime(Duration.ofSeconds(3)).toString()).contains("leaseTime=PT3S");
        Lease lease = handle.tryAcquire().orElseThrow();
        assertThat(lease.toString()).contains("described").contains("HELD");
        assertThat(engine.isClosed()).isFalse();
        engine.close();
        assertThat(engine.isClosed()).isTrue();
    }

    @Test
    void crashHook_runsTheBeforeCrashStep_closesTheDriver_andKeepsTheLock() throws Exception {
        MemoryLockServer server = MemoryLockServer.create();
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        LockEngine engine = LockEngine.create(new MemoryDriver(server, Duration.ZERO), LockOptions.defaults());
        List<Thread> engineThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.getName().startsWith("distlock-mem-"))
                .toList();
        assertThat(engineThreads).hasSize(2).allMatch(Thread::isDaemon);
        try (MemoryLockProvider other =
                MemoryLockProvider.builder().server(server).build()) {
            Lease held = other.lock("crash").tryAcquire().orElseThrow();
            CompletableFuture<Object> waiter = new CompletableFuture<>();
            Thread waiting = new Thread(() -> {
                try {
                    waiter.complete(engine.lock("crash").tryAcquire(Duration.ofSeconds(20)));
                } catch (Exception e) {
                    waiter.complete(e);
                }
            });
            waiting.start();
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> waiting.getState() == Thread.State.TIMED_WAITING);
            Lease mine = engine.lock("crash-own").tryAcquire().orElseThrow();
            AtomicBoolean ran = new AtomicBoolean();
            engine.faultHooks(() -> ran.set(true)).simulateCrash();
            assertThat(ran).isTrue();
            assertThat(engine.isClosed()).isTrue();
            assertThat(engineThreads)
                    .as("the engine's threads are stopped when the crash hook returns")
                    .noneMatch(Thread::isAlive);
            assertThat(mine.isValid()).isFalse();
            assertThat(server.owner("crash-own")).isPresent();
            // the parked waiter is woken by the driver's close, not at the end of its 20 s wait
            assertThat(waiter.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
            assertThat(held.release()).isTrue();
        }
    }

    /** Starts a thread whose {@code tryAcquire(wait)} of {@code name} completes {@code result}. */
    private static Thread waitInBackground(
            MemoryLockProvider client, String name, Duration wait, CompletableFuture<Optional<Lease>> result) {
        Thread waiter = new Thread(() -> {
            try {
                result.complete(client.lock(name).tryAcquire(wait));
            } catch (InterruptedException e) {
                result.completeExceptionally(e);
            }
        });
        waiter.start();
        return waiter;
    }
}
