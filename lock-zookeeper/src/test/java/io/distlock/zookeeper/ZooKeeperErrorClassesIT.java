package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The error classes against a ZooKeeper server process: wrong credentials (the fixture's {@code
 * newClientWithWrongCredentials}: the right user with a wrong password under a root whose ACL only
 * the right identity may write) are a {@link LockConfigurationException} at once, never retried
 * within the caller's wait; a stopped server is a {@link BackendUnavailableException}.
 */
@Timeout(120)
class ZooKeeperErrorClassesIT {
    private static final LockOptions SHORT =
            LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build();
    private static final Duration WAIT = Duration.ofSeconds(10);

    private static ZooKeeperFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = ZooKeeperFixture.serverProcess();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    private static String name(TestInfo info) {
        return "errors/" + info.getTestMethod().orElseThrow().getName();
    }

    @Test
    void wrongCredentials_tryAcquireWithWait_configurationErrorWellUnderTheWait(TestInfo info) throws Exception {
        String name = name(info);
        try (LockProvider wrong = fixture.newClientWithWrongCredentials(SHORT)) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> wrong.lock(name).tryAcquire(WAIT))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("NoAuth")
                    .hasMessageContaining(name)
                    .hasMessageNotContaining(ZooKeeperFixture.RIGHT_PASSWORD);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        }
        // the same root with the right password works: the refusal was the credentials'
        ZooKeeperLockOptions right = fixture.options()
                .rootPath(ZooKeeperFixture.AUTHENTICATED_ROOT)
                .credentials(Credentials.of(ZooKeeperFixture.AUTH_USER, ZooKeeperFixture.RIGHT_PASSWORD))
                .build();
        try (LockProvider p = fixture.newClient(SHORT, right)) {
            Lease lease = p.lock(name).tryAcquire(WAIT).orElseThrow();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void serverStopped_tryAcquireAndOpen_backendUnavailable(TestInfo info) throws Exception {
        String name = name(info);
        try (LockProvider p = fixture.newClient(SHORT)) {
            p.lock(name).tryAcquire().orElseThrow().release();
            fixture.stopServer();
            try {
                assertThatThrownBy(() -> p.lock(name).tryAcquire(Duration.ofSeconds(1)))
                        .isInstanceOf(BackendUnavailableException.class);
                assertThatThrownBy(() -> fixture.newClient(SHORT)).isInstanceOf(BackendUnavailableException.class);
            } finally {
                fixture.startServer();
            }
        }
    }
}
