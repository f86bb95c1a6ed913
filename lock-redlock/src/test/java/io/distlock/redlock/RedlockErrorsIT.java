package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.TimeoutOptions;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which failure is which, on three password-protected masters: wrong credentials are a
 * configuration error at once (never retried within the caller's wait), stopped nodes an outage.
 */
@Timeout(60)
class RedlockErrorsIT {
    private static final String PASSWORD = "errors-Pw-4b7c";

    private static RedlockLockProvider client(RedisServers nodes, String password) {
        return RedlockLockProvider.builder()
                .nodes(List.of(nodes.addresses().split(",")))
                .options(RedlockLockOptions.builder()
                        .credentials(Credentials.password(password))
                        .nodeTimeout(Duration.ofMillis(200))
                        .timeouts(TimeoutOptions.of(Duration.ofMillis(300)))
                        .build())
                .leaseTime(Duration.ofSeconds(2))
                .build();
    }

    @Test
    void tryAcquire_wrongPasswordOnEveryNode_configurationErrorWellWithinTheWait() {
        try (RedisServers nodes = RedisServers.independentMasters(3, b -> b.password(PASSWORD));
                RedlockLockProvider p = client(nodes, "wrong-" + PASSWORD)) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> p.lock("errors/wrong").tryAcquire(Duration.ofSeconds(5)))
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("Redlock nodes refused the credentials, a permission or the TLS trust")
                    .hasMessageContaining("errors/wrong")
                    .satisfies(e -> assertThat(LogCapture.fullText(e))
                            .contains("WRONGPASS")
                            .doesNotContain(PASSWORD));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1000));
        }
    }

    @Test
    void tryAcquire_everyNodeStopped_backendUnavailable() throws Exception {
        try (RedisServers nodes = RedisServers.independentMasters(3, b -> b.password(PASSWORD));
                RedlockLockProvider p = client(nodes, PASSWORD)) {
            assertThat(p.lock("errors/stopped")
                            .tryAcquire(Duration.ofSeconds(5))
                            .orElseThrow()
                            .release())
                    .isTrue();
            nodes.servers().forEach(RedisServer::kill);
            assertThatThrownBy(() -> p.lock("errors/stopped").tryAcquire(Duration.ofMillis(500)))
                    .isInstanceOf(BackendUnavailableException.class);
        }
    }
}
