package io.distlock.tck;

import static io.distlock.tck.TckSupport.LONG_WAIT;
import static io.distlock.tck.TckSupport.POLL;
import static io.distlock.tck.TckSupport.distlockThreads;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 3, "Closing": a closed provider rejects calls, fails its waiters,
 * releases its leases and leaves no thread or server connection behind.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface ClosingRules extends RuleGroup {
    /**
     * TCK-3.1: a closed provider rejects {@code lock()} and every acquisition through handles taken
     * before the close with {@link IllegalStateException}; {@code close()} is idempotent.
     *
     * <p>If this fails, check the provider's closed flag and that handles consult it.
     */
    @Test
    @DisplayName("TCK-3.1 a closed provider rejects lock() and acquisitions with IllegalStateException")
    default void tck_3_1_closedProvider_rejectsCalls() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        String name = tck.name("closed");
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
    default void tck_3_2_waiter_providerClosed_failsPromptly() throws Exception {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("close-waiter");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.2: tryAcquire");
        Background<Lease> waiter = tck.background("waiter", () -> b.lock(name).acquire());
        tck.awaitWaiting(waiter);
        long t0 = System.nanoTime();
        b.close();
        assertThatThrownBy(() -> waiter.get(tck.slack().multipliedBy(2)))
                .as("TCK-3.2: waiter's acquire() when its provider was closed")
                .isInstanceOf(IllegalStateException.class);
        assertThat(since(t0)).as("TCK-3.2: time for the waiter to fail").isLessThanOrEqualTo(tck.slack());
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
    default void tck_3_3_close_releasesHeldLeases() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("close-release");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.3: tryAcquire");
        a.close();
        present(
                b.lock(name).tryAcquire(),
                "TCK-3.3: another client's tryAcquire() right after the holder's provider was closed");
        assertThat(held.isValid()).as("TCK-3.3: isValid() after close").isFalse();
        await("TCK-3.3: lost() completes after the provider was closed")
                .atMost(tck.slack())
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
    default void tck_3_4_close_leavesNoThreads() throws Exception {
        TckSupport tck = support();
        Set<Thread> before = distlockThreads();
        LockProvider a = tck.shortClient();
        LockProvider b = tck.client();
        String name = tck.name("threads");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.4: tryAcquire");
        Background<Optional<Lease>> waiter =
                tck.background("waiter", () -> b.lock(name).tryAcquire(LONG_WAIT));
        tck.awaitWaiting(waiter);
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
    default void tck_3_5_close_leavesNoConnections() throws Exception {
        TckSupport tck = support();
        int before = tck.hookResult("serverConnectionCount", () -> tck.fixture().serverConnectionCount());
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("connections");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.5: tryAcquire");
        assertThat(b.lock(name).tryAcquire(Duration.ofMillis(50))).isEmpty();
        assertThat(held.release()).isTrue();
        a.close();
        b.close();
        await("TCK-3.5: server connections drop back to " + before + " after close")
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> tck.fixture().serverConnectionCount() <= before);
    }

    /**
     * TCK-3.6: every thread a client started is gone after it is closed, whatever its name (TCK-3.4
     * looks at {@code distlock-*} threads only). A first round of two clients (renewal, a waiter, a
     * hand-off, close) lets client libraries start what they start once per JVM; then the JVM's
     * threads are listed, a second round runs, and within 5 s of its close no thread is left that
     * was not there before — except the JVM's shared pools ({@code ForkJoinPool.commonPool}, the
     * process reaper), the TCK's own ({@code tck-*}, Awaitility's) and those the fixture names as
     * shared by its client library ({@code fixture.isSharedThread}).
     *
     * <p>If this fails, check {@code close()} of the driver and of everything it created: executors,
     * event loops, schedulers, subscriber and keepalive threads, connection pools' housekeepers —
     * shut down and joined, whatever they are called; see the thread names in the message.
     */
    @Test
    @DisplayName("TCK-3.6 no thread of any name is left after close")
    default void tck_3_6_close_leavesNoThreadOfAnyName() throws Exception {
        TckSupport tck = support();
        threadRound(tck);
        Set<Thread> before = TckSupport.liveThreads();
        threadRound(tck);
        await("TCK-3.6: threads the clients started end after close")
                .atMost(Duration.ofSeconds(5))
                .pollInterval(POLL)
                .untilAsserted(() -> {
                    List<String> left = TckSupport.liveThreads().stream()
                            .filter(t -> !before.contains(t))
                            .filter(t -> !jvmOrTckThread(t))
                            .filter(t -> !tck.fixture().isSharedThread(t))
                            .map(Thread::getName)
                            .sorted()
                            .toList();
                    assertThat(left)
                            .as("TCK-3.6: threads still running after the clients were closed")
                            .isEmpty();
                });
    }

    /** Two clients: a renewing holder, a waiter, a hand-off; both closed. */
    private static void threadRound(TckSupport tck) throws Exception {
        LockProvider a = tck.shortClient();
        LockProvider b = tck.client();
        String name = tck.name("all-threads");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-3.6: tryAcquire");
        Background<Optional<Lease>> waiter =
                tck.background("waiter", () -> b.lock(name).tryAcquire(LONG_WAIT));
        tck.awaitWaiting(waiter);
        assertThat(held.release()).isTrue();
        present(waiter.get(LONG_WAIT), "TCK-3.6: waiter");
        waiter.thread().join(TimeUnit.SECONDS.toMillis(10));
        a.close();
        b.close();
    }

    /** Threads of the JVM's shared pools and of the TCK itself. */
    private static boolean jvmOrTckThread(Thread t) {
        String n = t.getName();
        return n.startsWith("tck-")
                || n.startsWith("awaitility")
                || n.startsWith("ForkJoinPool.commonPool-")
                || n.equals("process reaper")
                || n.equals("Common-Cleaner")
                || n.equals("Attach Listener");
    }
}
