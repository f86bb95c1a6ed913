package io.distlock.tck;

import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.requireCapability;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 9, "Fencing": fencing tokens as declared: present and strictly
 * increasing per lock (or across locks), absent for {@code Fencing.NONE}, and a stale holder fenced
 * off at a guard.
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface FencingRules extends RuleGroup {
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
    default void tck_9_1_fencingTokens_successiveHolders_increaseAsDeclared() {
        TckSupport tck = support();
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String name = tck.name("tokens");
        Capabilities.Fencing fencing = tck.caps().fencing();
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
    default void tck_9_2_fencingTokens_twoLocks_increaseGlobally() {
        TckSupport tck = support();
        requireCapability(
                tck.caps().fencing() == Capabilities.Fencing.GLOBALLY_MONOTONIC,
                "fencing is " + tck.caps().fencing() + ", not GLOBALLY_MONOTONIC");
        LockProvider a = tck.client();
        LockProvider b = tck.client();
        String x = tck.name("global-x");
        String y = tck.name("global-y");
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
    default void tck_9_3_staleHolder_fencedOffByGuard() {
        TckSupport tck = support();
        requireCapability(tck.caps().fencing().present(), "fencing is NONE");
        LockProvider a = tck.noRenewClient();
        LockProvider b = tck.client();
        String name = tck.name("fenced");
        InMemoryFencingGuard guard = new InMemoryFencingGuard();
        String resource = "resource-of-" + name;
        Lease stale = present(a.lock(name).tryAcquire(), "TCK-9.3: tryAcquire");
        long t1 = stale.fencingToken().orElseThrow();
        guard.check(resource, t1);
        tck.loseOnServer(name, a);
        Lease current =
                tck.acquireEventually(b, name, "TCK-9.3: another client acquires after the first lease expired");
        long t2 = current.fencingToken().orElseThrow();
        assertThat(t2)
                .as("TCK-9.3: token of the next holder after %s", tck.describe(stale))
                .isGreaterThan(t1);
        guard.check(resource, t2);
        assertThatThrownBy(() -> guard.check(resource, t1))
                .as("TCK-9.3: the stale holder's write with token %d after token %d wrote", t1, t2)
                .isInstanceOf(StaleTokenException.class);
        assertThat(guard.lastAccepted(resource)).hasValue(t2);
    }
}
