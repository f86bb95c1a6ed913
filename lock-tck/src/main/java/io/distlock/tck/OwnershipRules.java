package io.distlock.tck;

import static io.distlock.tck.TckSupport.POLL;
import static io.distlock.tck.TckSupport.holdsThroughout;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.requireCapability;
import static io.distlock.tck.TckSupport.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockProvider;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 6, "Ownership": release and renewal are owner-only: a holder whose
 * lease expired on the server can neither free nor revive the next holder's lock.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface OwnershipRules extends RuleGroup {
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
    default void tck_6_1_release_afterExpiryAndNewHolder_returnsFalseAndNewHolderKeeps() {
        TckSupport tck = support();
        LockProvider a = tck.noRenewClient();
        LockProvider b = tck.client();
        LockProvider c = tck.client();
        String name = tck.name("owner-release");
        Lease old = present(a.lock(name).tryAcquire(), "TCK-6.1: tryAcquire");
        tck.loseOnServer(name, a);
        Lease current =
                tck.acquireEventually(b, name, "TCK-6.1: another client acquires after the holder's lease expired");
        assertThat(old.release())
                .as(
                        "TCK-6.1: release() by the expired holder %s while %s holds",
                        tck.describe(old), tck.describe(current))
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
     * TCK-6.2: renewal is owner-only: after {@code tck.fixture().expireLease} dropped a renewing holder
     * and another client acquired, the old holder's lease is reported lost, and its renewals neither
     * revive it nor disturb the new holder over several renewal intervals.
     *
     * <p>If this fails, check the renew primitive: extend only if the stored owner is the lease's
     * own (compare-and-expire), never re-create a missing lock; report {@code false} otherwise.
     */
    @Test
    @DisplayName("TCK-6.2 renewal by an expired holder neither revives it nor disturbs the new holder")
    default void tck_6_2_renewal_afterExpiryAndNewHolder_doesNotRevive() {
        TckSupport tck = support();
        requireCapability(tck.caps().automaticRenewal(), "automaticRenewal is not declared (no renewal to check)");
        LockProvider a = tck.shortClient();
        LockProvider b = tck.shortClient();
        LockProvider c = tck.client();
        String name = tck.name("owner-renew");
        Lease old = present(a.lock(name).tryAcquire(), "TCK-6.2: tryAcquire");
        tck.hook("expireLease", () -> tck.fixture().expireLease(name));
        Lease current = tck.acquireEventually(
                b,
                name,
                "TCK-6.2: another client acquires after tck.fixture().expireLease (the old holder's renewal re-took the"
                        + " lock?)");
        await("TCK-6.2: the old holder's lost() completes (its renewal must find another owner)")
                .atMost(tck.shortLease().plus(tck.slack()))
                .pollInterval(POLL)
                .until(() -> old.lost().toCompletableFuture().isDone());
        Duration watch = tck.shortLease().multipliedBy(3);
        holdsThroughout(
                "TCK-6.2: the new holder keeps exclusive ownership for " + watch + " (3 lease lengths)",
                System.nanoTime(),
                watch,
                () -> current.isValid() && !old.isValid() && tryOnce(c, name));
        assertThat(current.release()).as("TCK-6.2: the new holder's release()").isTrue();
    }
}
