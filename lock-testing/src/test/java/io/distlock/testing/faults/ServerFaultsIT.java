package io.distlock.testing.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.testing.servers.RedisServer;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ServerFaultsIT {

    @Test
    void pauseFault_boundReached_serverAnswersAgainByItself() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            try (Fault pause = Faults.pause(redis, Duration.ofMillis(400))) {
                long start = System.nanoTime();
                assertThat(redis.call("PING")).isEqualTo("PONG"); // blocks until the bound resumes it
                assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(300L);
                assertThat(pause.isActive()).isFalse();
            }
        }
    }

    @Test
    void killFault_closed_serverRestartedOnSamePortWithData() throws Exception {
        try (RedisServer redis = RedisServer.builder().durable(true).start()) {
            int port = redis.port();
            long pid = redis.pid();
            redis.call("SET", "k", "v");
            try (Fault kill = Faults.kill(redis, true, Duration.ofSeconds(30))) {
                assertThat(redis.isRunning()).isFalse();
                assertThatThrownBy(() -> redis.call("PING")).isInstanceOf(IOException.class);
            }
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.pid()).isNotEqualTo(pid);
            assertThat(redis.call("GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void fault_nonPositiveBound_rejectedNamingTheArgument() {
        assertThatThrownBy(() -> Fault.inject("x", () -> {}, () -> {}, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxDuration");
    }
}
