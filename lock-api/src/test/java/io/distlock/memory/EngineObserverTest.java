package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockObserver;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the engine tells a {@link LockObserver}: each call, its lock and backend, and the wait and
 * hold times, measured on a manual ticker so that every duration is exact. The ticker moves only
 * when a test moves it (at an attempt's start, through the observer, or between calls), and a lease
 * time of a day keeps the engine's timer thread asleep meanwhile.
 */
class EngineObserverTest {
    private static final Duration DAY = Duration.ofDays(1);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final MemoryLockServer server = MemoryLockServer.create();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<MemoryLockProvider> clients = new ArrayList<>();
    /** How far the ticker moves when an attempt starts (the observer's attempt call). */
    private volatile Duration advanceOnAttempt = Duration.ZERO;

    private final LockObserver observer = new LockObserver() {
        @Override
        public void attempt(String backend, String lockName, Duration maxWait) {
            events.add("attempt " + backend + " " + lockName + " " + maxWait);
            now.addAndGet(advanceOnAttempt.toNanos());
        }

        @Override
        public void acquired(String backend, String lockName, Duration waited, OptionalLong token) {
            events.add("acquired " + lockName + " " + waited + " " + token);
        }

        @Override
        public void notAcquired(String backend, String lockName, Duration waited) {
            events.add("notAcquired " + lockName + " " + waited);
        }

        @Override
        public void failed(String backend, String lockName, Throwable error) {
            events.add("failed " + lockName + " " + error.getClass().getSimpleName());
        }

        @Override
        public void released(String backend, String lockName, Duration held, boolean wasValid) {
            events.add("released " + lockName + " " + held + " " + wasValid);
        }

        @Override
        public void lost(String backend, String lockName, LeaseLostException cause) {
            events.add("lost " + lockName);
        }
    };

    @AfterEach
    void closeClients() {
        server.setAvailable(true);
        clients.forEach(MemoryLockProvider::close);
    }

    private MemoryLockProvider client() {
        MemoryLockProvider p = MemoryLockProvider.builder()
                .server(server)
                .options(LockOptions.builder()
                        .leaseTime(DAY)
                        .observer(observer)
                        .ticker(now::get)
                        .build())
                .build();
        clients.add(p);
        return p;
    }

    @Test
    void singleTry_freeLock_attemptWithZeroWait_acquiredWithTheTimeSinceTheAttemptStarted() {
        advanceOnAttempt = Duration.ofSeconds(3);
        Lease lease = client().lock("obs").tryAcquire().orElseThrow();

        assertThat(events).containsExactly("attempt mem obs PT0S", "acquired obs PT3S " + lease.fencingToken());
    }

    @Test
    void singleTryAndTimedWait_heldLock_notAcquiredWithTheTimeWaited() throws InterruptedException {
        MemoryLockProvider a = client();
        a.lock("busy").tryAcquire().orElseThrow();
        events.clear();
        advanceOnAttempt = Duration.ofSeconds(2);

        assertThat(a.lock("busy").tryAcquire()).isEmpty();
        // the wait budget (5 s) is spent when the first try fails (the ticker moved 6 s): no wait
        advanceOnAttempt = Duration.ofSeconds(6);
        assertThat(client().lock("busy").tryAcquire(Duration.ofSeconds(5))).isEmpty();

        assertThat(events)
                .containsExactly(
                        "attempt mem busy PT0S",
                        "notAcquired busy PT2S",
                        "attempt mem busy PT5S",
                        "notAcquired busy PT6S");
    }

    @Test
    void acquire_unboundedWait_attemptReportsTheLongestDuration() throws InterruptedException {
        client().lock("forever").acquire();

        assertThat(events.get(0)).isEqualTo("attempt mem forever " + Duration.ofNanos(Long.MAX_VALUE));
        assertThat(events.get(1)).startsWith("acquired forever PT0S ");
    }

    @Test
    void release_validLease_releasedWithTheHoldTimeFromTheAcquiringRequest() {
        advanceOnAttempt = Duration.ofSeconds(4); // waiting, not holding
        Lease lease = client().lock("held").tryAcquire().orElseThrow();
        now.addAndGet(Duration.ofSeconds(2).toNanos());

        assertThat(lease.release()).isTrue();

        assertThat(events).endsWith("released held PT2S true");
        assertThat(events).noneMatch(e -> e.startsWith("lost"));
    }

    @Test
    void release_afterTheValidityDeadline_returnsFalse_reportsTheLossThenAnInvalidRelease() throws Exception {
        Lease lease = client().lock("late").tryAcquire().orElseThrow();
        now.addAndGet(DAY.multipliedBy(2).toNanos());

        assertThat(lease.release()).isFalse();

        assertThat(events).endsWith("lost late", "released late PT48H false");
        assertThat(lease.lost().toCompletableFuture().get(1, TimeUnit.SECONDS))
                .hasMessageContaining("validity deadline passed before release");
        assertThat(server.owner("late"))
                .as("the lock is given back on the server all the same")
                .isEmpty();
    }

    @Test
    void releaseAfter_serverKept_releasedAsValidWithTheHoldTime_lockStaysTaken() {
        Lease lease = client().lock("linger").tryAcquire().orElseThrow();
        now.addAndGet(Duration.ofSeconds(1).toNanos());

        assertThat(lease.releaseAfter(Duration.ofSeconds(30))).isTrue();

        assertThat(events).endsWith("released linger PT1S true");
        assertThat(server.owner("linger")).isPresent();
        assertThat(lease.releaseAfter(Duration.ofSeconds(30))).isFalse();
    }

    @Test
    void releaseAfter_leaseLostOnlyOnTheClient_releasesOwnerOnlyAtOnce_answersFalse() {
        Lease lease = client().lock("lostHere").tryAcquire().orElseThrow();
        now.addAndGet(DAY.multipliedBy(2).toNanos()); // past the deadline here; the server still holds it
        assertThatThrownBy(lease::checkValid)
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("validity deadline passed");
        assertThat(lease.lost().toCompletableFuture()).isCompletedWithValueMatching(e -> e != null);
        assertThat(server.owner("lostHere")).isPresent();

        assertThat(lease.releaseAfter(Duration.ofSeconds(30))).isFalse();

        // a lost lease is not extended (it may be another client's by now): freed, owner-only
        assertThat(server.owner("lostHere")).isEmpty();
        assertThat(events).endsWith("released lostHere PT48H false");
    }

    @Test
    void release_serverDown_throws_andReportsAnInvalidRelease() {
        Lease lease = client().lock("downAtRelease").tryAcquire().orElseThrow();
        now.addAndGet(Duration.ofSeconds(5).toNanos());
        server.setAvailable(false);

        assertThatThrownBy(lease::release).isInstanceOf(BackendUnavailableException.class);

        assertThat(events).endsWith("released downAtRelease PT5S false");
    }

    /** A delayed release the server cannot take: the caller sees the outage, the observer an invalid release. */
    @Test
    void releaseAfter_serverDown_throws_andReportsAnInvalidRelease() {
        Lease lease = client().lock("downAtReleaseAfter").tryAcquire().orElseThrow();
        now.addAndGet(Duration.ofSeconds(5).toNanos());
        server.setAvailable(false);

        assertThatThrownBy(() -> lease.releaseAfter(Duration.ofSeconds(30)))
                .isInstanceOf(BackendUnavailableException.class);

        assertThat(events).endsWith("released downAtReleaseAfter PT5S false");
    }

    @Test
    void tryAcquire_serverDown_failedWithTheOutage() {
        server.setAvailable(false);

        assertThatThrownBy(() -> client().lock("down").tryAcquire()).isInstanceOf(BackendUnavailableException.class);

        assertThat(events).containsExactly("attempt mem down PT0S", "failed down BackendUnavailableException");
    }
}
