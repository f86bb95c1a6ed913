package io.distlock.tck;

import static io.distlock.tck.TckSupport.POLL;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.tck.history.HistoryChecker;
import io.distlock.tck.history.HistoryRecorder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 10, "Server unavailable": while the server is stopped, attempts fail
 * with {@link io.distlock.BackendUnavailableException} and holders report their leases lost by the
 * deadline.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface ServerUnavailableRules extends RuleGroup {
    /**
     * TCK-10.1: while the server is stopped, an acquisition attempt fails with {@link
     * BackendUnavailableException} — an outage, which callers may retry, never a configuration error
     * ({@link io.distlock.LockConfigurationException}, the other side, checked by TCK-12.1), never an
     * empty result (which would claim that someone holds the lock) and never a hang; once the server
     * is back, the same client acquires again.
     *
     * <p>If this fails, check that connection errors are mapped to {@code
     * BackendUnavailableException} (not to a configuration error), that client timeouts are bounded,
     * and that the client reconnects.
     */
    @Test
    @DisplayName("TCK-10.1 attempts fail with BackendUnavailableException while the server is down")
    default void tck_10_1_serverStopped_attemptFailsWithBackendUnavailable() {
        TckSupport tck = support();
        LockProvider a = tck.shortClient();
        String name = tck.name("down");
        present(a.lock(name).tryAcquire(), "TCK-10.1: tryAcquire before the server stopped")
                .release();
        tck.hook("stopServer", () -> tck.fixture().stopServer());
        try {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> a.lock(name).tryAcquire())
                    .as("TCK-10.1: tryAcquire() while the server is stopped must fail with"
                            + " BackendUnavailableException (an outage, not a configuration error)")
                    .isInstanceOf(BackendUnavailableException.class);
            assertThat(since(t0))
                    .as("TCK-10.1: time for tryAcquire() to fail while the server is stopped")
                    .isLessThanOrEqualTo(tck.unavailableBound());
        } finally {
            tck.hook("startServer", () -> tck.fixture().startServer());
        }
        AtomicReference<Lease> got = new AtomicReference<>();
        await("TCK-10.1: the client acquires again after the server restarted")
                .atMost(tck.unavailableBound().plus(tck.slack()))
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
    default void tck_10_2_serverStopped_holderLostByDeadline() {
        TckSupport tck = support();
        LockProvider a = tck.shortClient();
        String name = tck.name("down-holder");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-10.2: tryAcquire");
        AtomicLong lostAt = new AtomicLong();
        lease.lost().thenRun(() -> lostAt.set(System.nanoTime()));
        tck.hook("stopServer", () -> tck.fixture().stopServer());
        try {
            long readAt = System.nanoTime();
            Duration left = lease.remainingValidity();
            assertThat(left)
                    .as("TCK-10.2: remainingValidity() must be bounded (a lease with no finite deadline can"
                            + " never be checked against a pause)")
                    .isLessThanOrEqualTo(Duration.ofDays(366));
            long deadline = readAt + left.toNanos();
            await("TCK-10.2: lost() completes by the validity deadline while the server is stopped")
                    .atMost(left.plus(tck.slack().multipliedBy(2)))
                    .pollInterval(POLL)
                    .until(() -> lostAt.get() != 0);
            Duration late = Duration.ofNanos(lostAt.get() - deadline);
            assertThat(late)
                    .as("TCK-10.2: lost() completed %s after the deadline read when the server stopped", late)
                    .isLessThanOrEqualTo(tck.slack());
            assertThat(lease.isValid()).as("TCK-10.2: isValid() after the loss").isFalse();
        } finally {
            tck.hook("startServer", () -> tck.fixture().startServer());
        }
    }

    /**
     * TCK-10.3: a server restart ({@code fixture.stopServer()}, then {@code startServer()}) while a
     * renewing short lease is held does what {@code failover} and {@code
     * fencingSurvivesServerRestart} declare, both ways. After the restart another client tries for a
     * short lease plus the slack (the holder releases if it still holds the lock then) until it
     * acquires.
     *
     * <ul>
     *   <li>{@code failover} other than {@code MAY_GRANT_TWICE} ({@code NOT_APPLICABLE}, {@code
     *       HELD_LOCKS_SURVIVE}, {@code HELD_LOCKS_LOST}): the lock is never granted to the other
     *       client while the holder could still believe it held it (history check across the
     *       restart). {@code MAY_GRANT_TWICE} makes no such claim: only fencing protects then.
     *   <li>{@code HELD_LOCKS_LOST}: the holder is told: its {@code lost()} completes.
     *   <li>{@code fencingSurvivesServerRestart=true} (with fencing): the next holder's token is larger
     *       than the token from before the restart. {@code false}: the counter may start again,
     *       nothing to prove.
     * </ul>
     *
     * Needs the hooks.
     *
     * <p>If this fails, check the declarations against what the server keeps across a restart: a
     * server without persistence (or an asynchronous replica taking over) may forget held locks and
     * counters — declare {@code MAY_GRANT_TWICE} and {@code fencingSurvivesServerRestart=false}; a
     * backend that keeps them must not let a client hold a lease the restarted server no longer knows.
     */
    @Test
    @DisplayName("TCK-10.3 a server restart does what failover and fencingSurvivesServerRestart declare")
    default void tck_10_3_serverRestart_failoverAndFencingAsDeclared() {
        TckSupport tck = support();
        Capabilities caps = tck.caps();
        LockProvider a = tck.shortClient();
        LockProvider b = tck.shortClient();
        String name = tck.name("restart");
        HistoryRecorder history = new HistoryRecorder();
        Lease held = present(a.lock(name).tryAcquire(), "TCK-10.3: tryAcquire before the restart");
        HistoryRecorder.Hold hold = history.acquired("before-restart", held);
        held.lost().whenComplete((lost, cancelled) -> hold.lost());
        hold.valid(held);
        tck.hook("stopServer", () -> tck.fixture().stopServer());
        tck.hook("startServer", () -> tck.fixture().startServer());
        long startedAt = System.nanoTime();
        AtomicReference<Lease> next = new AtomicReference<>();
        Duration window = tck.shortLease().plus(tck.slack());
        await("TCK-10.3: another client tries after the restart")
                .atMost(window.plus(tck.unavailableBound()).plus(tck.slack()))
                .pollInterval(POLL)
                .ignoreException(BackendUnavailableException.class)
                .until(() -> {
                    if (held.isValid()) {
                        hold.valid(held);
                    }
                    if (since(startedAt).compareTo(window) >= 0) {
                        return true;
                    }
                    b.lock(name).tryAcquire().ifPresent(next::set);
                    return next.get() != null;
                });
        if (next.get() == null) {
            if (held.isValid()) {
                hold.valid(held);
            }
            hold.released();
            held.release();
            next.set(tck.acquireEventually(b, name, "TCK-10.3: another client acquires after the holder released"));
        }
        history.acquired("after-restart", next.get());
        if (caps.failover() != Capabilities.Failover.MAY_GRANT_TWICE) {
            HistoryChecker.Result result = HistoryChecker.perLock().check(history.events());
            assertThat(result.ok())
                    .as(
                            "TCK-10.3: failover=%s, but after a server restart the lock was granted to another client"
                                    + " while the holder could still believe it held it: %s",
                            caps.failover(), result)
                    .isTrue();
        }
        if (caps.failover() == Capabilities.Failover.HELD_LOCKS_LOST) {
            await("TCK-10.3: failover=HELD_LOCKS_LOST: the holder is told its lease was lost")
                    .atMost(tck.slack())
                    .pollInterval(POLL)
                    .until(() -> held.lost().toCompletableFuture().isDone());
        }
        if (caps.fencing().present() && caps.fencingSurvivesServerRestart()) {
            assertThat(next.get().fencingToken().getAsLong())
                    .as(
                            "TCK-10.3: fencingSurvivesServerRestart=true, but the token after the restart is not"
                                    + " larger than the token before it (%s)",
                            tck.describe(held))
                    .isGreaterThan(held.fencingToken().getAsLong());
        }
        assertThat(next.get().release())
                .as("TCK-10.3: release() after the restart")
                .isTrue();
    }
}
