package io.distlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.spi.LockEngine;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

/**
 * Rounds written by the calling thread on direct connections (no I/O thread hop per node and
 * request), on five real redis-server masters.
 */
class DirectRoundsIT {
    private static final LockOptions LOCK_OPTIONS =
            LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build();

    private static RedlockLockOptions options() {
        return RedlockLockOptions.builder().nodeTimeout(Duration.ofMillis(200)).build();
    }

    private static RedlockDriver driver(RedisServers servers) {
        List<NodeAddress> addresses = servers.servers().stream()
                .map(s -> NodeAddress.of(new HostAndPort(s.host(), s.port())))
                .toList();
        return RedlockDriver.create(addresses, options(), LOCK_OPTIONS);
    }

    private static long sum(RedlockDriver d, java.util.function.ToLongFunction<Node> f) {
        return d.nodes().stream().mapToLong(f).sum();
    }

    @Test
    void uncontendedRounds_directConnectionsOpen_mostRequestsWrittenByCallingThread() {
        try (RedisServers servers = RedisServers.independentMasters(5);
                RedlockDriver driver = driver(servers)) {
            LockEngine engine = LockEngine.create(driver, LOCK_OPTIONS);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> driver.nodes().stream().allMatch(n -> n.directConnections() > 0));
            long direct0 = sum(driver, Node::directSends);
            long io0 = sum(driver, Node::ioSends);
            for (int i = 0; i < 50; i++) {
                Lease lease = engine.lock("direct").tryAcquire().orElseThrow();
                assertThat(lease.fencingToken()).isPresent();
                assertThat(lease.release()).isTrue();
            }
            long direct = sum(driver, Node::directSends) - direct0;
            long io = sum(driver, Node::ioSends) - io0;
            // 3 rounds × 5 nodes per acquire+release; fails on the I/O-thread-only path (direct = 0)
            assertThat(direct + io).isGreaterThanOrEqualTo(50 * 3 * 3);
            assertThat(direct).as("direct %d, I/O threads %d", direct, io).isGreaterThan(io);
            // open direct connections stay within the pool size per node
            assertThat(driver.nodes())
                    .allSatisfy(n -> assertThat(n.directConnections())
                            .isBetween(1, options().poolSize()));
        }
    }

    @Test
    void nodeRestarted_directConnectionStale_nodeGrantsAgainOnNextAcquisition() {
        try (RedisServers servers = RedisServers.independentMasters(5);
                RedlockDriver driver = driver(servers)) {
            LockEngine engine = LockEngine.create(driver, LOCK_OPTIONS);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> driver.nodes().stream().allMatch(n -> n.directConnections() > 0));
            assertThat(engine.lock("stale").tryAcquire().orElseThrow().release())
                    .isTrue();
            RedisServer first = servers.get(0);
            first.restart(false); // every idle connection to node 0 is now dead
            Lease lease = engine.lock("stale").tryAcquire().orElseThrow();
            String key = driver.keys().lockKey("stale");
            // the write on the dead direct connection is retried on a new connection: node 0 grants
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(first.call("EXISTS", key)).contains("1"));
            assertThat(lease.release()).isTrue();
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(first.call("EXISTS", key)).contains("0"));
        }
    }
}
