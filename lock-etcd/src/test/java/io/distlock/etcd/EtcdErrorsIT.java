package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The two error classes on a member that requires authentication: wrong credentials are a {@link
 * LockConfigurationException} at once, even inside a long wait; a stopped server is a {@link
 * BackendUnavailableException}, retried until the wait is over.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EtcdErrorsIT {
    private static final Duration LONG_WAIT = Duration.ofSeconds(20);

    private EtcdTckFixture fixture;

    @BeforeAll
    void start() {
        EtcdTestServer server = EtcdTestServer.start();
        fixture = EtcdTckFixture.authenticating(List.of(server.endpoint()), server);
    }

    @AfterAll
    void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static LockOptions lease() {
        return LockOptions.defaults().mutate().leaseTime(Duration.ofSeconds(3)).build();
    }

    @Test
    void wrongPassword_tryAcquireWithLongWait_configurationErrorWellUnderTheWait() {
        try (LockProvider p = fixture.newClientWithWrongCredentials(lease())) {
            long t0 = System.nanoTime();
            Throwable t = catchThrowable(() -> p.lock("wrong-password").tryAcquire(LONG_WAIT));
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(t)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("refused the credentials")
                    .hasMessageNotContaining(EtcdTckFixture.PASSWORD);
            assertThat(tookMs).as("failed after %d ms", tookMs).isLessThan(LONG_WAIT.toMillis() / 10);
        }
    }

    @Test
    void rightPassword_acquiresAndReleases() throws Exception {
        try (LockProvider p = fixture.newClient(lease())) {
            Lease l = p.lock("right-password").tryAcquire(LONG_WAIT).orElseThrow();
            assertThat(l.fencingToken()).isPresent();
            assertThat(l.release()).isTrue();
        }
    }

    @Test
    void serverStopped_tryAcquireWithWait_backendUnavailableAfterRetryingForTheWait() {
        Duration wait = Duration.ofSeconds(2);
        try (LockProvider p = fixture.newClient(lease())) {
            p.lock("warm-up").tryAcquire().orElseThrow().release();
            fixture.stopServer();
            try {
                long t0 = System.nanoTime();
                Throwable t = catchThrowable(() -> p.lock("server-stopped").tryAcquire(wait));
                long tookMs = (System.nanoTime() - t0) / 1_000_000;
                assertThat(t).isInstanceOf(BackendUnavailableException.class);
                assertThat(tookMs).isGreaterThanOrEqualTo(wait.toMillis());
            } finally {
                fixture.startServer();
            }
        }
    }
}
