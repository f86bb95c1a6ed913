package io.distlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.testing.servers.SharedBackends;
import io.distlock.testing.servers.SharedBackends.Backend;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's own provider suite ({@code shedlock-test-support}: {@code
 * AbstractExtensibleLockProviderIntegrationTest}, which runs {@code AbstractLockProviderIntegrationTest}
 * and the {@code FuzzTester}) on {@link DistlockShedLockProvider} over one backend. The suite's {@code
 * assertLocked}/{@code assertUnlocked} ask a second, independent provider (another client of the same
 * server) whether it can take the lock. The backend's server is shared by the module's test classes
 * ({@link SharedBackends}); the two providers are opened once per class.
 *
 * <p>The two tests that wait past the lease time a lock was acquired with after extending it skip,
 * saying so, where the backend's provider does not keep an extension beyond that lease time yet
 * (checked once per class on a lock of its own).
 */
abstract class ShedLockSuite extends AbstractExtensibleLockProviderIntegrationTest {
    private static Backend openFor;
    private static LockProvider locks;
    private static LockProvider otherClient;
    private static DistlockShedLockProvider shedLock;
    private static Boolean extensionHolds;

    /** The backend this class runs the suite on. */
    abstract Backend backend();

    /** Query parameters of the providers' URI. */
    String query() {
        return "";
    }

    @BeforeEach
    void openProviders() {
        if (openFor != backend()) {
            closeProviders();
            locks = LockProviders.open(SharedBackends.uri(backend(), query()));
            otherClient = LockProviders.open(SharedBackends.uri(backend(), query()));
            shedLock = DistlockShedLockProvider.create(locks);
            openFor = backend();
        }
    }

    @AfterAll
    static void closeProviders() {
        if (locks != null) {
            locks.close();
            otherClient.close();
        }
        locks = null;
        otherClient = null;
        openFor = null;
        extensionHolds = null;
    }

    /** The distlock provider under the ShedLock provider. */
    static LockProvider locks() {
        return locks;
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return shedLock;
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(otherClientCanTake(lockName))
                .as("another client can take '%s' on %s", lockName, backend())
                .isTrue();
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(otherClientCanTake(lockName))
                .as("another client cannot take '%s' on %s", lockName, backend())
                .isFalse();
    }

    private static boolean otherClientCanTake(String lockName) {
        Optional<Lease> lease = otherClient.lock(lockName).tryAcquire();
        lease.ifPresent(Lease::release);
        return lease.isPresent();
    }

    @Test
    @Override
    public void shouldBeAbleToExtendLock() {
        assumeExtensionHolds();
        super.shouldBeAbleToExtendLock();
    }

    @Test
    @Override
    public void shouldBeAbleToExtendMultipleTimes() {
        assumeExtensionHolds();
        super.shouldBeAbleToExtendMultipleTimes();
    }

    /**
     * Skips unless a lease acquired for 300 ms without renewal and extended to 5 s is still valid
     * after 500 ms on this backend.
     */
    private void assumeExtensionHolds() {
        if (extensionHolds == null) {
            Lease lease = locks.lock("extension-probe-" + UUID.randomUUID())
                    .withLeaseTime(Duration.ofMillis(300))
                    .withAutoRenew(false)
                    .tryAcquire()
                    .orElseThrow();
            try {
                lease.extend(Duration.ofSeconds(5));
                sleepFor(Duration.ofMillis(500)); // past the lease time it was acquired with
                extensionHolds = lease.isValid();
            } finally {
                lease.release();
            }
        }
        assumeTrue(
                extensionHolds,
                backend().label() + "'s provider does not keep Lease.extend beyond the lease time the lock was"
                        + " acquired with yet (its driver leaves extension to the engine, whose client-kept"
                        + " deadline cannot pass the driver's)");
    }
}
