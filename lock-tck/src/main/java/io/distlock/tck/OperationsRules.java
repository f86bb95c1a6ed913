package io.distlock.tck;

import static io.distlock.tck.TckSupport.present;
import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 11, "Operations": {@code heldLeases()} and {@code releaseAll()} see
 * and release exactly this client's leases.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface OperationsRules extends RuleGroup {
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
    default void tck_11_1_heldLeasesAndReleaseAll_listAndReleaseOnlyThisClientsLeases() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String n1 = tck.name("admin-1");
        String n2 = tck.name("admin-2");
        String n3 = tck.name("admin-other");
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
                    .isBetween(before.minus(tck.slack()), after.plus(tck.slack()));
            assertThat(listed.validUntil())
                    .as("TCK-11.1: validUntil of listed %s", listed.lockName())
                    .isAfter(Instant.now())
                    .isBefore(Instant.now().plus(LockOptions.DEFAULT_LEASE_TIME).plus(tck.slack()));
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
        assertThat(tck.client().lock(n3).tryAcquire())
                .as("TCK-11.1: a third client's tryAcquire of the other client's lock after releaseAll()")
                .isEmpty();
        assertThat(b.heldLeases().stream().map(Lease::lockName).sorted().toList())
                .as("TCK-11.1: the other client's heldLeases()")
                .containsExactlyInAnyOrder(n1, n3);
        assertThat(a.releaseAll()).as("TCK-11.1: a second releaseAll()").isZero();
    }
}
