package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The in-JVM server's own answers, on a server whose time to live runs on a manual ticker: what
 * acquisition, renewal and release say for the owner and for anyone else, expiry exactly at the time
 * to live, and which events wake a parked waiter at once (an expiry the server notices, the server
 * coming back after an outage).
 */
class MemoryLockServerTest {
    private final AtomicLong now = new AtomicLong(5_000);
    private final MemoryLockServer server = MemoryLockServer.create(now::get);

    @Test
    void tryAcquire_heldLock_refusedWithTheHoldersRemainingTime_freeLock_grantedWithANewToken() {
        MemoryLockServer.Attempt first = server.tryAcquire("x", "a", 1_000);
        now.addAndGet(300);
        MemoryLockServer.Attempt second = server.tryAcquire("x", "b", 1_000);
        MemoryLockServer.Attempt other = server.tryAcquire("y", "b", 1_000);

        assertThat(first.acquired()).isTrue();
        assertThat(second.acquired()).isFalse();
        assertThat(second.holderRemainingNanos()).isEqualTo(700);
        assertThat(other.acquired()).isTrue();
        assertThat(other.token()).isGreaterThan(first.token());
    }

    @Test
    void ttl_runsOutExactlyAtTheTimeToLive_onTheServersTicker() {
        server.tryAcquire("x", "a", 1_000);
        now.addAndGet(999);
        assertThat(server.owner("x")).contains("a");
        now.addAndGet(1);
        assertThat(server.owner("x")).isEmpty();
        assertThat(server.tryAcquire("x", "b", 1_000).acquired()).isTrue();
    }

    @Test
    void waiterTimesOutOnAHeldLock_theHolderKeepsIt() throws InterruptedException {
        server.tryAcquire("x", "a", 1_000_000);
        server.await("x", 1_000); // a waiter gives up after 1 µs

        assertThat(server.owner("x")).contains("a");
        assertThat(server.tryAcquire("x", "b", 1_000).acquired()).isFalse();
    }

    @Test
    void renew_ownerOnly_setsTheTimeToLiveFromNow() {
        server.tryAcquire("x", "a", 1_000);
        now.addAndGet(800);

        assertThat(server.renew("x", "b", 1_000)).isFalse();
        assertThat(server.renew("nobody", "a", 1_000)).isFalse();
        assertThat(server.renew("x", "a", 1_000)).isTrue();
        now.addAndGet(999);
        assertThat(server.owner("x")).contains("a");
        now.addAndGet(1);
        assertThat(server.renew("x", "a", 1_000))
                .as("expired: nothing to renew")
                .isFalse();
    }

    @Test
    void release_ownerOnly_otherOwnersAndFreeLocksAnswerFalse() {
        server.tryAcquire("x", "a", 1_000);

        assertThat(server.release("x", "b")).isFalse();
        assertThat(server.owner("x")).contains("a");
        assertThat(server.release("x", "a")).isTrue();
        assertThat(server.release("x", "a")).isFalse();
        assertThat(server.release("never", "a")).isFalse();
    }

    @Test
    void expiryNoticedByTheServer_wakesAParkedWaiterAtOnce() throws Exception {
        try (MemoryLockProvider a = MemoryLockProvider.builder().server(server).build();
                MemoryLockProvider b =
                        MemoryLockProvider.builder().server(server).build()) {
            a.lock("x").tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = waitFor(b, "x");
            // the holder's time to live runs out on the server's ticker; the next request that looks
            // at the lock drops the holder, and its waiters must not sleep on
            now.addAndGet(LockOptions.DEFAULT_LEASE_TIME.multipliedBy(2).toNanos());
            assertThat(server.owner("x")).isEmpty();

            assertThat(waiter.get(5, TimeUnit.SECONDS)).isPresent();
        }
    }

    @Test
    void setAvailableTrue_wakesParkedWaitersToTryAgain() throws Exception {
        try (MemoryLockProvider a = MemoryLockProvider.builder().server(server).build();
                MemoryLockProvider b =
                        MemoryLockProvider.builder().server(server).build()) {
            Lease held = a.lock("x").tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = waitFor(b, "x");
            long requests = server.requests();

            // what ends an outage: waiters parked through it try again at once
            server.setAvailable(true);

            // the woken waiter asks again (and waits again: the lock is still held)
            await().atMost(Duration.ofSeconds(5)).until(() -> server.requests() > requests);
            assertThat(waiter).isNotDone();
            held.release();
            assertThat(waiter.get(5, TimeUnit.SECONDS)).isPresent();
        }
    }

    @Test
    void trackedLocks_countsHeldLocksOnly_releasedAndExpiredOnesAreDropped() {
        assertThat(server.trackedLocks()).isZero();
        server.tryAcquire("x", "a", 1_000);
        server.tryAcquire("y", "a", 2_000);
        assertThat(server.trackedLocks()).isEqualTo(2);
        server.release("x", "a");
        assertThat(server.trackedLocks()).isEqualTo(1);
        now.addAndGet(2_000); // y's time to live runs out
        assertThat(server.trackedLocks()).isZero();
    }

    @Test
    void named_aNameNotSeenBefore_createsAServer_thenAlwaysThatOne() {
        String name = "server-test-" + UUID.randomUUID();
        MemoryLockServer s = MemoryLockServer.named(name);

        assertThat(s).isNotNull().isSameAs(MemoryLockServer.named(name));
    }

    /** {@code client} waits up to 30 s for {@code lock}; returns once the waiter is parked. */
    private CompletableFuture<Optional<Lease>> waitFor(MemoryLockProvider client, String lock) {
        CompletableFuture<Optional<Lease>> result = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        result.complete(client.lock(lock).tryAcquire(Duration.ofSeconds(30)));
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                },
                "memory-server-test-waiter");
        t.setDaemon(true);
        t.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> t.getState() == Thread.State.TIMED_WAITING);
        return result;
    }
}
