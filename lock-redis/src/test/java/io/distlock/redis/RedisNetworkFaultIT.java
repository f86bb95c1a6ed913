package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.subscribedChannels;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import io.distlock.testing.LogCapture;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** A client whose connections go through a proxy that holds or resets traffic. */
class RedisNetworkFaultIT {
    private RedisServer server;
    private TcpProxy proxy;

    @BeforeEach
    void start() throws Exception {
        server = RedisServer.start();
        proxy = TcpProxy.start(server.host(), server.port());
    }

    @AfterEach
    void stop() {
        proxy.close();
        server.close();
    }

    private RedisLockProvider viaProxy(Duration lease, Duration requestTimeout) {
        return RedisLockProvider.builder()
                .standalone("127.0.0.1", proxy.port())
                .options(RedisLockOptions.builder()
                        .timeouts(new TimeoutOptions(Duration.ofMillis(500), requestTimeout))
                        .build())
                .lockOptions(LockOptions.builder().leaseTime(lease).build())
                .build();
    }

    private RedisLockProvider direct(Duration lease) {
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .leaseTime(lease)
                .build();
    }

    @Test
    void trafficHeldDuringHold_renewalsHang_leaseReportedLostByValidityDeadline() throws Exception {
        Duration lease = Duration.ofMillis(600);
        try (RedisLockProvider a = viaProxy(lease, Duration.ofSeconds(3))) {
            long before = System.nanoTime();
            Lease held = a.lock("net/hold").tryAcquire().orElseThrow();
            CompletableFuture<Long> lostAt = new CompletableFuture<>();
            held.lost().thenAccept(e -> lostAt.complete(System.nanoTime()));
            proxy.blackhole(TcpProxy.Direction.BOTH);
            long at = lostAt.get(5, TimeUnit.SECONDS);
            // validity = lease - margin from before the request was sent; 200 ms for the timer thread on a loaded
            // machine (200 ms for scheduling on a loaded machine)
            assertThat(Duration.ofNanos(at - before)).isLessThan(lease.plusMillis(200));
            assertThat(held.isValid()).isFalse();
            proxy.resume();
        }
    }

    @Test
    void connectionsReset_waitingClientsSubscriberReconnects_waiterStillWokenByRelease() throws Exception {
        try (RedisLockProvider a = direct(Duration.ofSeconds(30));
                RedisLockProvider b = viaProxy(Duration.ofSeconds(30), Duration.ofSeconds(2))) {
            Lease held = a.lock("net/reset").tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock("net/reset").tryAcquire(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribedChannels(b) == 1);
            proxy.cutConnections();
            // the subscriber reconnects and resubscribes: the channel has a subscriber again on the server
            try (var admin = new Jedis(server.host(), server.port())) {
                await().atMost(Duration.ofSeconds(5))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> admin.pubsubNumSub("distlock:{net%2Freset}:released")
                                        .get("distlock:{net%2Freset}:released")
                                == 1L);
            }
            long releasedAt = System.nanoTime();
            held.release();
            Optional<Lease> got = waiter.get(10, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(3));
            got.get().release();
        }
    }

    /**
     * A queued waiter cut off from the server: its tries and its attempt to leave the queue time
     * out, so its entry stays, and the engine goes on with a new contender. A release meanwhile
     * hands the lock to that entry; the waiting attempt must recognise it as its own once traffic
     * flows again, not wait for a grant to a ghost to expire (a lease later).
     */
    @Test
    void queuedWaiterCutOff_releaseGrantsItsEntry_waiterTakesTheLockWhenTrafficResumes() throws Exception {
        Duration lease = Duration.ofSeconds(10);
        String name = "net/carried";
        try (RedisLockProvider a = RedisLockProvider.builder()
                        .standalone(server.host(), server.port())
                        .options(RedisLockOptions.builder().handOff(true).build())
                        .leaseTime(lease)
                        .build();
                RedisLockProvider b = RedisLockProvider.builder()
                        .standalone("127.0.0.1", proxy.port())
                        .options(RedisLockOptions.builder()
                                .handOff(true)
                                .timeouts(new TimeoutOptions(Duration.ofMillis(400), Duration.ofMillis(400)))
                                .build())
                        .leaseTime(lease)
                        .build();
                Jedis admin = new Jedis(server.host(), server.port())) {
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock(name).tryAcquire(Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            String queue = "distlock:{net%2Fcarried}:queue";
            await().atMost(Duration.ofSeconds(5)).until(() -> admin.zcard(queue) == 1);
            String entry = admin.zrange(queue, 0, 0).get(0);
            try (LogCapture logs = LogCapture.start()) {
                proxy.blackhole(TcpProxy.Direction.BOTH);
                proxy.cutConnections(); // the subscriber's loss wakes the waiter: its tries now time out
                await("the waiting attempt failed and could not leave the queue")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> logs.text().contains("distlock.redis.owner_carried"));
            }
            held.release();
            assertThat(admin.get("distlock:{net%2Fcarried}:lock"))
                    .as("handed to the entry")
                    .isEqualTo(entry);
            long resumedAt = System.nanoTime();
            proxy.resume();
            Optional<Lease> got = waiter.get(20, TimeUnit.SECONDS);
            assertThat(got).isPresent();
            assertThat(Duration.ofNanos(System.nanoTime() - resumedAt))
                    .as("the grant to its entry was the waiter's own (lease %s)", lease)
                    .isLessThan(Duration.ofSeconds(3));
            assertThat(got.get().fencingToken().getAsLong())
                    .isGreaterThan(held.fencingToken().getAsLong());
            got.get().release();
        }
    }
}
