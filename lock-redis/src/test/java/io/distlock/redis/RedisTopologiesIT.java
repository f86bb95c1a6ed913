package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.subscribedChannels;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Core scenarios on Sentinel and on a 3-master Cluster. (The full TCK runs on these deployments
 * once it is available; this covers the topology-specific parts: routing, one script per slot, a
 * subscriber that works through Sentinel and across Cluster nodes.)
 */
class RedisTopologiesIT {

    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Scenarios {
        RedisTckFixture fixture;
        final List<LockProvider> clients = new ArrayList<>();

        abstract RedisTckFixture start();

        @BeforeAll
        void startDeployment() {
            fixture = start();
        }

        @AfterAll
        void stopDeployment() {
            fixture.close();
        }

        @AfterEach
        void closeClients() {
            clients.forEach(LockProvider::close);
            clients.clear();
        }

        RedisLockProvider client(Duration lease) {
            RedisLockProvider p = (RedisLockProvider)
                    fixture.newClient(LockOptions.builder().leaseTime(lease).build());
            clients.add(p);
            return p;
        }

        @Test
        void manyNames_acrossSlots_eachAcquiredOnceWithTokens() {
            RedisLockProvider a = client(Duration.ofSeconds(5));
            RedisLockProvider b = client(Duration.ofSeconds(5));
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                Lease l = a.lock("topo/name-" + i).tryAcquire().orElseThrow();
                assertThat(l.fencingToken()).isPresent();
                held.add(l);
                assertThat(b.lock("topo/name-" + i).tryAcquire()).isEmpty();
            }
            held.forEach(Lease::release);
            for (int i = 0; i < 50; i++) {
                try (Lease l = b.lock("topo/name-" + i).tryAcquire().orElseThrow()) {
                    assertThat(l.fencingToken().getAsLong())
                            .isGreaterThan(held.get(i).fencingToken().getAsLong());
                }
            }
        }

        @Test
        void waiter_holderReleases_wokenByNotification() throws Exception {
            RedisLockProvider a = client(Duration.ofSeconds(30));
            RedisLockProvider b = client(Duration.ofSeconds(30));
            Lease held = a.lock("topo/handoff").tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock("topo/handoff").tryAcquire(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribedChannels(b) == 1);
            long releasedAt = System.nanoTime();
            held.release();
            Optional<Lease> got = waiter.get(10, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(2));
            got.get().release();
        }

        @Test
        void expireLease_holderRenewalFindsKeyGone_leaseLost() throws Exception {
            RedisLockProvider a = client(Duration.ofMillis(300));
            Lease l = a.lock("topo/expire").tryAcquire().orElseThrow();
            CountDownLatch lost = new CountDownLatch(1);
            l.lost().thenAccept(e -> lost.countDown());
            fixture.expireLease("topo/expire");
            assertThat(lost.await(2, TimeUnit.SECONDS)).isTrue();
        }

        @Test
        void crash_lockFreeAfterTtl_nextTokenLarger() throws Exception {
            RedisLockProvider a = client(Duration.ofMillis(500));
            RedisLockProvider b = client(Duration.ofMillis(500));
            long token = a.lock("topo/crash")
                    .tryAcquire()
                    .orElseThrow()
                    .fencingToken()
                    .getAsLong();
            fixture.crashClient(a);
            try (Lease next =
                    b.lock("topo/crash").tryAcquire(Duration.ofSeconds(3)).orElseThrow()) {
                assertThat(next.fencingToken().getAsLong()).isGreaterThan(token);
            }
        }

        @Test
        void close_leavesNoConnections() {
            int before = fixture.serverConnectionCount();
            RedisLockProvider p = client(Duration.ofSeconds(2));
            p.lock("topo/close").tryAcquire().orElseThrow();
            assertThat(fixture.serverConnectionCount()).isGreaterThan(before);
            p.close();
            await().atMost(Duration.ofSeconds(5)).until(() -> fixture.serverConnectionCount() == before);
        }
    }

    @Nested
    class Sentinel extends Scenarios {
        @Override
        RedisTckFixture start() {
            return RedisTckFixture.sentinel();
        }
    }

    @Nested
    class Cluster extends Scenarios {
        @Override
        RedisTckFixture start() {
            return RedisTckFixture.cluster();
        }
    }
}
