package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.testing.faults.ChildJvmLockClient;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A lock holder in a child JVM, killed with SIGKILL or paused with SIGSTOP. */
class RedisProcessFaultIT {
    private static final long LEASE_MS = 800;
    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    private static ChildJvmLockClient child() {
        return ChildJvmLockClient.start(server.uri() + "?leaseTime=" + LEASE_MS + "ms");
    }

    private static RedisLockProvider client() {
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .leaseTime(Duration.ofMillis(LEASE_MS))
                .build();
    }

    @Test
    void holderKilledWithSigkill_lockFreeWithinTtlPlusMargin_nextTokenLarger() throws Exception {
        try (ChildJvmLockClient holder = child()) {
            ChildJvmLockClient.Acquisition a = holder.acquire("fault/kill", Duration.ZERO);
            assertThat(a.acquired()).isTrue();
            long killedAt = System.nanoTime();
            holder.kill();
            try (RedisLockProvider b = client();
                    Lease next = b.lock("fault/kill")
                            .tryAcquire(Duration.ofSeconds(5))
                            .orElseThrow()) {
                Duration waited = Duration.ofNanos(System.nanoTime() - killedAt);
                assertThat(waited).isLessThan(Duration.ofMillis(LEASE_MS + 600));
                assertThat(next.fencingToken().getAsLong())
                        .isGreaterThan(a.token().getAsLong());
            }
        }
    }

    @Test
    void holderPausedPastTtl_otherAcquires_resumedHoldersWriteRejectedAndLeaseInvalid() throws Exception {
        try (ChildJvmLockClient holder = child()) {
            ChildJvmLockClient.Acquisition a = holder.acquire("fault/pause", Duration.ZERO);
            assertThat(a.acquired()).isTrue();
            long oldToken = a.token().getAsLong();
            InMemoryFencingGuard guard = new InMemoryFencingGuard();
            guard.check("resource", oldToken); // the holder wrote once before the pause
            holder.pause();
            try (RedisLockProvider b = client();
                    Lease next = b.lock("fault/pause")
                            .tryAcquire(Duration.ofSeconds(5))
                            .orElseThrow()) {
                long newToken = next.fencingToken().getAsLong();
                assertThat(newToken).isGreaterThan(oldToken);
                guard.check("resource", newToken);
                holder.resume();
                assertThat(holder.isValid()).as("the resumed holder's lease").isFalse();
                // the resumed holder's write carries its old token: the resource rejects it
                assertThatThrownBy(() -> guard.check("resource", oldToken)).isInstanceOf(StaleTokenException.class);
                assertThat(holder.release()).as("release of the lost lease").isFalse();
                assertThat(next.isValid()).isTrue();
            }
        }
    }
}
