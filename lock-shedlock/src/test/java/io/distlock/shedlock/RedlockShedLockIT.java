package io.distlock.shedlock;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.UnsupportedCapabilityException;
import io.distlock.testing.servers.SharedBackends;
import io.distlock.testing.servers.SharedBackends.Backend;
import java.time.Duration;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's provider suite on Redlock (three independent masters, node timeout 200 ms). Redlock
 * cannot hold a lease shorter than about twice its node timeout; the two tests that lock for 2 ms and
 * 50 ms then expect the adapter to refuse with an {@link IllegalArgumentException} naming the value and
 * the backend's minimum, once the provider refuses such a per-handle lease time (a provider that still
 * accepts it runs ShedLock's test as written).
 */
class RedlockShedLockIT extends ShedLockSuite {
    @Override
    Backend backend() {
        return Backend.REDLOCK;
    }

    @Override
    String query() {
        return "nodeTimeout=200ms";
    }

    @Test
    @Override
    public void shouldTimeout() throws InterruptedException {
        if (refuses(Duration.ofMillis(50))) {
            assertRefused(Duration.ofMillis(50));
        } else {
            super.shouldTimeout();
        }
    }

    @Test
    @Override
    public void shouldNotBeAbleToExtendExpiredLock() {
        if (refuses(Duration.ofMillis(2))) {
            assertRefused(Duration.ofMillis(2));
        } else {
            super.shouldNotBeAbleToExtendExpiredLock();
        }
    }

    @Test
    void currentToken_withoutFencing_throwsUnsupportedCapability() {
        String name = UUID.randomUUID().toString();
        try (LockProvider noFencing =
                LockProviders.open(SharedBackends.uri(Backend.REDLOCK, query() + "&fencing=false"))) {
            new DefaultLockingTaskExecutor(DistlockShedLockProvider.create(noFencing))
                    .executeWithLock(
                            (Runnable) () -> assertThatThrownBy(DistlockLockAssert::currentToken)
                                    .isInstanceOf(UnsupportedCapabilityException.class)
                                    .hasMessageContaining("no fencing tokens")
                                    .hasMessageContaining(name)
                                    .hasMessageContaining("redlock"),
                            new LockConfiguration(ClockProvider.now(), name, Duration.ofSeconds(10), Duration.ZERO));
        }
    }

    private static boolean refuses(Duration lockAtMostFor) {
        try {
            locks().lock("probe").withLeaseTime(DistlockShedLockProvider.leaseTime(lockAtMostFor));
            return false;
        } catch (IllegalArgumentException e) {
            return true;
        }
    }

    private void assertRefused(Duration lockAtMostFor) {
        String name = UUID.randomUUID().toString();
        assertThatThrownBy(() -> getLockProvider()
                        .lock(new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor " + lockAtMostFor)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining("redlock");
        assertUnlocked(name);
    }
}
