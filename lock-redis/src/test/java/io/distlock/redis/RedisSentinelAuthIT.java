package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.lockKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.testing.LogCapture;
import io.distlock.testing.servers.RedisSentinelSetup;
import io.distlock.testing.servers.RedisServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Sentinel with authentication: master and replica require a password (the sentinels use {@code
 * auth-pass}); the lock client finds the master through the sentinels and authenticates to it as
 * the documented ACL user, created on both data nodes (ACL users are not replicated).
 */
@Timeout(90)
class RedisSentinelAuthIT {
    private static final String ADMIN_PASSWORD = "admin-Sentinel-Pw-2b7c";
    private static RedisSentinelSetup setup;

    @BeforeAll
    static void start() throws IOException {
        setup = RedisSentinelSetup.start(ADMIN_PASSWORD);
        for (RedisServer node : List.of(setup.master(), setup.replica())) {
            RedisSecurityIT.createLockUser(node);
        }
    }

    @BeforeEach
    void resetAclLog() throws IOException {
        setup.master().call("ACL", "LOG", "RESET");
    }

    @AfterAll
    static void stop() {
        if (setup != null) {
            setup.close();
        }
    }

    @Test
    void sentinel_aclUserOnDataNodes_locksWorkWithoutDeniedCommands() throws IOException {
        String uri = "redis-sentinel://" + RedisSecurityIT.USER + ":" + RedisSecurityIT.PASSWORD + "@"
                + setup.sentinelAddresses() + "/" + setup.masterName() + "?leaseTime=2s";
        try (LockProvider p = LockProviders.open(uri)) {
            Lease lease = p.lock("sentinel-auth").tryAcquire().orElseThrow();
            assertThat(setup.master().call("GET", lockKey(p, "sentinel-auth"))).matches("[0-9a-f]{32}");
            assertThat(lease.release()).isTrue();
            assertThat(p.toString()).doesNotContain(RedisSecurityIT.PASSWORD);
        }
        assertThat(setup.master().call("ACL", "LOG"))
                .as("commands the ACL denied")
                .isEqualTo("[]");
    }

    @Test
    void sentinel_wrongPassword_failsWithoutThePassword() {
        String wrong = "wrong-Sentinel-Pw-77";
        String uri = "redis-sentinel://" + RedisSecurityIT.USER + ":" + wrong + "@" + setup.sentinelAddresses() + "/"
                + setup.masterName();
        List<LockProvider> opened = new ArrayList<>();
        try {
            assertThatThrownBy(() -> {
                        LockProvider p = LockProviders.open(uri);
                        opened.add(p);
                        p.lock("sentinel-auth").tryAcquire();
                    })
                    .isInstanceOf(LockConfigurationException.class)
                    .satisfies(e -> assertThat(LogCapture.fullText(e))
                            .contains("WRONGPASS")
                            .doesNotContain(wrong));
        } finally {
            opened.forEach(LockProvider::close);
        }
    }
}
