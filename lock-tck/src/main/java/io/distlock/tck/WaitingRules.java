package io.distlock.tck;

import static io.distlock.tck.TckSupport.LONG_WAIT;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 2, "Waiting": a timed wait ends on time, a waiter is woken promptly
 * when the holder releases, and an interrupted waiter leaves nothing held.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface WaitingRules extends RuleGroup {
    /**
     * TCK-2.1: {@code tryAcquire(maxWait)} on a held lock returns empty no earlier than {@code
     * maxWait} and not much later (within the slack).
     *
     * <p>If this fails, check the wait budget: it must be measured on the monotonic ticker from the
     * start of the call, and {@code awaitChange} must return at the deadline.
     */
    @Test
    @DisplayName("TCK-2.1 tryAcquire(maxWait) on a held lock times out accurately")
    default void tck_2_1_tryAcquireWithWait_heldLock_timesOutAccurately() throws InterruptedException {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("timeout");
        present(a.lock(name).tryAcquire(), "TCK-2.1: tryAcquire");
        Duration maxWait = Duration.ofMillis(400);
        long t0 = System.nanoTime();
        Optional<Lease> got = b.lock(name).tryAcquire(maxWait);
        Duration took = since(t0);
        assertThat(got).as("TCK-2.1: tryAcquire(%s) on a held lock", maxWait).isEmpty();
        assertThat(took)
                .as("TCK-2.1: tryAcquire(%s) returned empty after %s", maxWait, took)
                .isGreaterThanOrEqualTo(maxWait.minusMillis(1))
                .isLessThanOrEqualTo(maxWait.plus(tck.slack()));
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
    default void tck_2_2_waiter_holderReleases_acquiresPromptly() throws Exception {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("handoff");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-2.2: tryAcquire");
        AtomicLong acquiredAt = new AtomicLong();
        Background<Optional<Lease>> waiter = tck.background("waiter", () -> {
            Optional<Lease> l = b.lock(name).tryAcquire(LONG_WAIT);
            acquiredAt.set(System.nanoTime());
            return l;
        });
        tck.awaitWaiting(waiter);
        long releasedAt = System.nanoTime();
        assertThat(held.release()).isTrue();
        Optional<Lease> got = waiter.get(LONG_WAIT);
        Lease lease = present(got, "TCK-2.2: waiter's tryAcquire(30s)");
        Duration handOff = Duration.ofNanos(acquiredAt.get() - releasedAt);
        boolean notifies = a.capabilities().wakeUp() == Capabilities.WakeUp.NOTIFICATION;
        Duration bound = notifies ? tck.slack() : tck.slack().multipliedBy(2);
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
    default void tck_2_3_waiter_interrupted_throwsAndLeavesNothing() throws Exception {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        String name = tck.name("interrupt");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-2.3: tryAcquire");
        Background<Optional<Lease>> timed =
                tck.background("timed-waiter", () -> b.lock(name).tryAcquire(LONG_WAIT));
        Background<Lease> unbounded =
                tck.background("waiter", () -> b.lock(name).acquire());
        tck.awaitWaiting(timed);
        tck.awaitWaiting(unbounded);
        timed.thread().interrupt();
        unbounded.thread().interrupt();
        assertThatThrownBy(() -> timed.get(tck.slack()))
                .as("TCK-2.3: interrupted tryAcquire(30s)")
                .isInstanceOf(InterruptedException.class);
        assertThatThrownBy(() -> unbounded.get(tck.slack()))
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

    /**
     * TCK-2.4: the declared {@code fifo}, both ways. Declared: waiters acquire in the order they
     * started waiting — three waiters (independent clients whose replies and notifications arrive
     * {@link TckSupport#REPLY_DELAY} late, where {@code fixture.newClientWithReplyDelay} is offered)
     * queue one after another behind a holder,
     * and as each holder releases, a newcomer that calls {@code tryAcquire()} again and again from the
     * release on never gets the lock, and the next waiter in arrival order does. Not declared: no order is promised and
     * there is nothing to prove (the rule is skipped with that reason), but a backend must not declare
     * {@code fifo=true} unless it passes this rule.
     *
     * <p>If this fails, check the queue: a waiter's place must be taken on the server at its first
     * try (a sequential node, a revision-ordered key, a queue entry) and kept across its waits, and
     * an attempt must acquire only when it is first in the queue — never because it happened to try
     * right after a release.
     */
    @Test
    @DisplayName("TCK-2.4 fifo as declared: waiters acquire in arrival order, newcomers do not barge in")
    default void tck_2_4_fifo_asDeclared_waitersAcquireInArrivalOrder() throws Exception {
        TckSupport tck = support();
        TckSupport.requireCapability(
                tck.caps().fifo(),
                "fifo is not declared: no order is promised, nothing to prove (a backend that declares fifo"
                        + " must pass this rule)");
        int n = 3;
        LockProvider holder = tck.client();
        LockProvider newcomer = tck.client();
        String name = tck.name("fifo");
        Lease current = present(holder.lock(name).tryAcquire(), "TCK-2.4: tryAcquire");
        Duration handOff =
                TckSupport.REPLY_DELAY.multipliedBy(10).plus(tck.slack().multipliedBy(2));
        List<Background<Optional<Lease>>> waiters = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // slow waiters (their notifications and replies arrive late) and a fast newcomer: without a
            // queue on the server, the newcomer is bound to win a race against a waiter woken late
            LockProvider w = tck.replyDelayClientIfOffered(LockOptions.defaults(), TckSupport.REPLY_DELAY);
            // connections, sessions and logins first, so that the waiter's first request is its try
            assertThat(present(w.lock(tck.name("fifo-warm-up")).tryAcquire(), "TCK-2.4: a waiter's warm-up")
                            .release())
                    .isTrue();
            Background<Optional<Lease>> waiter =
                    tck.background("fifo-waiter-" + i, () -> w.lock(name).tryAcquire(LONG_WAIT));
            tck.awaitParked(waiter, Duration.ofMillis(200));
            waiters.add(waiter);
        }
        for (int i = 0; i < n; i++) {
            Background<Optional<Lease>> first = waiters.get(i);
            assertThat(current.release())
                    .as("TCK-2.4: release() of holder %d", i)
                    .isTrue();
            // the newcomer tries again and again until the first waiter has the lock: without a queue
            // it is bound to win one of those races
            long until = System.nanoTime() + handOff.toNanos();
            int tries = 0;
            while (!first.result().isDone() && System.nanoTime() - until < 0) {
                Optional<Lease> barged = newcomer.lock(name).tryAcquire();
                tries++;
                barged.ifPresent(Lease::release);
                assertThat(barged)
                        .as(
                                "TCK-2.4: fifo=true, but a newcomer's tryAcquire() (try %d after release %d) acquired"
                                        + " the lock while %d waiter(s) queued before it",
                                tries, i, n - i)
                        .isEmpty();
            }
            current = present(
                    first.get(handOff, "TCK-2.4: waiter " + i + " (arrival order)"),
                    "TCK-2.4: waiter " + i + " (arrival order) after the holder released");
            for (int j = i + 1; j < n; j++) {
                assertThat(waiters.get(j).result().isDone())
                        .as("TCK-2.4: fifo=true, but waiter %d finished before waiter %d, which arrived earlier", j, i)
                        .isFalse();
            }
        }
        assertThat(current.release())
                .as("TCK-2.4: release() of the last waiter")
                .isTrue();
    }

    /**
     * TCK-2.5: a release that races a waiter about to wait is not missed (no lost wake-up). The
     * waiter's client gets its replies {@link TckSupport#REPLY_DELAY} late ({@code
     * fixture.newClientWithReplyDelay}); the holder releases while the waiter's try — which the
     * server already answered with "held" — is still on its way back, so the waiter starts to wait
     * on a lock that is already free. It must acquire within 20 reply delays plus the slack, not
     * when its wait runs out. Needs the hook.
     *
     * <p>If this fails, check the order in the wait path: subscribe (watch, register the waiter)
     * first, then re-check the lock, then block; or have the wait return at once when the lock is
     * free already. A notification that arrives between a failed try and the start of the wait must
     * not be lost.
     */
    @Test
    @DisplayName("TCK-2.5 a release just before the waiter waits is not missed (no lost wake-up)")
    default void tck_2_5_waiter_releasedBeforeItWaits_stillAcquires() throws Exception {
        TckSupport tck = support();
        Duration delay = TckSupport.REPLY_DELAY;
        LockProvider holder = tck.client();
        LockProvider slow = tck.replyDelayClient(LockOptions.defaults(), delay);
        String warmUp = tck.name("lost-wakeup-warm-up");
        assertThat(present(slow.lock(warmUp).tryAcquire(), "TCK-2.5: the slow client's first tryAcquire")
                        .release())
                .isTrue();
        String name = tck.name("lost-wakeup");
        Lease held = present(holder.lock(name).tryAcquire(), "TCK-2.5: tryAcquire");
        AtomicLong acquiredAt = new AtomicLong();
        Background<Optional<Lease>> waiter = tck.background("waiter", () -> {
            Optional<Lease> l = slow.lock(name).tryAcquire(LONG_WAIT);
            acquiredAt.set(System.nanoTime());
            return l;
        });
        tck.awaitWaiting(waiter);
        long releasedAt = System.nanoTime();
        assertThat(held.release()).as("TCK-2.5: the holder's release()").isTrue();
        Duration bound = delay.multipliedBy(20).plus(tck.slack());
        Lease lease = present(
                waiter.get(bound, "TCK-2.5: the waiter after a release that came while its reply was on its way"),
                "TCK-2.5: the waiter's tryAcquire(30s) after a release that came while its reply was on its way");
        assertThat(Duration.ofNanos(acquiredAt.get() - releasedAt))
                .as("TCK-2.5: time from the release to the waiter's acquisition (replies %s late)", delay)
                .isLessThanOrEqualTo(bound);
        assertThat(lease.release()).isTrue();
    }

    /**
     * TCK-2.6: a backend that declares {@code WakeUp.NOTIFICATION} does not poll: a waiter that is
     * never woken (the holder keeps the lock) sends at most as many requests during a wait of 3 ×
     * slack as 5 failed single tries, plus 10 (keepalives, the statistics queries themselves),
     * counted by the server ({@code fixture.serverRequestCount()}). A poller every 100 ms sends 30
     * tries in that time. {@code POLLING}: nothing to bound here (TCK-2.2 bounds its hand-off). Needs
     * the hook.
     *
     * <p>If this fails, check the wait path: {@code awaitChange} must block on a notification
     * (pub/sub message, watch event, a row lock, a condition) up to the holder's remaining time to
     * live, not sleep and retry; or declare {@code WakeUp.POLLING}.
     */
    @Test
    @DisplayName("TCK-2.6 a notification backend does not poll while a waiter waits")
    default void tck_2_6_notificationWakeUp_waiting_sendsNoPolls() throws Exception {
        TckSupport tck = support();
        TckSupport.requireCapability(
                tck.caps().wakeUp() == Capabilities.WakeUp.NOTIFICATION,
                "wakeUp is POLLING: a poller may send a request per poll (TCK-2.2 bounds its hand-off)");
        long start = tck.hookResult("serverRequestCount", () -> tck.fixture().serverRequestCount());
        LockProvider holder = tck.client();
        LockProvider waiting = tck.client();
        String name = tck.name("no-polling");
        Lease held = present(holder.lock(name).tryAcquire(), "TCK-2.6: tryAcquire");
        assertThat(waiting.lock(name).tryAcquire())
                .as("TCK-2.6: a first single try")
                .isEmpty();
        long b0 = tck.fixture().serverRequestCount();
        assertThat(waiting.lock(name).tryAcquire()).as("TCK-2.6: a single try").isEmpty();
        long perTry = Math.max(1, tck.fixture().serverRequestCount() - b0);
        Duration wait = tck.slack().multipliedBy(3);
        long w0 = tck.fixture().serverRequestCount();
        assertThat(waiting.lock(name).tryAcquire(wait))
                .as("TCK-2.6: tryAcquire(%s) while the holder keeps the lock", wait)
                .isEmpty();
        long during = tck.fixture().serverRequestCount() - w0;
        long budget = 5 * perTry + 10;
        assertThat(during)
                .as(
                        "TCK-2.6: requests the server served while one waiter waited %s for a lock nobody released"
                                + " (one failed try costs %d; wakeUp=NOTIFICATION allows %d; %d since the rule began)",
                        wait, perTry, budget, tck.fixture().serverRequestCount() - start)
                .isLessThanOrEqualTo(budget);
        assertThat(held.release()).isTrue();
    }
}
