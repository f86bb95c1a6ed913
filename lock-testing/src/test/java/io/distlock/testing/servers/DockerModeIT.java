package io.distlock.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Redis and etcd through Testcontainers. Runs only in the {@code docker} Maven profile (which sets
 * {@code distlock.servers=docker} and the local image names); excluded from the default build.
 */
class DockerModeIT {

    @BeforeAll
    static void dockerModeIsOn() {
        assertThat(ServerMode.configured())
                .as("run with -Pdocker (sets %s=docker)", ServerMode.PROPERTY)
                .isEqualTo(ServerMode.DOCKER);
    }

    @Test
    void redis_dockerMode_answersPingFromAContainer() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.toString()).contains("container");
            assertThat(redis.call("PING")).isEqualTo("PONG");
            redis.call("SET", "k", "v");
            assertThat(redis.call("GET", "k")).isEqualTo("v");
            long pid = redis.pid();
            assertThat(Files.readString(Paths.get("/proc", Long.toString(pid), "cmdline")))
                    .startsWith("redis-server");

            redis.pause();
            redis.resume();
            assertThat(redis.call("PING")).isEqualTo("PONG");
            redis.restart(false);
            assertThat(redis.call("GET", "k")).isEmpty();
        }
    }

    @Test
    void etcd_dockerMode_putAndGetThroughTheJsonGateway() throws Exception {
        try (EtcdServer etcd = EtcdServer.start()) {
            assertThat(etcd.toString()).contains("container");
            etcd.put("distlock/k", "v");
            assertThat(etcd.get("distlock/k")).isEqualTo("v");
            etcd.kill();
            assertThat(etcd.isRunning()).isFalse();
            etcd.restart(true);
            assertThat(etcd.get("distlock/k")).isEqualTo("v");
        }
    }
}
