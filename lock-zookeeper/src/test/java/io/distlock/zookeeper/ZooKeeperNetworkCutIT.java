package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.testing.faults.TcpProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.data.Stat;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fixture's cutClientNetwork hook (each client behind its own {@code TcpProxy}) on a ZooKeeper
 * 3.8 server process: a partitioned holder stops believing it holds the lock before the server
 * expires its session and hands the lock to the next client.
 */
@Timeout(60)
class ZooKeeperNetworkCutIT {
    private static final LockOptions SESSION_2S =
            LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build();
    private static final LockOptions SESSION_4S =
            LockOptions.builder().leaseTime(Duration.ofSeconds(4)).build();
    private static ZooKeeperFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = ZooKeeperFixture.serverProcess();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    @Test
    void cutClientNetwork_holder_lostBeforeOtherAcquiresThenWorksAgainAfterRestore() throws Exception {
        String name = "it/network-cut";
        try (LockProvider holder = fixture.newClient(SESSION_2S);
                LockProvider other = fixture.newClient(SESSION_2S)) {
            InMemoryFencingGuard guard = new InMemoryFencingGuard();
            Lease old = holder.lock(name).acquire();
            guard.check("row", old.fencingToken().getAsLong());
            AtomicLong lostAt = new AtomicLong();
            old.lost().thenRun(() -> lostAt.set(System.nanoTime()));
            fixture.cutClientNetwork(holder);
            try {
                // waits from before the partition: the server hands the lock over only after it
                // expired the partitioned session, and the holder must know before that
                Lease next = other.lock(name).tryAcquire(Duration.ofSeconds(20)).orElseThrow();
                long acquiredAt = System.nanoTime();
                assertThat(old.lost().toCompletableFuture()).isDone();
                assertThat(old.isValid()).isFalse();
                assertThat(acquiredAt - lostAt.get()).isPositive();
                assertThat(next.fencingToken().getAsLong())
                        .isGreaterThan(old.fencingToken().getAsLong());
                guard.check("row", next.fencingToken().getAsLong());
                Assertions.assertThatThrownBy(
                                () -> guard.check("row", old.fencingToken().getAsLong()))
                        .isInstanceOf(StaleTokenException.class);
                next.release();
            } finally {
                fixture.restoreClientNetwork(holder);
            }
            // the healed client gets a new session and takes the lock again
            Lease again = holder.lock(name).tryAcquire(Duration.ofSeconds(20)).orElseThrow();
            assertThat(again.isValid()).isTrue();
            again.release();
        }
    }

    @Test
    void lostCreateReply_connectionCutAfterCreateReachedServer_attemptFindsItsNodeAndLeavesNoOrphan() throws Exception {
        String name = "it/lost-create-reply";
        try (LockProvider client = fixture.newClient(SESSION_4S);
                LockProvider other = fixture.newClient(SESSION_4S)) {
            ZooKeeperLockProvider p = ZooKeeperFixture.providerOf(client);
            String parent = p.internals().lockPath(name);
            other.lock(name).acquire().release(); // the parent exists: the create goes straight in
            List<TcpProxy> proxies = fixture.proxiesOf(client);
            // the server gets the create, its reply does not reach the client
            proxies.forEach(proxy -> proxy.blackhole(TcpProxy.Direction.DOWNSTREAM));
            CompletableFuture<Lease> attempt = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.lock(name).tryAcquire(Duration.ofSeconds(30)).orElseThrow();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            String created;
            try {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> fixture.children(parent).size() == 1);
                created = fixture.children(parent).get(0);
                assertThat(attempt).isNotDone();
                // the connection drops before the reply arrives: the client reconnects on the
                // same session and must not create a second node nor leave this one behind
                proxies.forEach(TcpProxy::cutConnections);
            } finally {
                proxies.forEach(TcpProxy::resume);
            }
            Lease lease = attempt.get(30, TimeUnit.SECONDS);
            List<String> nodes = fixture.children(parent);
            assertThat(nodes).containsExactly(created);
            Stat stat = fixture.admin().checkExists().forPath(parent + "/" + nodes.get(0));
            assertThat(lease.fencingToken().getAsLong()).isEqualTo(stat.getCzxid());
            assertThat(p.internals().counters().lostCreateReplies()).isEqualTo(1);
            assertThat(p.internals().counters().recoveredCreates()).isEqualTo(1);
            lease.release();
            assertThat(fixture.children(parent)).isEmpty();
            // nothing orphaned blocks the lock
            Lease next = other.lock(name).tryAcquire().orElseThrow();
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(lease.fencingToken().getAsLong());
            next.release();
        }
    }
}
