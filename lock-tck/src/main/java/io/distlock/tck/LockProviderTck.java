package io.distlock.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockTimeoutException;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.tck.history.HistoryChecker;
import io.distlock.tck.history.HistoryEvent;
import io.distlock.tck.history.HistoryRecorder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The distlock TCK: the contract every {@link LockProvider} must meet, as JUnit 5 tests. A backend
 * proves itself by extending this class and supplying a {@link TckFixture}:
 *
 * <pre>{@code
 * class MyBackendTckIT extends LockProviderTck {
 *     protected TckFixture createFixture() {
 *         return new MyBackendFixture(); // starts a server, opens clients on it
 *     }
 * }
 * }</pre>
 *
 * <p>Each test verifies one rule with a stable id ({@code TCK-<section>.<n>}, see {@code SPEC.md}),
 * and its javadoc says what to check if it fails. Rules read {@link LockProvider#capabilities()}:
 * a declared capability is verified to work, an absent one to be reported by the API. A rule that
 * needs a fixture hook the fixture does not implement, or a capability the backend does not
 * declare, is skipped with the reason; {@link TckReportExtension} writes the outcome of every rule
 * to {@code target/tck-report/<backend>.md} and {@code .json}.
 *
 * <p>One fixture serves the whole class (it is opened before the first rule and closed after the
 * last); every client a rule opens through it is closed after the rule, and every background
 * thread a rule starts is interrupted and joined.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.MethodName.class)
@ExtendWith(TckReportExtension.class)
public abstract class LockProviderTck {

    private static final Duration LONG_WAIT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofMillis(20);

    private final String run =
            HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
    private final AtomicInteger names = new AtomicInteger();
    private final List<LockProvider> clients = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private TckFixture fixture;
    private String backend;
    private Capabilities declared;

    /** The fixture for this backend; called once, before the first rule. */
    protected abstract TckFixture createFixture();

    /** Lease lengths and tolerances; override for slow backends. */
    protected TckTiming timing() {
        return TckTiming.defaults();
    }

    /** The backend name for the report (the fixture's, once it is open). */
    public final String backendName() {
        return backend != null ? backend : getClass().getSimpleName();
    }

    @BeforeAll
    final void openFixture() {
        fixture = Objects.requireNonNull(createFixture(), "createFixture() returned null");
        backend = fixture.backend();
    }

    @AfterEach
    final void closeClients() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        threads.clear();
        RuntimeException failure = null;
        for (LockProvider c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        clients.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @AfterAll
    final void closeFixture() {
        if (fixture != null) {
            fixture.close();
        }
    }

    // ------------------------------------------------------------------------------------------
    // 1. Basic contract
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-1.1: {@code tryAcquire()} on a free lock returns a valid lease for that name, with a
     * remaining validity no longer than the lease time.
     *
     * <p>If this fails, check the driver's try-create primitive (the put-if-absent script, the
     * create call, the row claim) and that the validity deadline is computed from the lease time.
     */
    @Test
    @DisplayName("TCK-1.1 tryAcquire on a free lock returns a valid lease")
    void tck_1_1_tryAcquire_freeLock_returnsValidLease() {
        LockProvider a = client();
        String name = name("free");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-1.1: tryAcquire() on a free lock");
        assertThat(lease.lockName()).as("TCK-1.1: lease.lockName()").isEqualTo(name);
        assertThat(lease.isValid()).as("TCK-1.1: a fresh lease is valid").isTrue();
        lease.checkValid();
        assertThat(lease.remainingValidity())
                .as("TCK-1.1: remainingValidity of a fresh lease")
                .isPositive()
                .isLessThanOrEqualTo(LockOptions.DEFAULT_LEASE_TIME);
        assertThat(lease.lost().toCompletableFuture().isDone())
                .as("TCK-1.1: lost() of a fresh lease is not complete")
                .isFalse();
    }

    /**
     * TCK-1.2: {@code tryAcquire()} on a lock held by another client returns empty at once, and the
     * holder keeps its lease.
     *
     * <p>If this fails, check that the try-create primitive is atomic (put-if-absent, not get then
     * set) and that a failed attempt does not touch the holder's key, node or row.
     */
    @Test
    @DisplayName("TCK-1.2 tryAcquire on a lock held by another client returns empty")
    void tck_1_2_tryAcquire_heldByOtherClient_returnsEmpty() {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("held");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-1.2: first tryAcquire");
        long t0 = System.nanoTime();
        Optional<Lease> second = b.lock(name).tryAcquire();
        Duration took = since(t0);
        assertThat(second)
                .as("TCK-1.2: tryAcquire() by client B while client A holds %s", describe(held))
                .isEmpty();
        assertThat(took)
                .as("TCK-1.2: tryAcquire() must not wait for the holder")
                .isLessThan(slack());
        assertThat(held.isValid()).as("TCK-1.2: holder still valid").isTrue();
    }

    /**
     * TCK-1.3: {@code release()} of a valid lease returns {@code true}, makes the lease invalid and
     * frees the lock for another client at once.
     *
     * <p>If this fails, check the driver's delete-if-owner primitive and that it compares the owner
     * value it stored at acquisition.
     */
    @Test
    @DisplayName("TCK-1.3 release of a valid lease returns true and frees the lock")
    void tck_1_3_release_validLease_returnsTrueAndFreesLock() {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("release");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-1.3: tryAcquire");
        assertThat(lease.release()).as("TCK-1.3: release() of a valid lease").isTrue();
        assertThat(lease.isValid()).as("TCK-1.3: isValid() after release").isFalse();
        assertThat(lease.remainingValidity())
                .as("TCK-1.3: remainingValidity() after release")
                .isZero();
        assertThatThrownBy(lease::checkValid)
                .as("TCK-1.3: checkValid() after release")
                .isInstanceOf(LeaseLostException.class);
        Lease next = present(b.lock(name).tryAcquire(), "TCK-1.3: tryAcquire by another client after release");
        assertThat(next.release()).as("TCK-1.3: release() of the next lease").isTrue();
    }

    /**
     * TCK-1.4: release is idempotent: a second {@code release()} (or {@code close()}) returns
     * {@code false} and does not disturb the next holder.
     *
     * <p>If this fails, check that the lease remembers it was released, and that a repeated release
     * does not send a delete that could hit the next holder's lock.
     */
    @Test
    @DisplayName("TCK-1.4 release is idempotent and never disturbs the next holder")
    void tck_1_4_release_twice_secondReturnsFalse() {
        LockProvider a = client();
        LockProvider b = client();
        LockProvider c = client();
        String name = name("idempotent");
        Lease first = present(a.lock(name).tryAcquire(), "TCK-1.4: tryAcquire");
        assertThat(first.release()).as("TCK-1.4: first release()").isTrue();
        Lease next = present(b.lock(name).tryAcquire(), "TCK-1.4: next holder's tryAcquire");
        assertThat(first.release()).as("TCK-1.4: second release()").isFalse();
        first.close();
        assertThat(c.lock(name).tryAcquire())
                .as(
                        "TCK-1.4: a third client must not acquire after the first lease was released twice: the"
                                + " repeated release disturbed the next holder %s",
                        describe(next))
                .isEmpty();
        assertThat(next.isValid()).as("TCK-1.4: next holder still valid").isTrue();
    }

    /**
     * TCK-1.5: {@code withLock} runs the action while holding the lock and releases it afterwards
     * (also when the action throws); when the lock is held elsewhere it throws {@link
     * LockTimeoutException} without running the action.
     *
     * <p>If this fails, check {@code DistributedLock.withLock} (a provider that overrides it) and
     * {@code tryAcquire(Duration)}.
     */
    @Test
    @DisplayName("TCK-1.5 withLock runs and releases; throws LockTimeoutException when held")
    void tck_1_5_withLock_runsAndReleases_timesOutWhenHeld() throws Exception {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("withlock");
        DistributedLock lockA = a.lock(name);
        DistributedLock lockB = b.lock(name);
        Integer result = lockA.withLock(slack(), lease -> {
            assertThat(lease.isValid()).as("TCK-1.5: lease inside withLock").isTrue();
            assertThat(lockB.tryAcquire())
                    .as("TCK-1.5: other client inside withLock")
                    .isEmpty();
            return 42;
        });
        assertThat(result).as("TCK-1.5: withLock result").isEqualTo(42);
        Lease afterwards = present(lockB.tryAcquire(), "TCK-1.5: tryAcquire after withLock returned (not released?)");

        AtomicBoolean ran = new AtomicBoolean();
        assertThatThrownBy(() -> lockA.withLock(Duration.ofMillis(100), lease -> ran.getAndSet(true)))
                .as("TCK-1.5: withLock while another client holds the lock")
                .isInstanceOf(LockTimeoutException.class);
        assertThat(ran).as("TCK-1.5: action must not run without the lock").isFalse();
        assertThat(afterwards.release()).isTrue();

        assertThatThrownBy(() -> lockA.withLock(slack(), lease -> {
                    throw new IOException("action failed");
                }))
                .as("TCK-1.5: withLock propagates the action's exception")
                .isInstanceOf(IOException.class)
                .hasMessage("action failed");
        present(lockB.tryAcquire(), "TCK-1.5: tryAcquire after the action threw (lock not released?)");
    }

    /**
     * TCK-1.6: the {@link Lock} adapter: {@code tryLock()} acquires, another client's {@code
     * tryLock()} fails, {@code unlock()} by a thread that does not hold it throws {@link
     * IllegalMonitorStateException} and leaves the lock held, {@code unlock()} by the owner frees it.
     *
     * <p>If this fails, check {@code DistributedLock.asLock()} (use {@code io.distlock.spi.LockAdapter}).
     */
    @Test
    @DisplayName("TCK-1.6 asLock adapter: tryLock/unlock, unlock by non-owner thread throws")
    void tck_1_6_asLock_nonOwnerUnlock_throwsIllegalMonitorState() throws Exception {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("aslock");
        Lock lockA = a.lock(name).asLock();
        Lock lockB = b.lock(name).asLock();
        assertThat(lockA.tryLock()).as("TCK-1.6: tryLock() on a free lock").isTrue();
        assertThat(lockB.tryLock()).as("TCK-1.6: other client's tryLock()").isFalse();
        Background<Void> stranger = background("unlock", () -> {
            lockA.unlock();
            return null;
        });
        assertThatThrownBy(() -> stranger.get(slack()))
                .as("TCK-1.6: unlock() by a thread that does not hold the lock")
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lockB.tryLock())
                .as("TCK-1.6: lock still held after the failed unlock")
                .isFalse();
        lockA.unlock();
        assertThat(lockB.tryLock())
                .as("TCK-1.6: tryLock() after the owner's unlock")
                .isTrue();
        lockB.unlock();
        assertThatThrownBy(lockB::unlock)
                .as("TCK-1.6: unlock() of a lock not held")
                .isInstanceOf(IllegalMonitorStateException.class);
    }

    /**
     * TCK-1.7: reentrancy, both ways. Declared {@code reentrant=false}: the same thread's second
     * {@code tryAcquire()} on the same client returns empty. Declared {@code reentrant=true}: it
     * returns a nested lease, and the lock stays held until the outer lease is released.
     *
     * <p>If this fails, check {@link Capabilities#reentrant()}: a backend that is not reentrant must
     * not let a client acquire a lock it holds (unique owner value per acquisition, not per client),
     * and one that says it is must count nested holds.
     */
    @Test
    @DisplayName("TCK-1.7 reentrancy as declared (both ways)")
    void tck_1_7_reentrancy_asDeclared() {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("reentrant");
        Lease outer = present(a.lock(name).tryAcquire(), "TCK-1.7: outer tryAcquire");
        Optional<Lease> inner = a.lock(name).tryAcquire();
        if (!a.capabilities().reentrant()) {
            assertThat(inner)
                    .as("TCK-1.7: capabilities say reentrant=false, but the holding thread acquired the lock again"
                            + " on the same client")
                    .isEmpty();
            assertThat(outer.isValid()).as("TCK-1.7: outer lease still valid").isTrue();
            return;
        }
        Lease nested = present(inner, "TCK-1.7: capabilities say reentrant=true: nested tryAcquire");
        assertThat(nested.release()).as("TCK-1.7: release of the nested lease").isTrue();
        assertThat(b.lock(name).tryAcquire())
                .as("TCK-1.7: lock must stay held while the outer lease is held")
                .isEmpty();
        assertThat(outer.release()).as("TCK-1.7: release of the outer lease").isTrue();
        present(b.lock(name).tryAcquire(), "TCK-1.7: tryAcquire after the outer release");
    }

    // ------------------------------------------------------------------------------------------
    // 2. Waiting
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-2.1: {@code tryAcquire(maxWait)} on a held lock returns empty no earlier than {@code
     * maxWait} and not much later (within the slack).
     *
     * <p>If this fails, check the wait budget: it must be measured on the monotonic ticker from the
     * start of the call, and {@code awaitChange} must return at the deadline.
     */
    @Test
    @DisplayName("TCK-2.1 tryAcquire(maxWait) on a held lock times out accurately")
    void tck_2_1_tryAcquireWithWait_heldLock_timesOutAccurately() throws InterruptedException {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("timeout");
        present(a.lock(name).tryAcquire(), "TCK-2.1: tryAcquire");
        Duration maxWait = Duration.ofMillis(400);
        long t0 = System.nanoTime();
        Optional<Lease> got = b.lock(name).tryAcquire(maxWait);
        Duration took = since(t0);
        assertThat(got).as("TCK-2.1: tryAcquire(%s) on a held lock", maxWait).isEmpty();
        assertThat(took)
                .as("TCK-2.1: tryAcquire(%s) returned empty after %s", maxWait, took)
                .isGreaterThanOrEqualTo(maxWait.minusMillis(1))
                .isLessThanOrEqualTo(maxWait.plus(slack()));
    }

    /**
     * TCK-2.2: a waiter acquires promptly after the holder releases: within the slack for
     * notification backends, within twice the slack for polling ones.
     *
     * <p>If this fails, check the wake-up path: the release must notify waiters (pub/sub message,
     * watch event, row-lock hand-off), and a waiter must re-try after being woken; for polling
     * backends check the backoff cap.
     */
    @Test
    @DisplayName("TCK-2.2 a waiter acquires promptly after the holder releases")
    void tck_2_2_waiter_holderReleases_acquiresPromptly() throws Exception {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("handoff");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-2.2: tryAcquire");
        AtomicLong acquiredAt = new AtomicLong();
        Background<Optional<Lease>> waiter = background("waiter", () -> {
            Optional<Lease> l = b.lock(name).tryAcquire(LONG_WAIT);
            acquiredAt.set(System.nanoTime());
            return l;
        });
        awaitWaiting(waiter);
        long releasedAt = System.nanoTime();
        assertThat(held.release()).isTrue();
        Optional<Lease> got = waiter.get(LONG_WAIT);
        Lease lease = present(got, "TCK-2.2: waiter's tryAcquire(30s)");
        Duration handOff = Duration.ofNanos(acquiredAt.get() - releasedAt);
        boolean notifies = a.capabilities().wakeUp() == Capabilities.WakeUp.NOTIFICATION;
        Duration bound = notifies ? slack() : slack().multipliedBy(2);
        assertThat(handOff)
                .as(
                        "TCK-2.2: hand-off took %s after release (wakeUp=%s, bound %s)",
                        handOff, a.capabilities().wakeUp(), bound)
                .isLessThanOrEqualTo(bound);
        assertThat(lease.isValid()).isTrue();
    }

    /**
     * TCK-2.3: interrupting a waiter makes it throw {@link InterruptedException} promptly, and
     * leaves nothing held: once the holder releases, another client acquires at once.
     *
     * <p>If this fails, check that {@code awaitChange} is interruptible and that {@code
     * Contender.abandon()} removes what the attempt left on the server (a queue node, a waiter
     * entry, an open transaction).
     */
    @Test
    @DisplayName("TCK-2.3 interrupting a waiter throws InterruptedException and leaves nothing held")
    void tck_2_3_waiter_interrupted_throwsAndLeavesNothing() throws Exception {
        LockProvider a = client();
        LockProvider b = client();
        LockProvider c = client();
        String name = name("interrupt");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-2.3: tryAcquire");
        Background<Optional<Lease>> timed =
                background("timed-waiter", () -> b.lock(name).tryAcquire(LONG_WAIT));
        Background<Lease> unbounded = background("waiter", () -> b.lock(name).acquire());
        awaitWaiting(timed);
        awaitWaiting(unbounded);
        timed.thread.interrupt();
        unbounded.thread.interrupt();
        assertThatThrownBy(() -> timed.get(slack()))
                .as("TCK-2.3: interrupted tryAcquire(30s)")
                .isInstanceOf(InterruptedException.class);
        assertThatThrownBy(() -> unbounded.get(slack()))
                .as("TCK-2.3: interrupted acquire()")
                .isInstanceOf(InterruptedException.class);
        assertThat(held.release()).isTrue();
        Lease next = present(
                c.lock(name).tryAcquire(),
                "TCK-2.3: a third client's tryAcquire() right after the holder released (the interrupted waiters"
                        + " left something held)");
        assertThat(next.release()).isTrue();
        present(b.lock(name).tryAcquire(), "TCK-2.3: the interrupted client's own tryAcquire() afterwards");
    }

    // ------------------------------------------------------------------------------------------
    // 3. Closing
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-3.1: a closed provider rejects {@code lock()} and every acquisition through handles taken
     * before the close with {@link IllegalStateException}; {@code close()} is idempotent.
     *
     * <p>If this fails, check the provider's closed flag and that handles consult it.
     */
    @Test
    @DisplayName("TCK-3.1 a closed provider rejects lock() and acquisitions with IllegalStateException")
    void tck_3_1_closedProvider_rejectsCalls() {
        LockProvider a = client();
        String name = name("closed");
        DistributedLock handle = a.lock(name);
        a.close();
        a.close();
        assertThatThrownBy(() -> a.lock(name))
                .as("TCK-3.1: lock() on a closed provider")
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(handle::tryAcquire)
                .as("TCK-3.1: tryAcquire() on a closed provider")
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> handle.tryAcquire(Duration.ofSeconds(1)))
                .as("TCK-3.1: tryAcquire(1s) on a closed provider")
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(handle::acquire)
                .as("TCK-3.1: acquire() on a closed provider")
                .isInstanceOf(IllegalStateException.class);
    }

    /**
     * TCK-3.2: a thread waiting for a lock when its provider is closed fails promptly with {@link
     * IllegalStateException}.
     *
     * <p>If this fails, check that {@code LockDriver.close()} wakes every thread blocked in {@code
     * awaitChange} (close the subscription, fail the watch, signal the condition).
     */
    @Test
    @DisplayName("TCK-3.2 a waiter fails promptly when its provider is closed")
    void tck_3_2_waiter_providerClosed_failsPromptly() throws Exception {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("close-waiter");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.2: tryAcquire");
        Background<Lease> waiter = background("waiter", () -> b.lock(name).acquire());
        awaitWaiting(waiter);
        long t0 = System.nanoTime();
        b.close();
        assertThatThrownBy(() -> waiter.get(slack().multipliedBy(2)))
                .as("TCK-3.2: waiter's acquire() when its provider was closed")
                .isInstanceOf(IllegalStateException.class);
        assertThat(since(t0)).as("TCK-3.2: time for the waiter to fail").isLessThanOrEqualTo(slack());
        assertThat(held.isValid()).as("TCK-3.2: the holder is unaffected").isTrue();
    }

    /**
     * TCK-3.3: closing a provider releases the leases it holds: another client acquires at once, and
     * the leases report loss ({@code lost()} completes, {@code isValid()} is false).
     *
     * <p>If this fails, check that {@code close()} releases held leases before closing connections,
     * and marks them lost.
     */
    @Test
    @DisplayName("TCK-3.3 close releases held leases and reports them lost")
    void tck_3_3_close_releasesHeldLeases() {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("close-release");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.3: tryAcquire");
        a.close();
        present(
                b.lock(name).tryAcquire(),
                "TCK-3.3: another client's tryAcquire() right after the holder's provider was closed");
        assertThat(held.isValid()).as("TCK-3.3: isValid() after close").isFalse();
        await("TCK-3.3: lost() completes after the provider was closed")
                .atMost(slack())
                .pollInterval(POLL)
                .until(() -> held.lost().toCompletableFuture().isDone());
    }

    /**
     * TCK-3.4: no thread named {@code distlock-*} is left running after every client is closed
     * (after using renewal, waiting and interrupts).
     *
     * <p>If this fails, check {@code close()}: every executor, watchdog, timer, event loop or
     * subscriber thread must be shut down and joined; see the leftover thread names in the message.
     */
    @Test
    @DisplayName("TCK-3.4 no distlock threads are left after close")
    void tck_3_4_close_leavesNoThreads() throws Exception {
        Set<Thread> before = distlockThreads();
        LockProvider a = shortClient();
        LockProvider b = client();
        String name = name("threads");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.4: tryAcquire");
        Background<Optional<Lease>> waiter =
                background("waiter", () -> b.lock(name).tryAcquire(LONG_WAIT));
        awaitWaiting(waiter);
        assertThat(held.release()).isTrue();
        present(waiter.get(LONG_WAIT), "TCK-3.4: waiter");
        a.close();
        b.close();
        await("TCK-3.4: distlock threads end after close")
                .atMost(Duration.ofSeconds(5))
                .pollInterval(POLL)
                .untilAsserted(() -> {
                    Set<Thread> now = distlockThreads();
                    now.removeAll(before);
                    assertThat(now.stream().map(Thread::getName).sorted().toList())
                            .as("TCK-3.4: threads still running after close")
                            .isEmpty();
                });
    }

    /**
     * TCK-3.5: no connection is left open on the server after every client is closed.
     *
     * <p>If this fails, check {@code close()}: pools, subscriber connections and sessions must be
     * closed (only connections the caller passed in may stay open).
     */
    @Test
    @DisplayName("TCK-3.5 no server connections are left after close")
    void tck_3_5_close_leavesNoConnections() throws Exception {
        int before = hookResult("serverConnectionCount", () -> fixture.serverConnectionCount());
        LockProvider a = client();
        LockProvider b = client();
        String name = name("connections");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.5: tryAcquire");
        assertThat(b.lock(name).tryAcquire(Duration.ofMillis(50))).isEmpty();
        assertThat(held.release()).isTrue();
        a.close();
        b.close();
        await("TCK-3.5: server connections drop back to " + before + " after close")
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> fixture.serverConnectionCount() <= before);
    }

    // ------------------------------------------------------------------------------------------
    // 4. Bad input
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-4.1: invalid lock names (null, empty, blank, control characters, longer than 256 UTF-8
     * bytes, unpaired surrogates) are rejected by {@code lock()} with an {@link
     * IllegalArgumentException} whose message contains "lock name".
     *
     * <p>If this fails, check that {@code lock(name)} calls {@code io.distlock.LockNames.validate}
     * before anything else.
     */
    @Test
    @DisplayName("TCK-4.1 invalid lock names are rejected with IllegalArgumentException")
    void tck_4_1_lock_invalidNames_throwIllegalArgument() {
        LockProvider a = client();
        List<String> invalid = new ArrayList<>();
        invalid.add(null);
        invalid.add("");
        invalid.add(" ");
        invalid.add(" \u3000 ");
        invalid.add("a\u0000b");
        invalid.add("line\nbreak");
        invalid.add("tab\there");
        invalid.add("del\u007f");
        invalid.add("c1\u0085");
        invalid.add("x".repeat(257));
        invalid.add("\u00e9".repeat(129));
        invalid.add("\uD83D\uDD12".repeat(65));
        invalid.add("a\uD800");
        invalid.add("\uDC00b");
        invalid.add("\uDC00\uD800");
        for (String name : invalid) {
            assertThatThrownBy(() -> a.lock(name))
                    .as("TCK-4.1: lock(%s)", printable(name))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lock name");
        }
    }

    /**
     * TCK-4.2: names with characters that are special somewhere (Unicode, {@code /}, {@code ..},
     * braces, {@code %}, quotes, SQL and Lua syntax, whitespace, exactly 256 bytes) work, and
     * distinct names are distinct locks: held all at once by two clients, none blocks another, and
     * a third client can acquire none of them.
     *
     * <p>If this fails, check that names reach keys, paths and SQL only through {@code
     * LockNames.encode} or bound parameters, and that the encoding is injective (case-sensitive,
     * no trimming, no Unicode normalisation; MySQL: a binary collation).
     */
    @Test
    @DisplayName("TCK-4.2 tricky valid names work and are pairwise distinct locks")
    void tck_4_2_lock_trickyNames_workAndNeverCollide() {
        LockProvider a = client();
        LockProvider b = client();
        LockProvider c = client();
        List<String> tricky = trickyNames();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < tricky.size(); i++) {
            String name = tricky.get(i);
            LockProvider owner = i % 2 == 0 ? a : b;
            Lease lease = present(
                    owner.lock(name).tryAcquire(),
                    "TCK-4.2: tryAcquire(" + printable(name) + ") while the other tricky names are held: it"
                            + " collides with one of "
                            + tricky.subList(0, i).stream()
                                    .map(LockProviderTck::printable)
                                    .toList());
            assertThat(lease.lockName()).isEqualTo(name);
            leases.add(lease);
        }
        for (String name : tricky) {
            assertThat(c.lock(name).tryAcquire())
                    .as("TCK-4.2: a third client acquired held lock %s", printable(name))
                    .isEmpty();
        }
        for (int i = 0; i < leases.size(); i++) {
            assertThat(leases.get(i).release())
                    .as("TCK-4.2: release of %s", printable(tricky.get(i)))
                    .isTrue();
        }
        for (String name : tricky) {
            Lease again =
                    present(c.lock(name).tryAcquire(), "TCK-4.2: tryAcquire(" + printable(name) + ") after release");
            assertThat(again.release()).isTrue();
        }
    }

    /**
     * TCK-4.3: wait durations are checked: {@code null} throws {@link NullPointerException}, a
     * negative one {@link IllegalArgumentException} naming {@code maxWait}; {@code Duration.ZERO}
     * behaves like {@code tryAcquire()} (acquires a free lock, returns empty at once on a held one).
     *
     * <p>If this fails, check the duration checks in {@code tryAcquire(Duration)} (the engine's
     * {@code EngineLock.waitNanos}).
     */
    @Test
    @DisplayName("TCK-4.3 null, negative and zero waits")
    void tck_4_3_tryAcquire_nullNegativeZeroWait_asSpecified() throws InterruptedException {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("durations");
        DistributedLock lockA = a.lock(name);
        assertThatThrownBy(() -> lockA.tryAcquire(null))
                .as("TCK-4.3: tryAcquire(null)")
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> lockA.tryAcquire(Duration.ofMillis(-1)))
                .as("TCK-4.3: tryAcquire(-1ms)")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWait");
        assertThatThrownBy(() -> lockA.withLock(null, l -> 1))
                .as("TCK-4.3: withLock(null, ...)")
                .isInstanceOf(NullPointerException.class);
        Lease held = present(lockA.tryAcquire(Duration.ZERO), "TCK-4.3: tryAcquire(ZERO) on a free lock");
        long t0 = System.nanoTime();
        assertThat(b.lock(name).tryAcquire(Duration.ZERO))
                .as("TCK-4.3: tryAcquire(ZERO) on a held lock")
                .isEmpty();
        assertThat(since(t0)).as("TCK-4.3: tryAcquire(ZERO) must not wait").isLessThan(slack());
        assertThat(held.isValid()).isTrue();
    }

    /**
     * TCK-4.4: a huge wait ({@code Duration.ofSeconds(Long.MAX_VALUE)}, beyond what fits in a long
     * of nanoseconds) acquires a free lock at once, and on a held lock waits (interruptibly) and
     * acquires when the holder releases.
     *
     * <p>If this fails, check for overflow in deadline arithmetic ({@code Duration.toNanos()} throws
     * {@code ArithmeticException}; {@code now + nanos} wraps negative).
     */
    @Test
    @DisplayName("TCK-4.4 a huge wait acquires a free lock at once and waits on a held one")
    void tck_4_4_tryAcquire_hugeWait_noOverflow() throws Exception {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("huge");
        Duration huge = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
        long t0 = System.nanoTime();
        Lease held = present(a.lock(name).tryAcquire(huge), "TCK-4.4: tryAcquire(huge) on a free lock");
        assertThat(since(t0)).as("TCK-4.4: tryAcquire(huge) on a free lock").isLessThan(slack());
        Background<Optional<Lease>> waiter =
                background("huge-waiter", () -> b.lock(name).tryAcquire(huge));
        Background<Optional<Lease>> interrupted =
                background("huge-interrupted", () -> b.lock(name).tryAcquire(Duration.ofDays(365L * 300)));
        awaitWaiting(waiter);
        awaitWaiting(interrupted);
        assertThat(waiter.result.isDone())
                .as("TCK-4.4: tryAcquire(huge) on a held lock returned instead of waiting: %s", waiter.result)
                .isFalse();
        interrupted.thread.interrupt();
        assertThatThrownBy(() -> interrupted.get(slack()))
                .as("TCK-4.4: interrupted tryAcquire(300 years)")
                .isInstanceOf(InterruptedException.class);
        assertThat(held.release()).isTrue();
        present(waiter.get(slack().multipliedBy(2)), "TCK-4.4: tryAcquire(huge) after the holder released");
    }

    /**
     * TCK-4.5: a rejected call (bad name, null or negative wait) never disturbs a held lock: the
     * holder stays valid and nobody else can acquire.
     *
     * <p>If this fails, check that arguments are validated before any I/O and that validation errors
     * do not run cleanup that deletes the lock.
     */
    @Test
    @DisplayName("TCK-4.5 a rejected call never disturbs a held lock")
    void tck_4_5_rejectedCall_heldLock_undisturbed() {
        LockProvider a = client();
        LockProvider b = client();
        LockProvider c = client();
        String name = name("undisturbed");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-4.5: tryAcquire");
        for (LockProvider p : List.of(a, b)) {
            DistributedLock l = p.lock(name);
            assertThatThrownBy(() -> l.tryAcquire(Duration.ofSeconds(-5))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> l.tryAcquire(null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> p.lock(name + "\u0000")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> p.lock(name + "\uD800")).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(held.isValid()).as("TCK-4.5: holder after rejected calls").isTrue();
        assertThat(c.lock(name).tryAcquire())
                .as("TCK-4.5: a third client after rejected calls")
                .isEmpty();
        assertThat(held.release()).as("TCK-4.5: holder's release").isTrue();
    }

    /**
     * TCK-4.6: hostile names, adversarial and random (seeded, reproducible with {@code
     * -Ddistlock.tck.seed=<seed>}), go through the provider: each name that breaks the lock-name
     * rule ({@code io.distlock.LockNames}) is rejected by {@code lock()} with an {@link
     * IllegalArgumentException} or {@link io.distlock.LockConfigurationException} whose message
     * names the argument ("lock name") and the rule ("must"); each valid name round-trips (acquire,
     * the lease names it, release). Two different names are never one lock: the valid names are
     * split in two halves; in turn, each half is held at once (by holder clients, at most 16 names
     * each, since some backends keep a connection per held lock), while another client acquires
     * and releases each name of the other half and cannot acquire any held one. Every pair of
     * names is thus checked: held together, or one held while the other is acquired.
     *
     * <p>The names cover the astral plane, combining marks, right-to-left text and bidi controls,
     * control characters and NUL, unpaired surrogates, {@code /}, {@code ..}, braces, {@code %}
     * (including {@code %}-escapes of other names), quotes, SQL and Lua metacharacters, names at and
     * over the 256-byte limit, and names that differ only in case, Unicode normalisation or
     * compatibility form.
     *
     * <p>If this fails, check that names reach keys, paths and SQL only through {@code
     * LockNames.encode} or bound parameters (never trimmed, case-folded, normalised or truncated),
     * that the storage compares keys byte for byte (MySQL: a binary collation) and has room for 3 ×
     * 256 encoded characters, and that {@code lock()} calls {@code LockNames.validate} first.
     */
    @Test
    @DisplayName("TCK-4.6 hostile names (adversarial and seeded random) are rejected clearly or are distinct locks")
    void tck_4_6_lock_hostileNames_rejectedOrDistinctLocks() {
        long seed =
                Long.getLong("distlock.tck.seed", ThreadLocalRandom.current().nextLong());
        String rule = "TCK-4.6 (seed " + seed + ", rerun with -Ddistlock.tck.seed=" + seed + ")";
        LockProvider a = client();
        LockProvider b = client();
        LockProvider c = client();
        List<String> valid = new ArrayList<>();
        for (String name : HostileNames.generate(seed, 24)) {
            String broken = HostileNames.ruleBroken(name);
            if (broken == null) {
                valid.add(name);
                continue;
            }
            assertThatThrownBy(() -> a.lock(name))
                    .as("%s: lock(%s) breaks the rule (%s) and must be rejected", rule, printable(name), broken)
                    .isInstanceOfAny(IllegalArgumentException.class, io.distlock.LockConfigurationException.class)
                    .hasMessageContaining("lock name")
                    .hasMessageContaining("must");
        }
        List<String> even = new ArrayList<>();
        List<String> odd = new ArrayList<>();
        for (int i = 0; i < valid.size(); i++) {
            (i % 2 == 0 ? even : odd).add(valid.get(i));
        }
        // Two phases with the roles swapped: one half held (by holder clients, at most
        // HOSTILE_HOLDS_PER_CLIENT names each: some backends keep a connection per held lock), the
        // other half acquired and released one by one by another client, which must also find every
        // held name held. Twins (case, normalisation, escapes) sit next to each other in the list, so
        // they fall into different halves.
        List<LockProvider> holders = new ArrayList<>();
        holders.add(a);
        holders.add(b);
        hostilePhase(rule, holders, c, even, odd);
        hostilePhase(rule, holders, c, odd, even);
    }

    private static final int HOSTILE_HOLDS_PER_CLIENT = 16;

    private void hostilePhase(
            String rule, List<LockProvider> holders, LockProvider other, List<String> held, List<String> free) {
        while (holders.size() * HOSTILE_HOLDS_PER_CLIENT < held.size()) {
            holders.add(client());
        }
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < held.size(); i++) {
            String name = held.get(i);
            Lease lease = present(
                    holders.get(i % holders.size()).lock(name).tryAcquire(),
                    rule + ": tryAcquire(" + printable(name) + ") while " + i
                            + " other hostile names are held: it collides with one of them");
            assertThat(lease.lockName()).as("%s: lease name", rule).isEqualTo(name);
            leases.add(lease);
        }
        for (String name : free) {
            Lease lease = present(
                    other.lock(name).tryAcquire(),
                    rule + ": another client's tryAcquire(" + printable(name)
                            + ") of a name nobody holds: it collides with a held name");
            assertThat(lease.lockName()).as("%s: lease name", rule).isEqualTo(name);
            assertThat(lease.release())
                    .as("%s: release of %s", rule, printable(name))
                    .isTrue();
        }
        for (String name : held) {
            assertThat(other.lock(name).tryAcquire())
                    .as("%s: another client acquired held lock %s", rule, printable(name))
                    .isEmpty();
        }
        for (Lease lease : leases) {
            assertThat(lease.release())
                    .as("%s: release of %s", rule, printable(lease.lockName()))
                    .isTrue();
        }
    }

    // ------------------------------------------------------------------------------------------
    // 5. Mutual exclusion under concurrency
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-5.1: threads of one client hammering one lock never overlap: a non-atomic
     * read-modify-write of a shared counter loses no update, and the recorded history has no two
     * overlapping valid holders and increasing tokens.
     *
     * <p>If this fails, check that each acquisition uses its own owner value (not one per client),
     * and that the driver is thread-safe.
     */
    @Test
    @DisplayName("TCK-5.1 threads of one client never hold the lock together")
    void tck_5_1_threadsOfOneClient_hammerOneLock_neverOverlap() throws Exception {
        LockProvider a = client();
        hammer("TCK-5.1", List.of(a), 4, 25);
    }

    /**
     * TCK-5.2: independent clients (several threads each) hammering one lock never overlap (same
     * checks as TCK-5.1).
     *
     * <p>If this fails, check the atomicity of the try-create primitive on the server, and the
     * fencing counter if the history shows tokens out of order.
     */
    @Test
    @DisplayName("TCK-5.2 independent clients never hold the lock together")
    void tck_5_2_independentClients_hammerOneLock_neverOverlap() throws Exception {
        hammer("TCK-5.2", List.of(client(), client(), client()), 2, 15);
    }

    // ------------------------------------------------------------------------------------------
    // 6. Ownership
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-6.1: release is owner-only: after a holder's lease expired on the server and another
     * client acquired, the old holder's {@code release()} returns {@code false} and the new holder
     * keeps the lock (a third client cannot acquire).
     *
     * <p>If this fails, check the delete-if-owner primitive: it must compare the stored owner value
     * with the lease's own in one atomic step (a Lua compare-and-delete, a conditional delete on the
     * node's version, {@code DELETE ... WHERE owner = ?}).
     */
    @Test
    @DisplayName("TCK-6.1 release by an expired holder returns false and the new holder keeps the lock")
    void tck_6_1_release_afterExpiryAndNewHolder_returnsFalseAndNewHolderKeeps() {
        LockProvider a = noRenewClient();
        LockProvider b = client();
        LockProvider c = client();
        String name = name("owner-release");
        Lease old = present(a.lock(name).tryAcquire(), "TCK-6.1: tryAcquire");
        loseOnServer(name, a);
        Lease current = acquireEventually(b, name, "TCK-6.1: another client acquires after the holder's lease expired");
        assertThat(old.release())
                .as("TCK-6.1: release() by the expired holder %s while %s holds", describe(old), describe(current))
                .isFalse();
        assertThat(c.lock(name).tryAcquire())
                .as("TCK-6.1: a third client acquired the lock right after the expired holder's release(): that"
                        + " release deleted the new holder's lock (release is not owner-only)")
                .isEmpty();
        assertThat(current.isValid())
                .as("TCK-6.1: the new holder is still valid")
                .isTrue();
        assertThat(current.release()).as("TCK-6.1: the new holder's release()").isTrue();
    }

    /**
     * TCK-6.2: renewal is owner-only: after {@code fixture.expireLease} dropped a renewing holder
     * and another client acquired, the old holder's lease is reported lost, and its renewals neither
     * revive it nor disturb the new holder over several renewal intervals.
     *
     * <p>If this fails, check the renew primitive: extend only if the stored owner is the lease's
     * own (compare-and-expire), never re-create a missing lock; report {@code false} otherwise.
     */
    @Test
    @DisplayName("TCK-6.2 renewal by an expired holder neither revives it nor disturbs the new holder")
    void tck_6_2_renewal_afterExpiryAndNewHolder_doesNotRevive() {
        requireCapability(caps().automaticRenewal(), "automaticRenewal is not declared (no renewal to check)");
        LockProvider a = shortClient();
        LockProvider b = shortClient();
        LockProvider c = client();
        String name = name("owner-renew");
        Lease old = present(a.lock(name).tryAcquire(), "TCK-6.2: tryAcquire");
        hook("expireLease", () -> fixture.expireLease(name));
        Lease current = acquireEventually(
                b,
                name,
                "TCK-6.2: another client acquires after fixture.expireLease (the old holder's renewal re-took the"
                        + " lock?)");
        await("TCK-6.2: the old holder's lost() completes (its renewal must find another owner)")
                .atMost(shortLease().plus(slack()))
                .pollInterval(POLL)
                .until(() -> old.lost().toCompletableFuture().isDone());
        Duration watch = shortLease().multipliedBy(3);
        await("TCK-6.2: the new holder keeps exclusive ownership for " + watch + " (3 lease lengths)")
                .during(watch)
                .atMost(watch.plus(slack()))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> current.isValid() && !old.isValid() && tryOnce(c, name));
        assertThat(current.release()).as("TCK-6.2: the new holder's release()").isTrue();
    }

    // ------------------------------------------------------------------------------------------
    // 7. Expiry and renewal
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-7.1: the lease of a crashed holder expires: another client acquires within the lease time
     * plus slack, not before the crashed holder's last known validity deadline, and with a larger
     * fencing token where fencing is declared.
     *
     * <p>If this fails, check that the server-side TTL (key expiry, session timeout, lease TTL,
     * row-claim timeout) is set from {@code leaseTime} on acquisition and renewal.
     */
    @Test
    @DisplayName("TCK-7.1 a crashed holder's lease expires and another client acquires")
    void tck_7_1_crashedHolder_leaseExpires_otherAcquires() throws InterruptedException {
        LockProvider a = shortClient();
        LockProvider b = shortClient();
        String name = name("crash");
        HistoryRecorder history = new HistoryRecorder();
        Lease old = present(a.lock(name).tryAcquire(), "TCK-7.1: tryAcquire");
        HistoryRecorder.Hold oldHold = history.acquired("crashed", old);
        oldHold.valid(old);
        hook("crashClient", () -> fixture.crashClient(a));
        long t0 = System.nanoTime();
        Optional<Lease> next = b.lock(name).tryAcquire(shortLease().plus(slack().multipliedBy(3)));
        Duration took = since(t0);
        Lease current = present(
                next, "TCK-7.1: another client's tryAcquire after the holder crashed (lease " + shortLease() + ")");
        history.acquired("survivor", current);
        assertThat(took)
                .as("TCK-7.1: time to acquire after the holder crashed (lease %s)", shortLease())
                .isLessThanOrEqualTo(shortLease().plus(slack()));
        HistoryChecker.Result result = checker().check(history.events());
        assertThat(result.ok())
                .as("TCK-7.1: the lock was granted while the crashed holder could still believe it held it: %s", result)
                .isTrue();
        if (caps().fencing().present()) {
            assertThat(current.fencingToken().getAsLong())
                    .as("TCK-7.1: fencing token after a crashed holder (%s)", describe(old))
                    .isGreaterThan(old.fencingToken().getAsLong());
        }
    }

    /**
     * TCK-7.2: with {@code automaticRenewal} declared, a lease held for four lease lengths stays
     * valid throughout and nobody else can acquire.
     *
     * <p>If this fails, check the watchdog (renewal every {@code leaseTime * renewalFraction}, moving
     * the validity deadline) or the session keepalive.
     */
    @Test
    @DisplayName("TCK-7.2 renewal keeps a lease for several lease lengths")
    void tck_7_2_renewal_longHold_staysValidAndExclusive() {
        requireCapability(caps().automaticRenewal(), "automaticRenewal is not declared (TCK-7.3 checks the absence)");
        LockProvider a = shortClient();
        LockProvider b = client();
        String name = name("renewal");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-7.2: tryAcquire");
        Duration hold = shortLease().multipliedBy(4);
        await("TCK-7.2: the lease stays valid and exclusive for " + hold + " (4 lease lengths)")
                .during(hold)
                .atMost(hold.plus(slack()))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> lease.isValid() && tryOnce(b, name));
        assertThat(lease.release()).as("TCK-7.2: release() after the long hold").isTrue();
    }

    /**
     * TCK-7.3: without automatic renewal (a client opened with {@code autoRenew=false} whose
     * capabilities then say {@code automaticRenewal=false}), a lease held past its lease time is
     * lost: it reports invalid and lost, and another client acquires.
     *
     * <p>If this fails, check that {@code autoRenew=false} really disables renewal, and the
     * server-side TTL.
     */
    @Test
    @DisplayName("TCK-7.3 without renewal a lease held past its lease time is lost")
    void tck_7_3_noRenewal_leaseHeldPastLeaseTime_isLost() {
        LockProvider a = noRenewClient();
        requireCapability(
                !a.capabilities().automaticRenewal(),
                "the backend keeps leases alive through its session even with autoRenew=false (TCK-7.2 covers"
                        + " renewal)");
        LockProvider b = client();
        String name = name("no-renewal");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-7.3: tryAcquire");
        await("TCK-7.3: a lease that is not renewed becomes invalid after its lease time " + shortLease())
                .atMost(shortLease().plus(slack()))
                .pollInterval(POLL)
                .until(() ->
                        !lease.isValid() && lease.lost().toCompletableFuture().isDone());
        acquireEventually(b, name, "TCK-7.3: another client acquires after the lease ran out");
        assertThat(lease.release()).as("TCK-7.3: release() of the lost lease").isFalse();
    }

    // ------------------------------------------------------------------------------------------
    // 8. Loss notification
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-8.1: after {@code fixture.expireLease}, the holder learns of the loss within a lease time
     * plus slack: {@code lost()} completes, {@code isValid()} is false, {@code checkValid()} throws
     * {@link LeaseLostException}, {@code remainingValidity()} is zero and {@code release()} returns
     * {@code false}.
     *
     * <p>If this fails, check that a failed renewal (or a session-expired event) marks the lease lost
     * and completes {@code lost()}, and that the lease's getters consult that state.
     */
    @Test
    @DisplayName("TCK-8.1 a lease expired on the server is reported lost")
    void tck_8_1_expiredOnServer_reportedLost() {
        LockProvider a = shortClient();
        String name = name("lost");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-8.1: tryAcquire");
        hook("expireLease", () -> fixture.expireLease(name));
        long t0 = System.nanoTime();
        await("TCK-8.1: lost() completes after fixture.expireLease")
                .atMost(shortLease().plus(slack()))
                .pollInterval(POLL)
                .until(() -> lease.lost().toCompletableFuture().isDone());
        Duration took = since(t0);
        assertThat(lease.isValid())
                .as("TCK-8.1: isValid() after lost() completed (%s after expiry)", took)
                .isFalse();
        assertThat(lease.remainingValidity())
                .as("TCK-8.1: remainingValidity() of a lost lease")
                .isZero();
        assertThatThrownBy(lease::checkValid)
                .as("TCK-8.1: checkValid() of a lost lease")
                .isInstanceOf(LeaseLostException.class);
        assertThat(lease.release()).as("TCK-8.1: release() of a lost lease").isFalse();
    }

    /**
     * TCK-8.2: without renewal, {@code remainingValidity()} counts down and {@code lost()} completes
     * at the validity deadline, not later than the deadline plus half the slack.
     *
     * <p>If this fails, check the expiry timer: the loss must be signalled from the client's own
     * monotonic clock, without waiting for the server or a renewal.
     */
    @Test
    @DisplayName("TCK-8.2 without renewal lost() completes at the validity deadline")
    void tck_8_2_noRenewal_lostAtDeadline() throws Exception {
        LockProvider a = noRenewClient();
        requireCapability(
                !a.capabilities().automaticRenewal(),
                "the backend keeps leases alive through its session even with autoRenew=false");
        String name = name("deadline");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-8.2: tryAcquire");
        long readAt = System.nanoTime();
        Duration first = lease.remainingValidity();
        AtomicLong lostAt = new AtomicLong();
        CompletableFuture<LeaseLostException> lost = lease.lost().toCompletableFuture();
        lost.thenRun(() -> lostAt.set(System.nanoTime()));
        assertThat(first)
                .as("TCK-8.2: remainingValidity() right after acquisition")
                .isPositive()
                .isLessThanOrEqualTo(shortLease());
        long deadline = readAt + first.toNanos();
        await().atMost(shortLease())
                .pollInterval(Duration.ofMillis(5))
                .until(() -> System.nanoTime() - readAt >= first.toNanos() / 3);
        Duration later = lease.remainingValidity();
        assertThat(later)
                .as("TCK-8.2: remainingValidity() must count down (first %s)", first)
                .isLessThan(first);
        Duration tolerance = slack().dividedBy(2);
        await("TCK-8.2: lost() completes at the validity deadline")
                .atMost(first.plus(tolerance).plus(slack()))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> lostAt.get() != 0);
        Duration late = Duration.ofNanos(lostAt.get() - deadline);
        assertThat(late)
                .as("TCK-8.2: lost() completed %s after the validity deadline", late)
                .isLessThanOrEqualTo(tolerance);
        assertThat(lease.isValid()).as("TCK-8.2: isValid() after the deadline").isFalse();
        assertThat(lost.get(1, TimeUnit.SECONDS))
                .as("TCK-8.2: lost() completes with the reason")
                .isInstanceOf(LeaseLostException.class);
    }

    /**
     * TCK-8.3: after a lease was lost, the same thread of the same client acquires the lock again
     * and gets a fresh, valid lease (with a larger token where fencing is declared): nothing of the
     * lost hold is reused, and every lease an acquisition returns is valid when returned.
     *
     * <p>If this fails, check client-side bookkeeping keyed by lock name or thread (reentrancy
     * counts, cached owner values, a local "I hold it" flag) that is not cleared when a lease is lost.
     */
    @Test
    @DisplayName("TCK-8.3 after a loss the same thread acquires a fresh valid lease")
    void tck_8_3_afterLoss_sameThreadAcquiresFreshLease() {
        LockProvider a = shortClient();
        String name = name("reacquire");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-8.3: tryAcquire");
        hook("expireLease", () -> fixture.expireLease(name));
        await("TCK-8.3: lost() completes after fixture.expireLease")
                .atMost(shortLease().plus(slack()))
                .pollInterval(POLL)
                .until(() -> lease.lost().toCompletableFuture().isDone());
        Lease again = present(a.lock(name).tryAcquire(), "TCK-8.3: the same thread's tryAcquire after the loss");
        assertThat(again.isValid())
                .as("TCK-8.3: the lease returned after the loss of %s must be valid: %s", describe(lease), again)
                .isTrue();
        if (caps().fencing().present()) {
            assertThat(again.fencingToken().getAsLong())
                    .as("TCK-8.3: token of the new lease after the loss of %s", describe(lease))
                    .isGreaterThan(lease.fencingToken().getAsLong());
        }
        assertThat(again.release()).as("TCK-8.3: release() of the new lease").isTrue();
    }

    // ------------------------------------------------------------------------------------------
    // 9. Fencing
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-9.1: fencing tokens as declared: with fencing, every lease has a token and successive
     * holders of a lock (alternating clients) get strictly increasing tokens; with {@code
     * Fencing.NONE}, every {@code fencingToken()} is empty.
     *
     * <p>If this fails, check where the token comes from: a server-side counter incremented in the
     * same atomic step as the acquisition, never a client-side counter or a clock.
     */
    @Test
    @DisplayName("TCK-9.1 fencing tokens strictly increase per lock (or are absent, as declared)")
    void tck_9_1_fencingTokens_successiveHolders_increaseAsDeclared() {
        LockProvider a = client();
        LockProvider b = client();
        String name = name("tokens");
        Capabilities.Fencing fencing = caps().fencing();
        long previous = Long.MIN_VALUE;
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            LockProvider p = i % 2 == 0 ? a : b;
            Lease lease = present(p.lock(name).tryAcquire(), "TCK-9.1: holder " + i);
            OptionalLong token = lease.fencingToken();
            if (!fencing.present()) {
                assertThat(token)
                        .as("TCK-9.1: capabilities say fencing=NONE, but fencingToken() is present")
                        .isEmpty();
            } else {
                assertThat(token)
                        .as("TCK-9.1: capabilities say fencing=%s, but fencingToken() is empty", fencing)
                        .isPresent();
                seen.add(token.getAsLong());
                assertThat(token.getAsLong())
                        .as("TCK-9.1: token of holder %d on one lock (tokens so far %s)", i, seen)
                        .isGreaterThan(previous);
                previous = token.getAsLong();
            }
            assertThat(lease.release()).isTrue();
        }
    }

    /**
     * TCK-9.2: with {@code GLOBALLY_MONOTONIC} fencing, tokens strictly increase across locks too
     * (successive holders alternating between two lock names and two clients).
     *
     * <p>If this fails, check that all locks draw from one counter (a global revision or sequence),
     * or declare {@code MONOTONIC_PER_LOCK}.
     */
    @Test
    @DisplayName("TCK-9.2 globally monotonic tokens increase across locks")
    void tck_9_2_fencingTokens_twoLocks_increaseGlobally() {
        requireCapability(
                caps().fencing() == Capabilities.Fencing.GLOBALLY_MONOTONIC,
                "fencing is " + caps().fencing() + ", not GLOBALLY_MONOTONIC");
        LockProvider a = client();
        LockProvider b = client();
        String x = name("global-x");
        String y = name("global-y");
        long previous = Long.MIN_VALUE;
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            LockProvider p = i % 2 == 0 ? a : b;
            String name = (i / 2) % 2 == 0 ? x : y;
            Lease lease = present(p.lock(name).tryAcquire(), "TCK-9.2: holder " + i);
            long token = lease.fencingToken().orElseThrow();
            seen.add(token);
            assertThat(token)
                    .as("TCK-9.2: token of holder %d across two locks (tokens so far %s)", i, seen)
                    .isGreaterThan(previous);
            previous = token;
            assertThat(lease.release()).isTrue();
        }
    }

    /**
     * TCK-9.3: a stale holder is fenced off at a guarded resource: A holds token t1 and writes; its
     * lease expires on the server; B acquires t2 &gt; t1 and writes; A's late write with t1 is
     * rejected with {@link StaleTokenException}.
     *
     * <p>If this fails, check that the next holder's token is larger than every earlier holder's,
     * including one whose lease expired rather than being released.
     */
    @Test
    @DisplayName("TCK-9.3 a stale holder is fenced off at a guarded resource")
    void tck_9_3_staleHolder_fencedOffByGuard() {
        requireCapability(caps().fencing().present(), "fencing is NONE");
        LockProvider a = noRenewClient();
        LockProvider b = client();
        String name = name("fenced");
        InMemoryFencingGuard guard = new InMemoryFencingGuard();
        String resource = "resource-of-" + name;
        Lease stale = present(a.lock(name).tryAcquire(), "TCK-9.3: tryAcquire");
        long t1 = stale.fencingToken().orElseThrow();
        guard.check(resource, t1);
        loseOnServer(name, a);
        Lease current = acquireEventually(b, name, "TCK-9.3: another client acquires after the first lease expired");
        long t2 = current.fencingToken().orElseThrow();
        assertThat(t2)
                .as("TCK-9.3: token of the next holder after %s", describe(stale))
                .isGreaterThan(t1);
        guard.check(resource, t2);
        assertThatThrownBy(() -> guard.check(resource, t1))
                .as("TCK-9.3: the stale holder's write with token %d after token %d wrote", t1, t2)
                .isInstanceOf(StaleTokenException.class);
        assertThat(guard.lastAccepted(resource)).hasValue(t2);
    }

    // ------------------------------------------------------------------------------------------
    // 10. Server unavailable
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-10.1: while the server is stopped, an acquisition attempt fails with {@link
     * BackendUnavailableException} (never an empty result, which would claim that someone holds the
     * lock, and never a hang); once the server is back, the same client acquires again.
     *
     * <p>If this fails, check that connection errors are mapped to {@code
     * BackendUnavailableException}, that client timeouts are bounded, and that the client reconnects.
     */
    @Test
    @DisplayName("TCK-10.1 attempts fail with BackendUnavailableException while the server is down")
    void tck_10_1_serverStopped_attemptFailsWithBackendUnavailable() {
        LockProvider a = shortClient();
        String name = name("down");
        present(a.lock(name).tryAcquire(), "TCK-10.1: tryAcquire before the server stopped")
                .release();
        hook("stopServer", () -> fixture.stopServer());
        try {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> a.lock(name).tryAcquire())
                    .as("TCK-10.1: tryAcquire() while the server is stopped")
                    .isInstanceOf(BackendUnavailableException.class);
            assertThat(since(t0))
                    .as("TCK-10.1: time for tryAcquire() to fail while the server is stopped")
                    .isLessThanOrEqualTo(unavailableBound());
        } finally {
            hook("startServer", () -> fixture.startServer());
        }
        AtomicReference<Lease> got = new AtomicReference<>();
        await("TCK-10.1: the client acquires again after the server restarted")
                .atMost(unavailableBound().plus(slack()))
                .pollInterval(Duration.ofMillis(100))
                .ignoreException(BackendUnavailableException.class)
                .until(() -> {
                    a.lock(name).tryAcquire().ifPresent(got::set);
                    return got.get() != null;
                });
    }

    /**
     * TCK-10.2: a holder cut off from its server (the server is stopped) reports its lease lost no
     * later than its validity deadline plus the slack: a lease is never valid past a deadline that no
     * renewal moved.
     *
     * <p>If this fails, check that failed renewals do not move the deadline, that the expiry timer
     * does not wait for a renewal to time out, and (session backends) that a suspended session moves
     * {@code validUntilNanos} back and calls {@code validityChanged()}.
     */
    @Test
    @DisplayName("TCK-10.2 a holder cut off from the server reports its lease lost by the deadline")
    void tck_10_2_serverStopped_holderLostByDeadline() {
        LockProvider a = shortClient();
        String name = name("down-holder");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-10.2: tryAcquire");
        AtomicLong lostAt = new AtomicLong();
        lease.lost().thenRun(() -> lostAt.set(System.nanoTime()));
        hook("stopServer", () -> fixture.stopServer());
        try {
            long readAt = System.nanoTime();
            Duration left = lease.remainingValidity();
            assertThat(left)
                    .as("TCK-10.2: remainingValidity() must be bounded (a lease with no finite deadline can"
                            + " never be checked against a pause)")
                    .isLessThanOrEqualTo(Duration.ofDays(366));
            long deadline = readAt + left.toNanos();
            await("TCK-10.2: lost() completes by the validity deadline while the server is stopped")
                    .atMost(left.plus(slack().multipliedBy(2)))
                    .pollInterval(POLL)
                    .until(() -> lostAt.get() != 0);
            Duration late = Duration.ofNanos(lostAt.get() - deadline);
            assertThat(late)
                    .as("TCK-10.2: lost() completed %s after the deadline read when the server stopped", late)
                    .isLessThanOrEqualTo(slack());
            assertThat(lease.isValid()).as("TCK-10.2: isValid() after the loss").isFalse();
        } finally {
            hook("startServer", () -> fixture.startServer());
        }
    }

    // ------------------------------------------------------------------------------------------
    // 11. Operations
    // ------------------------------------------------------------------------------------------

    /**
     * TCK-11.1: {@code heldLeases()} lists exactly the leases this client holds (not another
     * client's), each with its lock name, fencing token, an {@code acquiredAt} taken during the
     * acquisition and a {@code validUntil} in the future; a released lease leaves the list; {@code
     * releaseAll()} releases the rest (returning how many), after which the leases are invalid, the
     * locks free for another client at once, and the other client's locks untouched; a second {@code
     * releaseAll()} returns 0.
     *
     * <p>If this fails, check the provider's {@code heldLeases()} (delegate to {@code
     * LockEngine.heldLeases()}; decorators to the wrapped provider) and that {@code release()}
     * removes a lease from the engine's set.
     */
    @Test
    @DisplayName("TCK-11.1 heldLeases lists this client's leases and releaseAll releases them")
    void tck_11_1_heldLeasesAndReleaseAll_listAndReleaseOnlyThisClientsLeases() {
        LockProvider a = client();
        LockProvider b = client();
        String n1 = name("admin-1");
        String n2 = name("admin-2");
        String n3 = name("admin-other");
        java.time.Instant before = Instant.now();
        Lease l1 = present(a.lock(n1).tryAcquire(), "TCK-11.1: tryAcquire " + n1);
        Lease l2 = present(a.lock(n2).tryAcquire(), "TCK-11.1: tryAcquire " + n2);
        java.time.Instant after = Instant.now();
        Lease other = present(b.lock(n3).tryAcquire(), "TCK-11.1: other client's tryAcquire " + n3);

        List<Lease> held = a.heldLeases();
        assertThat(held.stream().map(Lease::lockName).sorted().toList())
                .as("TCK-11.1: lock names of heldLeases() of a client holding %s and %s", n1, n2)
                .containsExactly(n1, n2);
        for (Lease listed : held) {
            Lease mine = listed.lockName().equals(n1) ? l1 : l2;
            assertThat(listed.fencingToken())
                    .as("TCK-11.1: fencingToken of listed %s", listed.lockName())
                    .isEqualTo(mine.fencingToken());
            assertThat(listed.acquiredAt())
                    .as(
                            "TCK-11.1: acquiredAt of listed %s (acquired between %s and %s)",
                            listed.lockName(), before, after)
                    .isBetween(before.minus(slack()), after.plus(slack()));
            assertThat(listed.validUntil())
                    .as("TCK-11.1: validUntil of listed %s", listed.lockName())
                    .isAfter(Instant.now())
                    .isBefore(Instant.now().plus(LockOptions.DEFAULT_LEASE_TIME).plus(slack()));
            assertThat(listed.isValid())
                    .as("TCK-11.1: listed %s is valid", listed.lockName())
                    .isTrue();
        }

        assertThat(l2.release()).as("TCK-11.1: release of %s", n2).isTrue();
        assertThat(a.heldLeases().stream().map(Lease::lockName).toList())
                .as("TCK-11.1: heldLeases() after %s was released", n2)
                .containsExactly(n1);

        assertThat(a.releaseAll())
                .as("TCK-11.1: releaseAll() with one lease held")
                .isEqualTo(1);
        assertThat(a.heldLeases())
                .as("TCK-11.1: heldLeases() after releaseAll()")
                .isEmpty();
        assertThat(l1.isValid())
                .as("TCK-11.1: isValid() of a lease released by releaseAll()")
                .isFalse();
        assertThat(l1.release())
                .as("TCK-11.1: release() of a lease already released by releaseAll()")
                .isFalse();
        present(b.lock(n1).tryAcquire(), "TCK-11.1: another client's tryAcquire right after releaseAll()");
        assertThat(other.isValid())
                .as("TCK-11.1: the other client's lease after this client's releaseAll()")
                .isTrue();
        assertThat(client().lock(n3).tryAcquire())
                .as("TCK-11.1: a third client's tryAcquire of the other client's lock after releaseAll()")
                .isEmpty();
        assertThat(b.heldLeases().stream().map(Lease::lockName).sorted().toList())
                .as("TCK-11.1: the other client's heldLeases()")
                .containsExactlyInAnyOrder(n1, n3);
        assertThat(a.releaseAll()).as("TCK-11.1: a second releaseAll()").isZero();
    }

    // ------------------------------------------------------------------------------------------
    // helpers
    // ------------------------------------------------------------------------------------------

    /** The fixture (open between the first and the last rule). */
    protected final TckFixture fixture() {
        return fixture;
    }

    /** A client with default options (30 s lease, renewed); closed after the rule. */
    protected final LockProvider client() {
        return open(LockOptions.defaults());
    }

    /** A client with {@link TckTiming#shortLease()} leases, renewed. */
    protected final LockProvider shortClient() {
        return open(LockOptions.builder().leaseTime(shortLease()).build());
    }

    /** A client with {@link TckTiming#shortLease()} leases and {@code autoRenew=false}. */
    protected final LockProvider noRenewClient() {
        return open(
                LockOptions.builder().leaseTime(shortLease()).autoRenew(false).build());
    }

    /** Opens a client through the fixture; the TCK closes it after the rule. */
    protected final LockProvider open(LockOptions options) {
        LockProvider p = Objects.requireNonNull(fixture.newClient(options), "fixture.newClient returned null");
        clients.add(p);
        return p;
    }

    /** A lock name unique to this run and rule. */
    protected final String name(String tag) {
        return "tck-" + tag + "-" + run + "-" + names.incrementAndGet();
    }

    private Capabilities caps() {
        if (declared == null) {
            declared = client().capabilities();
        }
        return declared;
    }

    private Duration shortLease() {
        return timing().shortLease();
    }

    /** How long a request may take to fail while the server is down. */
    private Duration unavailableBound() {
        return slack().multipliedBy(10);
    }

    private Duration slack() {
        return timing().slack();
    }

    private HistoryChecker checker() {
        return caps().fencing() == Capabilities.Fencing.GLOBALLY_MONOTONIC
                ? HistoryChecker.global()
                : HistoryChecker.perLock();
    }

    private String describe(Lease lease) {
        try {
            return fixture.describe(lease);
        } catch (RuntimeException e) {
            return String.valueOf(lease);
        }
    }

    private static Duration since(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    private static Lease present(Optional<Lease> lease, String what) {
        if (lease.isEmpty()) {
            fail(what + ": expected a lease but got Optional.empty()");
        }
        return lease.get();
    }

    private static void requireCapability(boolean condition, String reason) {
        if (!condition) {
            Assumptions.abort("capability: " + reason);
        }
    }

    private static void hook(String name, Runnable call) {
        hookResult(name, () -> {
            call.run();
            return null;
        });
    }

    private static <T> T hookResult(String name, Callable<T> call) {
        try {
            return call.call();
        } catch (UnsupportedHookException e) {
            Assumptions.abort("fixture hook '" + e.hook() + "' is not supported");
            throw e;
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("fixture hook '" + name + "' failed", e);
        }
    }

    /** Whether {@code client}'s single try on {@code name} found the lock held (releasing if not). */
    private static boolean tryOnce(LockProvider client, String name) {
        Optional<Lease> l = client.lock(name).tryAcquire();
        l.ifPresent(Lease::release);
        return l.isEmpty();
    }

    /**
     * Makes the server forget {@code holder}'s hold of {@code name}: through {@code
     * fixture.expireLease} when supported, otherwise by letting the short, unrenewed lease run out
     * (skipping the rule when the backend renews regardless).
     */
    private void loseOnServer(String name, LockProvider holder) {
        try {
            fixture.expireLease(name);
        } catch (UnsupportedHookException e) {
            requireCapability(
                    !holder.capabilities().automaticRenewal(),
                    "needs fixture hook 'expireLease' (leases stay alive even with autoRenew=false)");
        }
    }

    private Lease acquireEventually(LockProvider client, String name, String alias) {
        AtomicReference<Lease> got = new AtomicReference<>();
        await(alias)
                .atMost(shortLease().plus(slack().multipliedBy(2)))
                .pollInterval(POLL)
                .until(() -> {
                    client.lock(name).tryAcquire().ifPresent(got::set);
                    return got.get() != null;
                });
        return got.get();
    }

    private void hammer(String rule, List<LockProvider> providers, int threadsPerClient, int iterations)
            throws Exception {
        String name = name("mutex");
        HistoryRecorder history = new HistoryRecorder();
        AtomicLong counter = new AtomicLong();
        AtomicInteger acquisitions = new AtomicInteger();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        long stopAt = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<Background<Integer>> workers = new ArrayList<>();
        for (int c = 0; c < providers.size(); c++) {
            LockProvider p = providers.get(c);
            for (int t = 0; t < threadsPerClient; t++) {
                String id = "client" + c + "-thread" + t;
                workers.add(background(id, () -> {
                    int mine = 0;
                    DistributedLock lock = p.lock(name);
                    for (int i = 0; i < iterations && System.nanoTime() - stopAt < 0; i++) {
                        Optional<Lease> l = lock.tryAcquire(Duration.ofSeconds(5));
                        if (l.isEmpty()) {
                            continue;
                        }
                        Lease lease = l.get();
                        HistoryRecorder.Hold hold = history.acquired(id, lease);
                        try {
                            long v = counter.get();
                            for (int spin = 0; spin < 50; spin++) {
                                Thread.onSpinWait();
                            }
                            Thread.yield();
                            counter.set(v + 1);
                            acquisitions.incrementAndGet();
                            mine++;
                            hold.valid(lease);
                        } finally {
                            hold.released();
                            if (!lease.release()) {
                                errors.add(new AssertionError(rule + ": release() of " + lease + " by " + id
                                        + " returned false (lease lost during a short hold)"));
                            }
                        }
                    }
                    return mine;
                }));
            }
        }
        List<Integer> perThread = new ArrayList<>();
        for (Background<Integer> w : workers) {
            try {
                perThread.add(w.get(Duration.ofSeconds(60)));
            } catch (Exception e) {
                errors.add(e);
            }
        }
        if (!errors.isEmpty()) {
            AssertionError e =
                    new AssertionError(rule + ": " + errors.size() + " worker error(s); first: " + errors.peek());
            errors.forEach(e::addSuppressed);
            throw e;
        }
        HistoryChecker.Result result = checker().check(history.events());
        assertThat(result.ok()).as("%s: history check: %s", rule, result).isTrue();
        assertThat(counter.get())
                .as(
                        "%s: lost updates: the shared counter is %d after %d acquisitions (two holders overlapped)",
                        rule, counter.get(), acquisitions.get())
                .isEqualTo(acquisitions.get());
        assertThat(perThread)
                .as("%s: every thread acquired at least once (acquisitions per thread)", rule)
                .allMatch(n -> n > 0);
        long released = history.events().stream()
                .filter(e -> e.type() == HistoryEvent.Type.RELEASED)
                .count();
        assertThat(released).isEqualTo(acquisitions.get());
    }

    private static List<String> trickyNames() {
        String p = "t"
                + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt()) + "-";
        List<String> names = new ArrayList<>(List.of(
                p + "\u00fcn\u00ef\u00e7\u00f8d\u00e9-\u9501-\uD83D\uDD12",
                p + "a/b",
                p + "a%2Fb",
                p + "a%2fb",
                p + "../..",
                p + "..",
                p + "/",
                p + "{slot}",
                p + "a{b}c",
                p + "%",
                p + "%%",
                p + "'",
                p + "\"",
                p + "`",
                p + "'; DROP TABLE x; --",
                p + "]]",
                p + "]=]..]]",
                p + "lock",
                p + "LOCK",
                p + "a",
                p + "a ",
                p + " a",
                p + "a+b",
                p + "a b",
                p + "*",
                p + "?",
                p + "\\",
                p + ":",
                p + "e\u0301",
                p + "\u00e9"));
        int prefixBytes = p.getBytes(StandardCharsets.UTF_8).length;
        names.add(p + "x".repeat(256 - prefixBytes));
        names.add(p + "y".repeat(255 - prefixBytes));
        StringBuilder emoji = new StringBuilder(p);
        while (emoji.toString().getBytes(StandardCharsets.UTF_8).length + 4 <= 256) {
            emoji.append("\uD83D\uDD12");
        }
        while (emoji.toString().getBytes(StandardCharsets.UTF_8).length < 256) {
            emoji.append('z');
        }
        names.add(emoji.toString());
        return names;
    }

    private static String printable(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        String shown = s.length() > 40 ? s.substring(0, 20) + "..." + s.substring(s.length() - 10) : s;
        for (char c : shown.toCharArray()) {
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || Character.isSurrogate(c) || c == '"' || c == '\\') {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.append("\" (").append(s.length()).append(" chars)").toString();
    }

    private static Set<Thread> distlockThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("distlock-") && t.isAlive())
                .collect(Collectors.toSet());
    }

    /** Waits until {@code b}'s thread is parked, or 300 ms passed (it may block in socket I/O). */
    private void awaitWaiting(Background<?> b) {
        long start = System.nanoTime();
        await().atMost(slack().multipliedBy(2))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> {
                    Thread.State s = b.thread.getState();
                    return s == Thread.State.WAITING
                            || s == Thread.State.TIMED_WAITING
                            || b.result.isDone()
                            || System.nanoTime() - start
                                    > Duration.ofMillis(300).toNanos();
                });
    }

    private <T> Background<T> background(String what, Callable<T> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(
                () -> {
                    try {
                        result.complete(task.call());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                },
                "tck-" + what);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return new Background<>(t, result);
    }

    /** A task on its own thread (so it can be interrupted). */
    private record Background<T>(Thread thread, CompletableFuture<T> result) {

        /** The result, or the task's own exception, within {@code bound}. */
        T get(Duration bound) throws Exception {
            try {
                return result.get(bound.toNanos(), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception x) {
                    throw x;
                }
                throw e;
            } catch (TimeoutException e) {
                throw new AssertionError(
                        "task on thread " + thread.getName() + " did not finish within " + bound + " (state "
                                + thread.getState() + ")",
                        e);
            }
        }
    }
}
