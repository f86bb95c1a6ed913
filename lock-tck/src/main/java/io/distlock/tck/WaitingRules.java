package io.distlock.tck;

import static io.distlock.tck.TckSupport.LONG_WAIT;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockProvider;
import java.time.Duration;
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
}
