package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Fencing tokens across server restarts, with and without AOF. */
class RedisPersistenceIT {
    private static final String NAME = "persist/job";

    private static RedisLockProvider client(LocalRedisServer s, boolean persistent) {
        return RedisLockProvider.builder()
                .standalone(s.host(), s.port())
                .options(RedisLockOptions.builder()
                        .leaseTime(Duration.ofSeconds(2))
                        .assumePersistence(persistent)
                        .build())
                .build();
    }

    private static long acquireAndRelease(LocalRedisServer s, boolean persistent) {
        try (RedisLockProvider p = client(s, persistent);
                Lease lease = p.lock(NAME).tryAcquire().orElseThrow()) {
            assertThat(p.capabilities().fencingSurvivesServerRestart()).isEqualTo(persistent);
            return lease.fencingToken().getAsLong();
        }
    }

    @Test
    void restart_withAof_tokensKeepIncreasingAndCounterSurvives() {
        try (LocalRedisServer s = LocalRedisServer.start("--appendonly", "yes", "--appendfsync", "always")) {
            long before = acquireAndRelease(s, true);
            s.restart();
            try (var admin = s.admin()) {
                assertThat(admin.get("distlock:{persist%2Fjob}:token")).isEqualTo(Long.toString(before));
            }
            assertThat(acquireAndRelease(s, true)).isGreaterThan(before);
        }
    }

    @Test
    void restart_withoutPersistence_counterLostButTokenFromServerClockStillLarger() {
        try (LocalRedisServer s = LocalRedisServer.start()) {
            long before = acquireAndRelease(s, false);
            s.restart();
            try (var admin = s.admin()) {
                assertThat(admin.exists("distlock:{persist%2Fjob}:token")).isFalse();
            }
            // not promised by the capability (it depends on the server's wall clock), but shown here
            assertThat(acquireAndRelease(s, false)).isGreaterThan(before);
        }
    }
}
