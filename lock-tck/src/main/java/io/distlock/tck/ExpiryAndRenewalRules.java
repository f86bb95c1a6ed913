package io.distlock.tck;

import static io.distlock.tck.TckSupport.POLL;
import static io.distlock.tck.TckSupport.holdsThroughout;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.requireCapability;
import static io.distlock.tck.TckSupport.since;
import static io.distlock.tck.TckSupport.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.tck.history.HistoryChecker;
import io.distlock.tck.history.HistoryRecorder;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 7, "Expiry and renewal": a crashed holder's lease expires on the
 * server, renewal keeps a long hold, and without renewal a lease runs out.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface ExpiryAndRenewalRules extends RuleGroup {
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
    default void tck_7_1_crashedHolder_leaseExpires_otherAcquires() throws InterruptedException {
        TckSupport tck = support();
        LockProvider a = tck.shortClient();
        LockProvider b = tck.shortClient();
        String name = tck.name("crash");
        HistoryRecorder history = new HistoryRecorder();
        Lease old = present(a.lock(name).tryAcquire(), "TCK-7.1: tryAcquire");
        HistoryRecorder.Hold oldHold = history.acquired("crashed", old);
        oldHold.valid(old);
        tck.hook("crashClient", () -> tck.fixture().crashClient(a));
        long t0 = System.nanoTime();
        Optional<Lease> next =
                b.lock(name).tryAcquire(tck.shortLease().plus(tck.slack().multipliedBy(3)));
        Duration took = since(t0);
        Lease current = present(
                next, "TCK-7.1: another client's tryAcquire after the holder crashed (lease " + tck.shortLease() + ")");
        history.acquired("survivor", current);
        assertThat(took)
                .as("TCK-7.1: time to acquire after the holder crashed (lease %s)", tck.shortLease())
                .isLessThanOrEqualTo(tck.shortLease().plus(tck.slack()));
        HistoryChecker.Result result = tck.checker().check(history.events());
        assertThat(result.ok())
                .as("TCK-7.1: the lock was granted while the crashed holder could still believe it held it: %s", result)
                .isTrue();
        if (tck.caps().fencing().present()) {
            assertThat(current.fencingToken().getAsLong())
                    .as("TCK-7.1: fencing token after a crashed holder (%s)", tck.describe(old))
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
    default void tck_7_2_renewal_longHold_staysValidAndExclusive() {
        TckSupport tck = support();
        requireCapability(
                tck.caps().automaticRenewal(), "automaticRenewal is not declared (TCK-7.3 checks the absence)");
        LockProvider a = tck.shortClient();
        LockProvider b = tck.client();
        String name = tck.name("renewal");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-7.2: tryAcquire");
        long t0 = System.nanoTime();
        Duration hold = tck.shortLease().multipliedBy(4);
        holdsThroughout(
                "TCK-7.2: the lease stays valid and exclusive for " + hold + " (4 lease lengths)",
                t0,
                hold,
                () -> lease.isValid() && tryOnce(b, name));
        assertThat(lease.release()).as("TCK-7.2: release() after the long hold").isTrue();
    }

    /**
     * TCK-7.3: {@code autoRenew=false} means the same on every backend: the client declares {@code
     * automaticRenewal=false}, and a lease held past its lease time is lost (invalid, {@code lost()}
     * complete) and another client acquires.
     *
     * <p>If this fails, check that {@code autoRenew=false} really disables renewal (a session
     * backend's lease ends at its lease time: the engine ends it), and the server-side TTL.
     */
    @Test
    @DisplayName("TCK-7.3 without renewal a lease held past its lease time is lost")
    default void tck_7_3_noRenewal_leaseHeldPastLeaseTime_isLost() {
        TckSupport tck = support();
        LockProvider a = tck.noRenewClient();
        assertThat(a.capabilities().automaticRenewal())
                .as("TCK-7.3: automaticRenewal declared by a client opened with autoRenew=false")
                .isFalse();
        LockProvider b = tck.client();
        String name = tck.name("no-renewal");
        Lease lease = present(a.lock(name).tryAcquire(), "TCK-7.3: tryAcquire");
        await("TCK-7.3: a lease that is not renewed becomes invalid after its lease time " + tck.shortLease())
                .atMost(tck.shortLease().plus(tck.slack()))
                .pollInterval(POLL)
                .until(() ->
                        !lease.isValid() && lease.lost().toCompletableFuture().isDone());
        tck.acquireEventually(b, name, "TCK-7.3: another client acquires after the lease ran out");
        assertThat(lease.release()).as("TCK-7.3: release() of the lost lease").isFalse();
    }

    /**
     * TCK-7.4: a renewal gives the server the whole lease time: a short-lease holder is crashed
     * ({@code fixture.crashClient}) after two renewals (or, on a backend whose session renews
     * without the engine, after three renewal intervals plus the slack), and another client acquires within the
     * lease time plus slack, but not before the crashed holder's last known validity deadline — the
     * one its latest renewal gave it (history check). TCK-7.1 crashes a holder before its first
     * renewal. Needs {@code automaticRenewal} and the hook.
     *
     * <p>If this fails, check the renew primitive: it must set the server-side time to live to the
     * full lease time ({@code ctx.leaseTime()}), the same the acquisition set, not a fraction of it or
     * a fixed value; a session backend's keepalive must keep the session for the lease time.
     */
    @Test
    @DisplayName("TCK-7.4 a holder crashed after renewals keeps the lock until its renewed deadline")
    default void tck_7_4_holderCrashedAfterRenewals_lockKeptUntilRenewedDeadline() throws InterruptedException {
        TckSupport tck = support();
        requireCapability(tck.caps().automaticRenewal(), "automaticRenewal is not declared (no renewal to check)");
        AtomicInteger renewals = new AtomicInteger();
        LockOptions options = LockOptions.builder()
                .leaseTime(tck.shortLease())
                .observer(TckSupport.countingRenewals(renewals))
                .build();
        LockProvider a = tck.open(options);
        LockProvider b = tck.shortClient();
        String name = tck.name("crash-renewed");
        HistoryRecorder history = new HistoryRecorder();
        Lease old = present(a.lock(name).tryAcquire(), "TCK-7.4: tryAcquire");
        HistoryRecorder.Hold oldHold = history.acquired("crashed", old);
        long t0 = System.nanoTime();
        long interval = (long) (options.leaseTime().toNanos() * options.renewalFraction());
        // a watchdog reports its second renewal after two intervals; a session that renews without
        // the engine reports none, and the rule goes on after three intervals plus the slack
        long noRenewalReported = 3 * interval + tck.slack().toNanos();
        await("TCK-7.4: two renewals (or three renewal intervals plus slack where the session renews)")
                .atMost(Duration.ofNanos(noRenewalReported).plus(tck.slack()))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> renewals.get() >= 2 || System.nanoTime() - t0 >= noRenewalReported);
        assertThat(old.isValid())
                .as("TCK-7.4: the renewed lease before the crash (%d renewals)", renewals.get())
                .isTrue();
        oldHold.valid(old);
        tck.hook("crashClient", () -> tck.fixture().crashClient(a));
        long crashedAt = System.nanoTime();
        Optional<Lease> next =
                b.lock(name).tryAcquire(tck.shortLease().plus(tck.slack().multipliedBy(3)));
        Duration took = since(crashedAt);
        Lease current = present(
                next,
                "TCK-7.4: another client's tryAcquire after the renewed holder crashed (lease " + tck.shortLease()
                        + ")");
        history.acquired("survivor", current);
        HistoryChecker.Result result = tck.checker().check(history.events());
        assertThat(result.ok())
                .as(
                        "TCK-7.4: the lock was granted while the holder crashed after %d renewal(s) could still"
                                + " believe it held it (a renewal gave the server less than the lease time?): %s",
                        renewals.get(), result)
                .isTrue();
        assertThat(took)
                .as("TCK-7.4: time to acquire after the renewed holder crashed (lease %s)", tck.shortLease())
                .isLessThanOrEqualTo(tck.shortLease().plus(tck.slack()));
    }
}
