package io.distlock.tck;

import static io.distlock.tck.TckSupport.POLL;
import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockProvider;
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
}
