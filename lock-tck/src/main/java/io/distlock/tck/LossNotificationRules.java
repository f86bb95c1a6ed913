package io.distlock.tck;

import static io.distlock.tck.TckSupport.POLL;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.requireCapability;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 8, "Loss notification": a lost lease says so: {@code lost()}
 * completes, the getters report it, at the validity deadline at the latest, and the lock can be
 * acquired afresh.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface LossNotificationRules extends RuleGroup {
    /**
     * TCK-8.1: after {@code tck.fixture().expireLease}, the holder learns of the loss within a lease time
     * plus slack: {@code lost()} completes, {@code isValid()} is false, {@code checkValid()} throws
     * {@link LeaseLostException}, {@code remainingValidity()} is zero and {@code release()} returns
     * {@code false}.
     *
     * <p>If this fails, check that a failed renewal (or a session-expired event) marks the lease lost
     * and completes {@code lost()}, and that the lease's getters consult that state.
     */
    @Test
    @DisplayName("TCK-8.1 a lease expired on the server is reported lost")
    default void tck_8_1_expiredOnServer_reportedLost() {
        TckSupport tck = support();
        LockProvider a = tck.shortClient();
        String name = tck.name("lost");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-8.1: tryAcquire");
        tck.hook("expireLease", () -> tck.fixture().expireLease(name));
        long t0 = System.nanoTime();
        await("TCK-8.1: lost() completes after tck.fixture().expireLease")
                .atMost(tck.shortLease().plus(tck.slack()))
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
    default void tck_8_2_noRenewal_lostAtDeadline() throws Exception {
        TckSupport tck = support();
        LockProvider a = tck.noRenewClient();
        requireCapability(
                !a.capabilities().automaticRenewal(),
                "the backend keeps leases alive through its session even with autoRenew=false");
        String name = tck.name("deadline");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-8.2: tryAcquire");
        long readAt = System.nanoTime();
        Duration first = lease.remainingValidity();
        AtomicLong lostAt = new AtomicLong();
        CompletableFuture<LeaseLostException> lost = lease.lost().toCompletableFuture();
        lost.thenRun(() -> lostAt.set(System.nanoTime()));
        assertThat(first)
                .as("TCK-8.2: remainingValidity() right after acquisition")
                .isPositive()
                .isLessThanOrEqualTo(tck.shortLease());
        long deadline = readAt + first.toNanos();
        await().atMost(tck.shortLease())
                .pollInterval(Duration.ofMillis(5))
                .until(() -> System.nanoTime() - readAt >= first.toNanos() / 3);
        Duration later = lease.remainingValidity();
        assertThat(later)
                .as("TCK-8.2: remainingValidity() must count down (first %s)", first)
                .isLessThan(first);
        Duration tolerance = tck.slack().dividedBy(2);
        await("TCK-8.2: lost() completes at the validity deadline")
                .atMost(first.plus(tolerance).plus(tck.slack()))
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
    default void tck_8_3_afterLoss_sameThreadAcquiresFreshLease() {
        TckSupport tck = support();
        LockProvider a = tck.shortClient();
        String name = tck.name("reacquire");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-8.3: tryAcquire");
        tck.hook("expireLease", () -> tck.fixture().expireLease(name));
        await("TCK-8.3: lost() completes after tck.fixture().expireLease")
                .atMost(tck.shortLease().plus(tck.slack()))
                .pollInterval(POLL)
                .until(() -> lease.lost().toCompletableFuture().isDone());
        Lease again = present(a.lock(name).tryAcquire(), "TCK-8.3: the same thread's tryAcquire after the loss");
        assertThat(again.isValid())
                .as("TCK-8.3: the lease returned after the loss of %s must be valid: %s", tck.describe(lease), again)
                .isTrue();
        if (tck.caps().fencing().present()) {
            assertThat(again.fencingToken().getAsLong())
                    .as("TCK-8.3: token of the new lease after the loss of %s", tck.describe(lease))
                    .isGreaterThan(lease.fencingToken().getAsLong());
        }
        assertThat(again.release()).as("TCK-8.3: release() of the new lease").isTrue();
    }

    /**
     * TCK-8.4: a renewing holder learns that the server dropped its lease within one renewal
     * interval plus the slack: with a lease of 6 × slack (a renewal every 2 × slack), right after
     * a renewal (or, where the session renews without the engine, one renewal interval plus the slack
     * after the acquisition) {@code fixture.expireLease} drops it, and {@code lost()} completes within the
     * renewal interval plus the slack — not at the next-but-one renewal or at the validity deadline
     * (TCK-8.1 allows a whole lease time). Needs {@code automaticRenewal} and the hook.
     *
     * <p>If this fails, check how a renewal's answer is read: a server that says the lock is gone
     * or owned by another client is final ({@code renew()} returns {@code false}: the lease is
     * lost), never an outage to ride out ({@code BackendUnavailableException}); a connection whose
     * server-side session or transaction ended with the lock is the same.
     */
    @Test
    @DisplayName("TCK-8.4 a dropped lease is reported lost within one renewal interval")
    default void tck_8_4_droppedOnServer_lostWithinOneRenewalInterval() {
        TckSupport tck = support();
        requireCapability(tck.caps().automaticRenewal(), "automaticRenewal is not declared (no renewal to check)");
        Duration interval = tck.slack().multipliedBy(2);
        AtomicInteger renewals = new AtomicInteger();
        LockOptions options = LockOptions.builder()
                .leaseTime(interval.multipliedBy(3))
                .renewalFraction(1.0 / 3.0)
                .observer(TckSupport.countingRenewals(renewals))
                .build();
        LockProvider a = tck.open(options);
        String name = tck.name("lost-at-renewal");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-8.4: tryAcquire");
        long t0 = System.nanoTime();
        // a watchdog reports its first renewal after one interval; a session that renews without the
        // engine reports none, and the rule goes on after an interval plus the slack
        Duration noRenewalReported = interval.plus(tck.slack());
        await("TCK-8.4: a first renewal (or one renewal interval plus slack where the session renews)")
                .atMost(noRenewalReported.plus(tck.slack()))
                .pollInterval(Duration.ofMillis(2))
                .until(() -> renewals.get() >= 1 || since(t0).compareTo(noRenewalReported) >= 0);
        tck.hook("expireLease", () -> tck.fixture().expireLease(name));
        long expiredAt = System.nanoTime();
        Duration bound = interval.plus(tck.slack());
        await("TCK-8.4: lost() completes within a renewal interval (" + interval + ") plus slack after"
                        + " fixture.expireLease (renewals before: " + renewals.get() + ")")
                .atMost(bound.plus(tck.slack()))
                .pollInterval(POLL)
                .until(() -> lease.lost().toCompletableFuture().isDone());
        Duration took = since(expiredAt);
        assertThat(took)
                .as(
                        "TCK-8.4: time from fixture.expireLease to lost() (renewal interval %s, lease %s): a refused"
                                + " renewal taken for an outage?",
                        interval, options.leaseTime())
                .isLessThanOrEqualTo(bound);
        assertThat(lease.isValid()).as("TCK-8.4: isValid() after lost()").isFalse();
    }
}
