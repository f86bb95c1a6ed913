package io.distlock.tck;

import static io.distlock.tck.TckSupport.POLL;
import static io.distlock.tck.TckSupport.holdsThroughout;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static io.distlock.tck.TckSupport.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockProvider;
import io.distlock.tck.history.HistoryChecker;
import io.distlock.tck.history.HistoryRecorder;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 13, "Lease control": a lease time per lock handle, extension by the
 * owner, a delayed release, and who keeps those times ({@link Capabilities#leaseTiming()}), checked
 * both ways.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface LeaseControlRules extends RuleGroup {

    /**
     * TCK-13.1: a handle's own lease time, without renewal, on a client whose provider default is a
     * long renewed lease: the lease is valid for at most that time, is lost when it runs out, and
     * another client acquires within that time plus slack — never while the first could still
     * believe it held the lock.
     *
     * <p>If this fails, check that the per-attempt lease time ({@code AcquireContext.leaseTime()})
     * reaches the server (TTL, lease, session or connection timeout) rather than the provider's, and
     * that a lease that ran out is freed (on backends whose locks live with a session or connection,
     * the engine releases it: {@code HeldLock.release()} must work after the deadline).
     */
    @Test
    @DisplayName("TCK-13.1 a handle's own lease time ends a lease that is not renewed")
    default void tck_13_1_withLeaseTime_noRenewal_endsAndFreesTheLock() throws InterruptedException {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("handle-lease");
        Duration lease = tck.shortLease();
        HistoryRecorder history = new HistoryRecorder();
        long t0 = System.nanoTime();
        Lease held =
                present(a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire(), "TCK-13.1: tryAcquire");
        HistoryRecorder.Hold hold = history.acquired("short", held);
        hold.valid(held);
        assertThat(held.remainingValidity())
                .as("TCK-13.1: remaining validity of a %s lease on a client whose default is 30 s", lease)
                .isLessThanOrEqualTo(lease);
        Optional<Lease> next = b.lock(name).tryAcquire(lease.plus(tck.slack().multipliedBy(3)));
        Duration took = since(t0);
        Lease current = present(next, "TCK-13.1: another client's tryAcquire after a " + lease + " lease ran out");
        history.acquired("next", current);
        assertThat(took)
                .as("TCK-13.1: time until another client held the lock (lease %s)", lease)
                .isLessThanOrEqualTo(lease.plus(tck.slack()));
        await("TCK-13.1: the expired lease is invalid and lost() completed")
                .atMost(tck.slack())
                .pollInterval(POLL)
                .until(() ->
                        !held.isValid() && held.lost().toCompletableFuture().isDone());
        HistoryChecker.Result result = tck.checker().check(history.events());
        assertThat(result.ok())
                .as("TCK-13.1: the lock was granted while the first holder could still believe it held it: %s", result)
                .isTrue();
    }

    /**
     * TCK-13.2: {@code extend} by the owner keeps a lease that does not renew past its lease time,
     * exclusive; after release, {@code extend} throws {@link LeaseLostException}.
     *
     * <p>If this fails, check {@code HeldLock.extend} (an owner-checked TTL update, moving the
     * validity deadline to {@code ctx.validUntil(t, leaseTime)}), or, on backends whose locks live
     * with a session or connection, that nothing on the server (a connection timeout tied to the
     * lease) ends the hold before the extended time.
     */
    @Test
    @DisplayName("TCK-13.2 extend keeps a lease past its lease time")
    default void tck_13_2_extend_keepsTheLockPastItsLeaseTime() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("extend");
        Duration lease = tck.shortLease();
        Lease held =
                present(a.lock(name).withLeaseTime(lease).withAutoRenew(false).tryAcquire(), "TCK-13.2: tryAcquire");
        held.extend(lease.multipliedBy(4));
        long extended = System.nanoTime();
        assertThat(held.remainingValidity())
                .as("TCK-13.2: remaining validity after extend(%s)", lease.multipliedBy(4))
                .isGreaterThan(lease.multipliedBy(2));
        Duration beyond = lease.multipliedBy(2);
        holdsThroughout(
                "TCK-13.2: the extended lease stays valid and exclusive for " + beyond + " (twice its lease time)",
                extended,
                beyond,
                () -> held.isValid() && tryOnce(b, name));
        assertThat(held.release())
                .as("TCK-13.2: release() of the extended lease")
                .isTrue();
        assertThat(catchThrowable(() -> held.extend(lease)))
                .as("TCK-13.2: what extend() after release() threw")
                .isInstanceOf(LeaseLostException.class);
        present(b.lock(name).tryAcquire(), "TCK-13.2: another client's tryAcquire after the release");
    }

    /**
     * TCK-13.3: {@code extend} is owner-only: after the server dropped the lease ({@code
     * fixture.expireLease}) and another client acquired, the old holder's {@code extend} throws
     * {@link LeaseLostException}, reports the lease lost, and leaves the new holder's lock alone.
     *
     * <p>If this fails, check that the extension compares the owner on the server in the same
     * request that sets the time (a script, a transaction, a compare on the create revision).
     */
    @Test
    @DisplayName("TCK-13.3 extend after the lease was taken over fails and disturbs nobody")
    default void tck_13_3_extend_afterTakeover_throwsAndLeavesTheNewHolder() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        String name = tck.name("extend-owner");
        Lease old = present(a.lock(name).tryAcquire(), "TCK-13.3: tryAcquire");
        tck.hook("expireLease", () -> tck.fixture().expireLease(name));
        Lease current = tck.acquireEventually(b, name, "TCK-13.3: another client acquires after expireLease");
        assertThat(catchThrowable(() -> old.extend(Duration.ofSeconds(30))))
                .as("TCK-13.3: what extend() of a lease whose lock another client holds threw")
                .isInstanceOf(LeaseLostException.class);
        assertThat(old.isValid())
                .as("TCK-13.3: the old lease after a refused extension")
                .isFalse();
        await("TCK-13.3: lost() of the old lease completes")
                .atMost(tck.slack())
                .pollInterval(POLL)
                .until(() -> old.lost().toCompletableFuture().isDone());
        assertThat(current.isValid()).as("TCK-13.3: the new holder's lease").isTrue();
        assertThat(tryOnce(c, name))
                .as("TCK-13.3: a third client cannot acquire the new holder's lock")
                .isTrue();
        assertThat(current.release()).as("TCK-13.3: the new holder's release()").isTrue();
    }

    /**
     * TCK-13.4: {@code releaseAfter(delay)} ends the hold for the caller at once (invalid, {@code
     * lost()} cancelled, gone from {@code heldLeases()}) but keeps the lock taken until the delay has
     * passed; then another client acquires within the slack.
     *
     * <p>If this fails, check {@code HeldLock.releaseAfter} (an owner-checked TTL of {@code delay})
     * on backends that keep lease times on the server, or that the provider keeps the lock (and its
     * renewal) until the delay ends on the others.
     */
    @Test
    @DisplayName("TCK-13.4 releaseAfter keeps the lock taken for the delay")
    default void tck_13_4_releaseAfter_keepsTheLockForTheDelay_thenFreesIt() throws InterruptedException {
        TckSupport tck = support();
        LockProvider a = tck.shortClient();
        LockProvider b = tck.client();
        String name = tck.name("release-after");
        Duration delay = tck.shortLease().multipliedBy(2);
        Lease held = present(a.lock(name).tryAcquire(), "TCK-13.4: tryAcquire");
        long t0 = System.nanoTime();
        assertThat(held.releaseAfter(delay))
                .as("TCK-13.4: releaseAfter(%s) of a held lease", delay)
                .isTrue();
        assertThat(held.isValid()).as("TCK-13.4: the lease after releaseAfter").isFalse();
        assertThat(a.heldLeases())
                .as("TCK-13.4: heldLeases() after releaseAfter")
                .isEmpty();
        CompletableFuture<LeaseLostException> lost = held.lost().toCompletableFuture();
        assertThat(lost)
                .as("TCK-13.4: lost() after releaseAfter completes as a release does")
                .isCompletedExceptionally();
        Throwable ended = catchThrowable(lost::join);
        assertThat(ended instanceof CompletionException && ended.getCause() != null ? ended.getCause() : ended)
                .as("TCK-13.4: how lost() ended after releaseAfter")
                .isInstanceOf(CancellationException.class);
        Duration early = delay.minus(tck.slack().dividedBy(2));
        if (early.isNegative() || early.isZero()) {
            early = delay.dividedBy(2);
        }
        holdsThroughout(
                "TCK-13.4: the lock stays taken for most of the delay " + delay, t0, early, () -> tryOnce(b, name));
        Optional<Lease> next = b.lock(name).tryAcquire(delay.plus(tck.slack().multipliedBy(2)));
        present(next, "TCK-13.4: another client's tryAcquire after the delay");
        assertThat(since(t0))
                .as("TCK-13.4: time until another client held the lock after releaseAfter(%s)", delay)
                .isLessThanOrEqualTo(delay.plus(tck.slack()));
        assertThat(held.releaseAfter(delay))
                .as("TCK-13.4: a second releaseAfter")
                .isFalse();
    }

    /**
     * TCK-13.5: the declared lease timing, both ways. {@code SERVER}: a holder that calls {@code
     * releaseAfter(delay)} and crashes at once ({@code fixture.crashClient}) still keeps the lock
     * for most of the delay, and it is free within the delay plus slack. {@code CLIENT}: after the
     * same with a 30 s delay, another client acquires within the short lease plus slack, as after
     * any crash (TCK-7.1): the server did not keep the delay, which is what {@code CLIENT} says.
     *
     * <p>If this fails, check the declaration in {@code Capabilities.leaseTiming()}: {@code SERVER}
     * needs a per-lock time to live on the server ({@code HeldLock.releaseAfter}); a backend whose
     * locks live with a session or connection is {@code CLIENT}.
     */
    @Test
    @DisplayName("TCK-13.5 the declared lease timing holds when the holder crashes")
    default void tck_13_5_leaseTiming_declared_holdsAcrossACrash() throws InterruptedException {
        TckSupport tck = support();
        LockProvider a = tck.shortClient();
        LockProvider b = tck.client();
        String name = tck.name("lease-timing");
        Lease held = present(a.lock(name).tryAcquire(), "TCK-13.5: tryAcquire");
        boolean server = tck.caps().leaseTiming() == Capabilities.LeaseTiming.SERVER;
        Duration delay = server ? tck.shortLease().multipliedBy(3) : Duration.ofSeconds(30);
        long t0 = System.nanoTime();
        assertThat(held.releaseAfter(delay))
                .as("TCK-13.5: releaseAfter(%s)", delay)
                .isTrue();
        tck.hook("crashClient", () -> tck.fixture().crashClient(a));
        if (server) {
            Duration early = delay.minus(tck.slack());
            if (early.compareTo(tck.shortLease()) < 0) {
                early = tck.shortLease();
            }
            holdsThroughout(
                    "TCK-13.5 (SERVER): the lock stays taken after the holder crashed, for most of the delay " + delay,
                    t0,
                    early,
                    () -> tryOnce(b, name));
            present(
                    b.lock(name).tryAcquire(delay.plus(tck.slack().multipliedBy(2))),
                    "TCK-13.5 (SERVER): another client's tryAcquire after the delay");
            assertThat(since(t0)).isLessThanOrEqualTo(delay.plus(tck.slack()));
        } else {
            DistributedLock lock = b.lock(name);
            present(
                    lock.tryAcquire(tck.shortLease().plus(tck.slack().multipliedBy(3))),
                    "TCK-13.5 (CLIENT): another client's tryAcquire after the holder crashed during a 30 s"
                            + " releaseAfter (a backend that keeps the delay on the server declares SERVER)");
            assertThat(since(t0))
                    .as("TCK-13.5 (CLIENT): time until another client held the lock")
                    .isLessThanOrEqualTo(tck.shortLease().plus(tck.slack()));
        }
    }

    /**
     * TCK-13.6: {@code extend} of a lease that renews keeps it renewing, with the new lease time: it
     * stays valid and exclusive past the extended lease time; with {@code SERVER} lease timing its
     * remaining validity after renewals is still more than the provider's lease time.
     *
     * <p>If this fails, check that {@code HeldLock.extend} leaves the hold renewable (a lock or flag
     * it takes is given back) and that later renewals set the extension's lease time, not the
     * attempt's.
     */
    @Test
    @DisplayName("TCK-13.6 a renewing lease keeps renewing after extend, with the new lease time")
    default void tck_13_6_extend_renewingLease_keepsRenewingWithTheNewLeaseTime() {
        TckSupport tck = support();
        LockProvider a = tck.shortClient();
        LockProvider b = tck.client();
        String name = tck.name("extend-renewing");
        Duration lease = tck.shortLease();
        Duration extended = lease.multipliedBy(3);
        Lease held = present(a.lock(name).tryAcquire(), "TCK-13.6: tryAcquire");
        held.extend(extended);
        long t0 = System.nanoTime();
        Duration window = lease.multipliedBy(4);
        holdsThroughout(
                "TCK-13.6: the renewing lease extended to " + extended + " stays valid and exclusive for " + window
                        + " (past the extended lease time: only renewals keep it)",
                t0,
                window,
                () -> held.isValid() && tryOnce(b, name));
        if (tck.caps().leaseTiming() == Capabilities.LeaseTiming.SERVER) {
            assertThat(held.remainingValidity())
                    .as(
                            "TCK-13.6 (SERVER): remaining validity after renewals of a lease extended to %s (a"
                                    + " renewal that sets the provider's lease time %s again leaves less)",
                            extended, lease)
                    .isGreaterThan(lease);
        }
        assertThat(held.release())
                .as("TCK-13.6: release() of the extended lease")
                .isTrue();
    }

    /**
     * TCK-13.7: {@code releaseAfter} is owner-only: after the server dropped the lease ({@code
     * fixture.expireLease}) and another client acquired, the old holder's {@code releaseAfter}
     * leaves the new holder's lock alone and the old lease invalid; with {@code SERVER} lease timing
     * (one owner-checked request) it returns {@code false}.
     *
     * <p>If this fails, check that {@code HeldLock.releaseAfter} compares the owner on the server in
     * the request that sets the delay, and returns what the server answered.
     */
    @Test
    @DisplayName("TCK-13.7 releaseAfter after the lease was taken over returns false and disturbs nobody")
    default void tck_13_7_releaseAfter_afterTakeover_returnsFalseAndLeavesTheNewHolder() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        String name = tck.name("release-after-owner");
        Lease old = present(a.lock(name).tryAcquire(), "TCK-13.7: tryAcquire");
        tck.hook("expireLease", () -> tck.fixture().expireLease(name));
        Lease current = tck.acquireEventually(b, name, "TCK-13.7: another client acquires after expireLease");
        boolean owned = old.releaseAfter(tck.shortLease());
        if (tck.caps().leaseTiming() == Capabilities.LeaseTiming.SERVER) {
            assertThat(owned)
                    .as("TCK-13.7 (SERVER): releaseAfter() of a lease whose lock another client holds")
                    .isFalse();
        }
        assertThat(old.isValid())
                .as("TCK-13.7: the old lease after releaseAfter")
                .isFalse();
        long t0 = System.nanoTime();
        holdsThroughout(
                "TCK-13.7: the new holder keeps its lock past the old holder's delay " + tck.shortLease(),
                t0,
                tck.shortLease().plus(tck.slack()),
                () -> current.isValid() && tryOnce(c, name));
        assertThat(current.release()).as("TCK-13.7: the new holder's release()").isTrue();
    }
}
