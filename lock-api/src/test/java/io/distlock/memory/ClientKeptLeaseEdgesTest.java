package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.Deadlines;
import io.distlock.spi.LockEngine;
import io.distlock.spi.RenewalMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lease times the engine keeps ({@code LeaseTiming.CLIENT}) at their edges: a session whose own
 * deadline is "never" or earlier than the lease's, a delayed release of a lease that the watchdog
 * does not renew (it is renewed through the delay), and a delayed release asked for after the
 * validity deadline has passed or a second time. Time runs on a manual ticker where a test needs a
 * deadline to pass; lease times of minutes keep the engine's timer thread asleep meanwhile.
 */
class ClientKeptLeaseEdgesTest {
    private final AtomicLong now = new AtomicLong(1_000_000L);
    private final MemoryLockServer server = MemoryLockServer.create();
    private final List<LockProvider> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(LockProvider::close);
    }

    private LockProvider client(RenewalMode mode, long driverValidityNanos, LockOptions.Builder options) {
        LockProvider p = LockEngine.create(new EngineKeptDriver(server, mode, driverValidityNanos), options.build());
        clients.add(p);
        return p;
    }

    /** A watchdog client with 1 min leases and no renewal, on the manual ticker. */
    private LockProvider watchdogWithoutRenewal() {
        return client(
                RenewalMode.WATCHDOG,
                0,
                LockOptions.builder()
                        .leaseTime(Duration.ofMinutes(1))
                        .autoRenew(false)
                        .ticker(now::get));
    }

    /** A session client without renewal, on the manual ticker. */
    private LockProvider session(long driverValidityNanos, Duration leaseTime) {
        return client(
                RenewalMode.SESSION,
                driverValidityNanos,
                LockOptions.builder().leaseTime(leaseTime).autoRenew(false).ticker(now::get));
    }

    @Test
    void session_driverDeadlineNever_leaseEndsAtItsOwnLeaseTime() {
        LockProvider a = session(Deadlines.NEVER, Duration.ofMinutes(1));
        Lease lease = a.lock("never").tryAcquire().orElseThrow();

        assertThat(lease.remainingValidity())
                .isGreaterThan(Duration.ofSeconds(50))
                .isLessThanOrEqualTo(Duration.ofMinutes(1));
        now.addAndGet(Duration.ofMinutes(2).toNanos());
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void session_driverDeadlineBeforeTheLeaseTime_theDriversCounts() {
        LockProvider a = session(TimeUnit.MINUTES.toNanos(1), Duration.ofMinutes(5));
        Lease lease = a.lock("early").tryAcquire().orElseThrow();

        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMinutes(1));
        now.addAndGet(Duration.ofMinutes(2).toNanos());
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void extend_renewingSession_theEngineEndsTheLeaseAtTheExtensionsEnd() {
        LockProvider a = client(
                RenewalMode.SESSION,
                Deadlines.NEVER,
                LockOptions.builder().leaseTime(Duration.ofMinutes(1)).ticker(now::get));
        Lease lease = a.lock("extended").tryAcquire().orElseThrow();

        lease.extend(Duration.ofMinutes(2));

        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMinutes(2));
        now.addAndGet(Duration.ofMinutes(3).toNanos());
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void releaseAfter_pastTheValidityDeadline_releasesAtOnceAndAnswersFalse_secondCallFalse() {
        LockProvider a = session(Deadlines.NEVER, Duration.ofMinutes(1));
        Lease lease = a.lock("late").tryAcquire().orElseThrow();
        now.addAndGet(Duration.ofMinutes(2).toNanos());

        assertThat(lease.releaseAfter(Duration.ofMinutes(10))).isFalse();
        assertThat(server.owner("late"))
                .as("freed at once, not kept for the delay")
                .isEmpty();
        assertThat(lease.releaseAfter(Duration.ofMinutes(10))).isFalse();
    }

    @Test
    void releaseAfter_clientKept_observerToldOfAValidReleaseWithTheHoldTime() {
        List<String> released = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.distlock.LockObserver observer = new io.distlock.LockObserver() {
            @Override
            public void released(String backend, String lockName, Duration held, boolean wasValid) {
                released.add(lockName + " " + held + " " + wasValid);
            }
        };
        LockProvider a = client(
                RenewalMode.SESSION,
                Deadlines.NEVER,
                LockOptions.builder()
                        .leaseTime(Duration.ofMinutes(1))
                        .observer(observer)
                        .ticker(now::get));
        Lease lease = a.lock("observed").tryAcquire().orElseThrow();
        now.addAndGet(Duration.ofSeconds(5).toNanos());

        assertThat(lease.releaseAfter(Duration.ofMinutes(10))).isTrue();
        assertThat(released).containsExactly("observed PT5S true");
        assertThat(server.owner("observed")).as("kept for the delay").isPresent();
    }

    @Test
    void releaseAfter_watchdogLeaseWithoutRenewal_isRenewedThroughTheDelay_thenFreed() throws Exception {
        LockOptions.Builder options =
                LockOptions.builder().leaseTime(Duration.ofMillis(500)).autoRenew(false);
        LockProvider a = client(RenewalMode.WATCHDOG, 0, options);
        LockProvider b = client(RenewalMode.WATCHDOG, 0, LockOptions.builder());
        Lease lease = a.lock("kept").tryAcquire().orElseThrow();
        long start = System.nanoTime();

        assertThat(lease.releaseAfter(Duration.ofMillis(1_500))).isTrue();

        assertThat(b.lock("kept").tryAcquire(Duration.ofMillis(1_000)))
                .as("taken past its 500 ms time to live: renewed through the delay")
                .isEmpty();
        assertThat(b.lock("kept").tryAcquire(Duration.ofSeconds(5))).isPresent();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(1_000);
        assertThat(lease.releaseAfter(Duration.ofSeconds(1)))
                .as("already released")
                .isFalse();
    }

    /**
     * A renewal that fails during the delay of a delayed release, while the lease is still valid, does
     * not end the delay: the next renewal keeps the lock, and it is freed when the delay is over.
     */
    @Test
    void releaseAfter_aRenewalFailsDuringTheDelay_theLockIsStillKeptToTheEndOfTheDelay() throws Exception {
        EngineKeptDriver kept = new EngineKeptDriver(server, RenewalMode.WATCHDOG, 0);
        LockProvider a = LockEngine.create(
                kept, LockOptions.builder().leaseTime(Duration.ofMillis(1_200)).build());
        clients.add(a);
        LockProvider b = client(RenewalMode.WATCHDOG, 0, LockOptions.builder());
        Lease lease = a.lock("kept-through-a-failure").tryAcquire().orElseThrow();
        assertThat(lease.releaseAfter(Duration.ofMillis(3_000))).isTrue();
        long start = System.nanoTime();

        server.setAvailable(false);
        int before = kept.renewCalls.get();
        await().atMost(Duration.ofSeconds(2)).until(() -> kept.renewCalls.get() > before); // one failed
        server.setAvailable(true);

        assertThat(b.lock("kept-through-a-failure").tryAcquire(Duration.ofMillis(1_800)))
                .as("taken past its 1.2 s time to live: renewed through the delay after the failure")
                .isEmpty();
        assertThat(b.lock("kept-through-a-failure").tryAcquire(Duration.ofSeconds(5)))
                .isPresent();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(1_800);
    }

    /**
     * {@code checkValid()} past the validity deadline, before any timer noticed: it marks the lease
     * lost itself (its {@code lost()} stage completes) and says why, not "released".
     */
    @Test
    void checkValid_pastTheDeadlineBeforeTheTimerNoticed_marksTheLeaseLostAndSaysWhy() {
        LockProvider a = watchdogWithoutRenewal();
        Lease lease = a.lock("checked").tryAcquire().orElseThrow();
        lease.checkValid(); // valid: no exception
        now.addAndGet(Duration.ofMinutes(2).toNanos());

        assertThatThrownBy(lease::checkValid)
                .isInstanceOf(LeaseLostException.class)
                .hasMessageContaining("validity deadline passed");
        assertThat(lease.lost().toCompletableFuture())
                .isCompletedWithValueMatching(e -> e.getMessage().contains("validity deadline passed"));
    }

    /**
     * A lease the watchdog does not renew, on a driver whose locks live as long as the client says:
     * an extension to a shorter lease time is kept by the engine, and the lease ends there.
     */
    @Test
    void extend_watchdogLeaseWithoutRenewal_shorterLeaseTime_theEngineEndsTheLeaseThere() {
        LockProvider a = watchdogWithoutRenewal();
        Lease lease = a.lock("shortened").tryAcquire().orElseThrow();

        lease.extend(Duration.ofSeconds(30));

        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofSeconds(30));
        now.addAndGet(Duration.ofSeconds(45).toNanos());
        assertThat(lease.isValid()).as("45 s after an extension to 30 s").isFalse();
    }
}
