package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Opening the in-JVM provider: the builder's settings (server, lease time, reply delay) and the
 * {@code mem://} URI's server name.
 */
class MemoryProviderSetupTest {

    @Test
    void builder_serverAndLeaseTime_areUsed() {
        MemoryLockServer server = MemoryLockServer.create();
        try (MemoryLockProvider p = MemoryLockProvider.builder()
                .server(server)
                .leaseTime(Duration.ofSeconds(7))
                .build()) {
            assertThat(p.server()).isSameAs(server);
            assertThat(p.toString()).contains("PT7S");
            Lease lease = p.lock("setup").tryAcquire().orElseThrow();
            assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofSeconds(7));
            assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(6));
            assertThat(server.owner("setup")).isPresent();
        }
    }

    @Test
    void replyDelay_negativeOrNull_rejectedNamingIt() {
        assertThatThrownBy(() -> MemoryLockProvider.builder().replyDelay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replyDelay must not be negative");
        assertThatThrownBy(() -> MemoryLockProvider.builder().replyDelay(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("replyDelay");
    }

    @Test
    void replyDelay_everyReplyArrivesThatLate_butTheServerChangesAtOnce() {
        MemoryLockServer server = MemoryLockServer.create();
        Duration delay = Duration.ofMillis(100);
        try (MemoryLockProvider slow = MemoryLockProvider.builder()
                .server(server)
                .replyDelay(delay)
                .options(LockOptions.builder().autoRenew(false).build())
                .build()) {
            long t0 = System.nanoTime();
            Lease lease = slow.lock("slow").tryAcquire().orElseThrow();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(delay);
            assertThat(lease.remainingValidity()).isLessThanOrEqualTo(LockOptions.DEFAULT_LEASE_TIME.minus(delay));
            t0 = System.nanoTime();
            lease.extend(Duration.ofSeconds(10));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(delay);
            t0 = System.nanoTime();
            assertThat(lease.release()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(delay);
            assertThat(server.owner("slow")).isEmpty();
        }
    }

    @Test
    void uri_withoutName_usesTheDefaultServer_withName_thatServer() {
        try (LockProvider unnamed = LockProviders.open("mem:///");
                LockProvider byDefault = LockProviders.open("mem://default");
                LockProvider other = LockProviders.open("mem://setup-other")) {
            Lease lease = unnamed.lock("uri-name").tryAcquire().orElseThrow();
            assertThat(byDefault.lock("uri-name").tryAcquire()).isEmpty();
            other.lock("uri-name").tryAcquire().orElseThrow().release();
            assertThat(lease.release()).isTrue();
        }
    }
}
