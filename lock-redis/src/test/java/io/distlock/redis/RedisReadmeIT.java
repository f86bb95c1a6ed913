package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.TimeoutOptions;
import io.distlock.testing.servers.RedisServer;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The opening example of this module's README, run against a real password-protected Redis server
 * (the snippet between {@code README-BEGIN} and {@code README-END}; {@code DocsTest} checks that the
 * README shows it).
 */
@Timeout(60)
class RedisReadmeIT {
    private static final String PASSWORD = "readme-Pw-3f9c1a";
    private static RedisServer server;

    /** The lock key {@link #writeInvoice} saw. */
    private String lockKey;

    @BeforeAll
    static void start() {
        server = RedisServer.builder().password(PASSWORD).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** While the lock is held: the key under the prefix with the 10 s lease, the counter at the token. */
    private void writeInvoice(LockProvider locks, long token) throws IOException {
        lockKey = RedisTestAccess.lockKey(locks, "invoice-42");
        assertThat(lockKey).startsWith("billing:");
        assertThat(Long.parseLong(server.call("PTTL", lockKey).trim())).isBetween(1L, 10_000L);
        assertThat(server.call("GET", RedisTestAccess.tokenKey(locks, "invoice-42"))
                        .trim())
                .isEqualTo(String.valueOf(token));
    }

    @Test
    void open_standaloneWithPasswordAndPrefix_locksWithATokenAndReleases() throws Exception {
        String host = server.host();
        int port = server.port();
        String password = PASSWORD;
        // README-BEGIN redis-open
        try (RedisLockProvider locks = RedisLockProvider.builder()
                .standalone(host, port) // or .sentinel("mymaster", List.of("h1:26379", "h2:26379"))
                // or .cluster(List.of("h1:7000", "h2:7001"))
                // or .client(existingJedisClient)  (not closed by us)
                .options(RedisLockOptions.builder()
                        .credentials(Credentials.password(password)) // e.g. System.getenv("REDIS_PASSWORD")
                        .timeouts(TimeoutOptions.of(Duration.ofMillis(500))) // connect and request timeout
                        .keyPrefix("billing")
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(10)).build()) // or .leaseTime(...)
                .build()) {
            try (Lease lease = locks.lock("invoice-42").acquire()) {
                long token = lease.fencingToken().getAsLong(); // pass it to the resource you write to
                writeInvoice(locks, token); // the work the lock protects
                lease.checkValid();
            }
        }
        // README-END
        assertThat(server.call("EXISTS", lockKey).trim()).as("released").isEqualTo("0");
    }
}
