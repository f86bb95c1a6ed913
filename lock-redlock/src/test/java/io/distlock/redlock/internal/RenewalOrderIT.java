package io.distlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.Contender;
import io.distlock.spi.HeldLock;
import io.distlock.spi.LockDriver;
import io.distlock.spi.LockEngine;
import io.distlock.spi.RenewalMode;
import io.distlock.spi.RenewalOutcome;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

/**
 * A batched renewal's request to a slow node, still queued or in flight when its round ended (a
 * majority of the other nodes answered), against what follows it for the same locks, with node 2's
 * replies made late by a {@link TcpProxy} (its requests reach the server at once). The test drives
 * the batch renewal itself (the leases are not renewed by the engine), so that each request's
 * moment is known:
 *
 * <ul>
 *   <li>an extension or a delayed release made after a renewal reaches every node after it, so the
 *       renewal never sets the old time to live again there;
 *   <li>a lock held on a bare majority is renewed when one of its nodes answers after the batch's
 *       node timeout but well within the validity.
 * </ul>
 */
class RenewalOrderIT {
    private RedisServers servers;
    private TcpProxy proxy;
    private RedlockDriver driver;
    private LockEngine engine;
    private final List<HeldLock> held = new ArrayList<>();

    @AfterEach
    void stop() {
        if (engine != null) {
            engine.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (servers != null) {
            servers.close();
        }
    }

    /** Three masters, node 2 behind the proxy; leases not renewed by the engine. */
    private void start(RedlockLockOptions options, Duration lease) {
        servers = RedisServers.independentMasters(3);
        List<NodeAddress> addresses = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            addresses.add(NodeAddress.of(
                    new HostAndPort(servers.get(i).host(), servers.get(i).port())));
        }
        proxy = TcpProxy.start(servers.get(2).host(), servers.get(2).port());
        addresses.add(NodeAddress.of(new HostAndPort(proxy.host(), proxy.port())));
        LockOptions lockOptions =
                LockOptions.builder().leaseTime(lease).autoRenew(false).build();
        driver = RedlockDriver.create(addresses, options, lockOptions);
        engine = LockEngine.create(new Capturing(driver, held), lockOptions);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> driver.nodes().stream().allMatch(n -> n.directConnections() > 0));
        assertThat(engine.lock("warm").tryAcquire().orElseThrow().release()).isTrue();
        held.clear();
    }

    @Test
    void extendAndReleaseAfter_madeWhileABatchRenewalIsQueuedForASlowNode_reachItAfterTheRenewal() {
        // node 2: one I/O thread; its replies come 1 s late, well within the node and request timeouts
        start(
                RedlockLockOptions.builder()
                        .poolSize(1)
                        .nodeTimeout(Duration.ofMillis(4_500))
                        .timeouts(TimeoutOptions.defaults().withRequestTimeout(Duration.ofSeconds(6)))
                        .build(),
                Duration.ofSeconds(10));
        Lease extended = engine.lock("order-extend").tryAcquire().orElseThrow();
        Lease delayed = engine.lock("order-delayed").tryAcquire().orElseThrow();
        List<HeldLock> both = List.copyOf(held);
        RedlockHeldLock extendedLock = (RedlockHeldLock) both.get(0);
        BatchRenewal batch = driver.batchRenewal();
        Node slow = driver.nodes().get(2);
        RedisServer slowServer = servers.get(2);
        // every node's I/O connection open before the latency
        assertThat(batch.renewAll(both)).allMatch(RenewalOutcome::renewed);
        await("the first batch sent to node 2").atMost(Duration.ofSeconds(5)).until(() -> slow.pipelines() > 0);
        long pipelinesBefore = slow.pipelines();
        proxy.setLatency(TcpProxy.Direction.DOWNSTREAM, Duration.ofSeconds(1));

        // tick 1: decided by nodes 0 and 1; node 2's only I/O thread waits for its late reply
        assertThat(batch.renewAll(both)).allMatch(RenewalOutcome::renewed);
        // tick 2: decided the same way; its request to node 2 waits in the queue behind tick 1's
        assertThat(batch.renewAll(both)).allMatch(RenewalOutcome::renewed);
        CompletableFuture<?> tick2 = extendedLock.lastTimeToLiveRequest(2);
        await("tick 1 sent to node 2").atMost(Duration.ofSeconds(5)).until(() -> slow.pipelines() > pipelinesBefore);

        extended.extend(Duration.ofSeconds(30));
        CompletableFuture<?> extension = extendedLock.lastTimeToLiveRequest(2);
        assertThat(delayed.releaseAfter(Duration.ofSeconds(2))).isTrue();
        assertThat(slow.pipelines())
                .as("tick 2 still not sent to node 2 after the extension and the delayed release")
                .isEqualTo(pipelinesBefore + 1);
        assertThat(extension)
                .as("the extension's request to node 2")
                .isNotNull()
                .isNotSameAs(tick2);

        // once node 2 answered both tick 2 and the extension, the later of the two set the time to live
        await("node 2 answered tick 2 and the extension")
                .atMost(Duration.ofSeconds(15))
                .until(() -> tick2.isDone() && extension.isDone());
        assertThat(pttl(slowServer, "order-extend"))
                .as("node 2's time to live of the extended lock: the extension's, not tick 2's 10 s")
                .isGreaterThan(20_000L);
        // tick 2 renewed the delayed lock for 10 s there: the delayed release must come after it (had
        // it come before, the 10 s would stay for longer than this wait; gone counts as at most 2 s)
        await("node 2's time to live of the lock released after 2 s")
                .atMost(Duration.ofSeconds(5))
                .until(() -> pttl(slowServer, "order-delayed") <= 2_000L);
    }

    @Test
    void batchRenewal_bareMajorityLock_nodeAnsweringAfterTheNodeTimeout_stillRenewsIt() throws IOException {
        // node 2 answers 600 ms late: after the batch's 200 ms node timeout, well within the validity
        start(RedlockLockOptions.builder().nodeTimeout(Duration.ofMillis(200)).build(), Duration.ofSeconds(6));
        engine.lock("bare").tryAcquire().orElseThrow();
        engine.lock("full").tryAcquire().orElseThrow();
        List<HeldLock> both = List.copyOf(held);
        // node 0 loses "bare": it is held on nodes 1 and 2 only, a bare majority
        servers.get(0).call("DEL", driver.keys().lockKey("bare"));
        BatchRenewal batch = driver.batchRenewal();
        // every node's I/O connection open before the latency
        assertThat(batch.renewAll(both).get(1)).isEqualTo(RenewalOutcome.RENEWED);
        proxy.setLatency(TcpProxy.Direction.DOWNSTREAM, Duration.ofMillis(600));

        List<RenewalOutcome> outcomes = batch.renewAll(both);

        assertThat(outcomes.get(0)).as("the bare-majority lock").isEqualTo(RenewalOutcome.RENEWED);
        assertThat(outcomes.get(1)).as("the lock held on every node").isEqualTo(RenewalOutcome.RENEWED);
    }

    private long pttl(RedisServer s, String name) {
        try {
            return Long.parseLong(s.call("PTTL", driver.keys().lockKey(name)).trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The Redlock driver, keeping every lock it grants in {@code held}, for the test to renew. */
    private record Capturing(RedlockDriver driver, List<HeldLock> held) implements LockDriver {
        @Override
        public String backend() {
            return driver.backend();
        }

        @Override
        public Capabilities capabilities() {
            return driver.capabilities();
        }

        @Override
        public RenewalMode renewalMode() {
            return driver.renewalMode();
        }

        @Override
        public BatchRenewal batchRenewal() {
            return driver.batchRenewal();
        }

        @Override
        public Contender contender(AcquireContext ctx) {
            Contender c = driver.contender(ctx);
            return new Contender() {
                @Override
                public Optional<HeldLock> tryAcquire() {
                    Optional<HeldLock> h = c.tryAcquire();
                    h.ifPresent(held::add);
                    return h;
                }

                @Override
                public void awaitChange(long deadlineNanos) throws InterruptedException {
                    c.awaitChange(deadlineNanos);
                }

                @Override
                public void abandon() {
                    c.abandon();
                }
            };
        }

        @Override
        public void close() {
            driver.close();
        }
    }
}
