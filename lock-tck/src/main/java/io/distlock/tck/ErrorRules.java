package io.distlock.tck;

import static io.distlock.tck.TckSupport.present;
import static io.distlock.tck.TckSupport.since;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.fail;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The rules of SPEC.md section 12, "Errors": a failure is reported as what it is. Wrong credentials
 * are a configuration error ({@link LockConfigurationException}), reported at once and never
 * retried; an outage is {@link BackendUnavailableException}, which callers may retry (TCK-10.1 checks
 * that side, with the server stopped).
 *
 * <p>Part of {@link LockProviderTck}, which implements every rule group; see {@link RuleGroup}.
 */
public interface ErrorRules extends RuleGroup {

    /**
     * TCK-12.1: a client that presents wrong credentials ({@link
     * TckFixture#newClientWithWrongCredentials}) fails with {@link LockConfigurationException} —
     * when it is opened, or on {@code tryAcquire(5 s)} — within 1 s plus the slack, which shows the
     * failure was not retried (a retried failure takes the whole 5 s wait); never with {@link
     * BackendUnavailableException} and never with an empty result (which would claim someone holds
     * the lock). Afterwards, clients with the right credentials, opened before and after, acquire
     * the lock. Skipped, with the fixture's reason, when the hook is unsupported.
     *
     * <p>If this fails, check how the driver maps the server's authentication error (Redis {@code
     * WRONGPASS} or {@code NOAUTH}, ZooKeeper {@code AuthFailed} or {@code NoAuth}, etcd
     * "authentication failed", MySQL error 1045 "Access denied"): it must become {@link LockConfigurationException} before
     * the engine sees it, not {@link BackendUnavailableException} (which the engine retries until the
     * wait runs out), and the client library must not retry it on its own (reconnect loops, retry
     * policies); also that the failed client leaves no shared state (pool, cache, session) that
     * breaks the other clients.
     */
    @Test
    @DisplayName("TCK-12.1 wrong credentials fail at once with LockConfigurationException, not retried")
    default void tck_12_1_wrongCredentials_failAtOnceWithConfigurationError() throws InterruptedException {
        TckSupport tck = support();
        LockProvider good = tck.client();
        String name = tck.name("wrong-credentials");
        Duration wait = Duration.ofSeconds(5);
        Duration bound = Duration.ofSeconds(1).plus(tck.slack());
        String step = "opening a client with wrong credentials";
        RuntimeException failure = null;
        LockProvider bad = null;
        long t0 = System.nanoTime();
        try {
            bad = tck.closeAfterRule(Objects.requireNonNull(
                    tck.fixture().newClientWithWrongCredentials(LockOptions.defaults()),
                    "fixture.newClientWithWrongCredentials returned null"));
        } catch (UnsupportedHookException e) {
            throw tck.skip(e);
        } catch (RuntimeException e) {
            failure = e;
        }
        if (bad != null) {
            step = "tryAcquire(" + wait.toSeconds() + "s) on a client opened with wrong credentials";
            t0 = System.nanoTime();
            try {
                Optional<Lease> got = bad.lock(name).tryAcquire(wait);
                fail("TCK-12.1: " + step + " returned "
                        + (got.isPresent()
                                ? "a lease: the server accepted the wrong credentials (does the fixture's server"
                                        + " require authentication?)"
                                : "empty, which claims another client holds the lock")
                        + "; expected LockConfigurationException");
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        Duration took = since(t0);
        assertThat(failure)
                .as(
                        "TCK-12.1: %s failed after %s; it must fail with LockConfigurationException (a configuration"
                                + " error, reported at once), never BackendUnavailableException (an outage, which"
                                + " callers retry)",
                        step, took)
                .isInstanceOf(LockConfigurationException.class)
                .isNotInstanceOf(BackendUnavailableException.class);
        assertThat(took)
                .as(
                        "TCK-12.1: %s failed after %s: a configuration error must not be retried (bound %s)",
                        step, took, bound)
                .isLessThanOrEqualTo(bound);
        if (bad != null) {
            assertThatCode(bad::close)
                    .as("TCK-12.1: close() of the client opened with wrong credentials")
                    .doesNotThrowAnyException();
        }
        Lease before = present(
                good.lock(name).tryAcquire(),
                "TCK-12.1: tryAcquire() by a client with the right credentials, opened before the failure");
        assertThat(before.release()).as("TCK-12.1: release() by that client").isTrue();
        Lease after = present(
                tck.client().lock(name).tryAcquire(),
                "TCK-12.1: tryAcquire() by a client with the right credentials, opened after the failure");
        assertThat(after.release()).as("TCK-12.1: release() by that client").isTrue();
    }
}
