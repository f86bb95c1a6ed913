package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TimeoutOptions;
import io.distlock.fencing.InMemoryFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.zookeeper.internal.ZkInternals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ZooKeeperLockProviderIT {
    private static final LockOptions SHORT =
            LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build();
    private static ZooKeeperFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = ZooKeeperFixture.singleServer();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    private static String name(TestInfo info) {
        return "it/" + info.getTestMethod().orElseThrow().getName();
    }

    private ZooKeeperLockProvider client() {
        return fixture.newZkClient(SHORT);
    }

    @Test
    void tryAcquire_free_returnsLeaseFencedByNodeCzxid(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider p = client()) {
            String name = name(info);
            Lease lease = p.lock(name).tryAcquire().orElseThrow();
            List<String> nodes = fixture.children(p.internals().lockPath(name));
            assertThat(nodes).hasSize(1);
            Stat stat = fixture.admin().checkExists().forPath(p.internals().lockPath(name) + "/" + nodes.get(0));
            assertThat(lease.fencingToken()).hasValue(stat.getCzxid());
            assertThat(stat.getEphemeralOwner())
                    .isEqualTo(p.internals()
                            .curator()
                            .getZookeeperClient()
                            .getZooKeeper()
                            .getSessionId());
            // the lock's parent is a container node (the server removes it once empty)
            assertThat(fixture.embedded().isContainer(p.internals().lockPath(name)))
                    .isTrue();
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.release()).isTrue();
            assertThat(fixture.children(p.internals().lockPath(name))).isEmpty();
        }
    }

    @Test
    void tryAcquire_heldByOtherClient_returnsEmptyAndLeavesNoNode(TestInfo info) {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            Lease lease = a.lock(name).tryAcquire().orElseThrow();
            assertThat(b.lock(name).tryAcquire()).isEmpty();
            assertThat(fixture.children(a.internals().lockPath(name))).hasSize(1);
            lease.release();
            assertThat(b.lock(name).tryAcquire()).isPresent();
        }
    }

    @Test
    void acquire_waiter_getsLockOnReleaseWithHigherToken(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            Lease first = a.lock(name).acquire();
            CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock(name).acquire();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 2);
            assertThat(waiter).isNotDone();
            first.release();
            Lease second = waiter.get(10, TimeUnit.SECONDS);
            assertThat(second.fencingToken().getAsLong())
                    .isGreaterThan(first.fencingToken().getAsLong());
            second.release();
        }
    }

    @Test
    void uncontendedAcquireRelease_warmLock_costsTwoRequests(TestInfo info) throws Exception {
        ZooKeeperLockOptions options =
                fixture.options().sessionTimeout(Duration.ofSeconds(30)).build();
        try (ZooKeeperLockProvider p = fixture.newZkClient(LockOptions.defaults(), options)) {
            String name = name(info);
            p.lock(name).tryAcquire().orElseThrow().release(); // creates the parent
            long rereads = p.internals().counters().childrenRereads();
            long multis = p.internals().counters().multiCreates();
            EmbeddedZk zk = fixture.embedded();
            long before = zk.packetsReceived();
            for (int i = 0; i < 5; i++) {
                p.lock(name).tryAcquire().orElseThrow().release();
            }
            long requests = zk.packetsReceived() - before;
            // multi (create + setData of the parent, whose Stat says we are alone) + delete; the
            // admin client may ping in between
            assertThat(requests).isBetween(10L, 12L);
            assertThat(p.internals().counters().multiCreates() - multis).isEqualTo(5);
            assertThat(p.internals().counters().childrenRereads()).isEqualTo(rereads);
            assertThat(p.internals().counters().statRereads()).isZero();
        }
    }

    @Test
    void createAsMulti_onlyWhileNobodyElseQueued_contendedLockKeepsThePipelinedListing(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            long multis = b.internals().counters().multiCreates();
            long rereads = b.internals().counters().childrenRereads();
            // b's multi finds a's node too (two children): b lists the queue, does not take the lock
            assertThat(b.lock(name).tryAcquire()).isEmpty();
            assertThat(b.internals().counters().multiCreates() - multis).isEqualTo(1);
            assertThat(fixture.children(a.internals().lockPath(name))).hasSize(1);
            // the next create in that parent goes with the pipelined listing, which a contender needs
            assertThat(b.lock(name).tryAcquire()).isEmpty();
            assertThat(b.internals().counters().multiCreates() - multis).isEqualTo(1);
            long heldToken = held.fencingToken().getAsLong();
            assertThat(held.release()).isTrue();
            Lease next = b.lock(name).tryAcquire().orElseThrow(); // pipelined, finds itself alone
            assertThat(b.internals().counters().multiCreates() - multis).isEqualTo(1);
            assertThat(next.fencingToken().getAsLong()).isGreaterThan(heldToken);
            next.release();
            // alone last time: the multi again, and its token is the node's czxid
            Lease again = b.lock(name).tryAcquire().orElseThrow();
            assertThat(b.internals().counters().multiCreates() - multis).isEqualTo(2);
            List<String> children = fixture.children(b.internals().lockPath(name));
            assertThat(children).hasSize(1);
            assertThat(again.fencingToken().getAsLong())
                    .isEqualTo(fixture.admin()
                            .checkExists()
                            .forPath(b.internals().lockPath(name) + "/" + children.get(0))
                            .getCzxid());
            again.release();
            assertThat(b.internals().counters().childrenRereads()).isEqualTo(rereads);
        }
    }

    @Test
    void tryAcquireWithTimeout_timesOut_leavesNoNode(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            Lease lease = a.lock(name).acquire();
            assertThat(b.lock(name).tryAcquire(Duration.ofMillis(300))).isEmpty();
            assertThat(fixture.children(a.internals().lockPath(name))).hasSize(1);
            lease.release();
        }
    }

    @Test
    void acquire_interrupted_throwsAndLeavesNoNode(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            Lease lease = a.lock(name).acquire();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    b.lock(name).acquire();
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            t.start();
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 2);
            t.interrupt();
            t.join(10_000);
            assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
            assertThat(fixture.children(a.internals().lockPath(name))).hasSize(1);
            lease.release();
            assertThat(fixture.children(a.internals().lockPath(name))).isEmpty();
        }
    }

    @Test
    void handOff_waiterBehindHolder_takesLockOnDeletionWithoutListingAgain(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            Lease held = a.lock(name).acquire();
            CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock(name).acquire();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 2);
            long skipped = b.internals().counters().skippedRereads();
            held.release();
            Lease next = waiter.get(10, TimeUnit.SECONDS);
            // the predecessor was the lowest node: its deletion alone proves the lock is ours
            assertThat(b.internals().counters().skippedRereads()).isEqualTo(skipped + 1);
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(held.fencingToken().getAsLong());
            assertThat(next.isValid()).isTrue();
            assertThat(fixture.children(a.internals().lockPath(name))).hasSize(1);
            next.release();
        }
    }

    @Test
    void handOff_holderThatWaitedReleases_successorTakesLockOnOneNotificationWithoutListing(TestInfo info)
            throws Exception {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client();
                ZooKeeperLockProvider c = client()) {
            String name = name(info);
            Lease first = a.lock(name).acquire();
            CompletableFuture<Lease> second = acquireAsync(b, name);
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 2);
            CompletableFuture<Lease> third = acquireAsync(c, name);
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 3);
            // c listed a, b, c: its predecessor b was not the lowest
            first.release();
            Lease bLease = second.get(10, TimeUnit.SECONDS);
            long skipped = c.internals().counters().skippedRereads();
            long notifications = c.internals().counters().watchNotifications();
            assertThat(third).isNotDone();
            bLease.release();
            Lease cLease = third.get(10, TimeUnit.SECONDS);
            // b waited, so it announced its release; a got the lock at once and did not need to
            assertThat(b.internals().counters().announcedReleases()).isEqualTo(1);
            assertThat(a.internals().counters().announcedReleases()).isZero();
            // one notification for b's release, and c took the lock on it without listing again
            assertThat(c.internals().counters().watchNotifications()).isEqualTo(notifications + 1);
            assertThat(c.internals().counters().skippedRereads()).isEqualTo(skipped + 1);
            assertThat(cLease.fencingToken().getAsLong())
                    .isGreaterThan(bLease.fencingToken().getAsLong());
            assertThat(fixture.children(a.internals().lockPath(name))).hasSize(1);
            cLease.release();
            assertThat(fixture.children(a.internals().lockPath(name))).isEmpty();
        }
    }

    private static CompletableFuture<Lease> acquireAsync(ZooKeeperLockProvider p, String name) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return p.lock(name).acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void waiterGivesUp_successorWokenWhileHolderHolds_keepsWaiting(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client();
                ZooKeeperLockProvider c = client()) {
            String name = name(info);
            Lease held = a.lock(name).acquire();
            CompletableFuture<Optional<Lease>> quitter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock(name).tryAcquire(Duration.ofMillis(800));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 2);
            CompletableFuture<Lease> third = CompletableFuture.supplyAsync(() -> {
                try {
                    return c.lock(name).acquire();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 3);
            // b's node (c's predecessor, not the lowest) goes away while a still holds
            assertThat(quitter.get(10, TimeUnit.SECONDS)).isEmpty();
            await().until(() -> c.internals().counters().watchNotifications() == 1);
            // c lists again, finds a's node below it, and keeps waiting
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !third.isDone());
            assertThat(c.internals().counters().skippedRereads()).isZero();
            assertThat(held.isValid()).isTrue();
            held.release();
            Lease next = third.get(10, TimeUnit.SECONDS);
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(held.fencingToken().getAsLong());
            next.release();
        }
    }

    @Test
    void fiftyWaiters_eachReleaseWakesExactlyOneWaiterInFifoOrder(TestInfo info) throws Exception {
        String name = name(info);
        int waiters = 50;
        List<ZooKeeperLockProvider> clients = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(waiters, r -> new Thread(r, "test-waiter"));
        try {
            ZooKeeperLockProvider holder = client();
            clients.add(holder);
            Lease first = holder.lock(name).acquire();
            List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                ZooKeeperLockProvider c = client();
                clients.add(c);
                int id = i;
                done.add(pool.submit(() -> {
                    Lease l = c.lock(name).acquire();
                    order.add(id);
                    l.release();
                    return null;
                }));
                int queued = i + 2;
                // queue them one by one so the queue order is known
                await().pollInterval(Duration.ofMillis(10))
                        .until(() -> fixture.children(holder.internals().lockPath(name))
                                        .size()
                                == queued);
            }
            first.release();
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
            long notifications = clients.stream()
                    .mapToLong(c -> c.internals().counters().watchNotifications())
                    .sum();
            assertThat(notifications).isEqualTo(waiters);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                expected.add(i);
            }
            assertThat(order).containsExactlyElementsOf(expected);
        } finally {
            pool.shutdownNow();
            clients.forEach(ZooKeeperLockProvider::close);
        }
    }

    @Test
    void sessionExpiry_holder_lostFiresOtherAcquiresStaleWriteRejected(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client();
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            InMemoryFencingGuard guard = new InMemoryFencingGuard();
            Lease old = a.lock(name).acquire();
            guard.check("resource", old.fencingToken().getAsLong());
            fixture.expireLease(name);
            LeaseLostException lost = old.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(lost).isNotNull();
            assertThat(old.isValid()).isFalse();
            Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(old.fencingToken().getAsLong());
            guard.check("resource", next.fencingToken().getAsLong());
            assertThatThrownBy(() -> guard.check("resource", old.fencingToken().getAsLong()))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(old.release()).isFalse();
            next.release();
            // the expired client got a new session and still works
            a.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow().release();
        }
    }

    @Test
    void foreignNodeInQueue_attemptFailsNamingItAndLeavesNoNode(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client()) {
            String name = name(info);
            String parent = a.internals().lockPath(name);
            // a node someone else wrote into the queue, named to sort before every real one
            String intruder = parent + "/0000000000";
            fixture.admin().create().creatingParentContainersIfNeeded().forPath(intruder);
            assertThatThrownBy(() -> a.lock(name).tryAcquire())
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining(intruder)
                    .hasMessageContaining("not created by distlock");
            assertThat(fixture.children(parent)).containsExactly("0000000000");
            fixture.admin().delete().forPath(intruder);
            a.lock(name).tryAcquire().orElseThrow().release();
        }
    }

    @Test
    void crashClient_holder_lockFreeAfterSessionTimeout(TestInfo info) throws Exception {
        ZooKeeperLockProvider a = client();
        try (ZooKeeperLockProvider b = client()) {
            String name = name(info);
            a.lock(name).acquire();
            long start = System.nanoTime();
            fixture.crashClient(a);
            // the session is not closed: the node stays until the server expires it
            assertThat(fixture.children(b.internals().lockPath(name))).hasSize(1);
            Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(15)).orElseThrow();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waited).isBetween(1_000L, 2_000L + 3_000L);
            next.release();
        }
    }

    @Test
    void serverDown_heldLease_validityStopsThenExtendedAfterReconnect(TestInfo info) throws Exception {
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofSeconds(6)).build();
        try (ZooKeeperLockProvider a = fixture.newZkClient(options)) {
            String name = name(info);
            Lease lease = a.lock(name).acquire();
            // validity follows the session: at most the session timeout, kept fresh by the keepalive
            assertThat(lease.remainingValidity()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(6));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> lease.remainingValidity().compareTo(Duration.ofSeconds(5)) > 0);
            fixture.stopServer();
            Duration atStop;
            try {
                atStop = lease.remainingValidity();
                // not extended while the server is away
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> lease.remainingValidity().compareTo(atStop.minusSeconds(2)) < 0);
                assertThat(lease.isValid()).isTrue();
            } finally {
                fixture.startServer();
            }
            // reconnected within the session, node verified: extended again
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> lease.remainingValidity().compareTo(Duration.ofSeconds(5)) > 0);
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void serverDownPastSessionTimeout_heldLease_reportedLost(TestInfo info) throws Exception {
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofMillis(1500)).build();
        try (ZooKeeperLockProvider a = fixture.newZkClient(options)) {
            String name = name(info);
            Lease lease = a.lock(name).acquire();
            long readAt = System.nanoTime();
            Duration left = lease.remainingValidity();
            // validity is bounded by the session timeout
            assertThat(left).isPositive().isLessThanOrEqualTo(Duration.ofMillis(1500));
            fixture.stopServer();
            try {
                lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
                // no later than the deadline read before the server went away (plus timer latency)
                long late = System.nanoTime() - (readAt + left.toNanos());
                assertThat(TimeUnit.NANOSECONDS.toMillis(late)).isLessThan(300);
            } finally {
                fixture.startServer();
            }
            assertThat(lease.isValid()).isFalse();
        }
    }

    @Test
    void release_serverDown_throwsLeavesNoLocalStateAndNodeGoneAfterRestart(TestInfo info) throws Exception {
        ZooKeeperLockOptions options = fixture.options()
                .timeouts(TimeoutOptions.defaults().withConnectTimeout(Duration.ofMillis(300)))
                .build();
        try (ZooKeeperLockProvider a = fixture.newZkClient(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(20)).build(), options);
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            Lease lease = a.lock(name).acquire();
            fixture.stopServer();
            try {
                assertThatThrownBy(lease::release).isInstanceOf(io.distlock.BackendUnavailableException.class);
                assertThat(a.heldLeases()).isEmpty();
                assertThat(lease.isValid()).isFalse();
                assertThat(lease.release()).isFalse(); // idempotent, no second attempt
            } finally {
                fixture.startServer();
            }
            // Curator's guaranteed delete finishes the job once reconnected (well before the 20 s session timeout)
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fixture.children(a.internals().lockPath(name)).isEmpty());
            b.lock(name).tryAcquire().orElseThrow().release();
        }
    }

    @Test
    void autoRenewOff_holdPastLeaseTime_leaseLostAndLockFreed(TestInfo info) throws Exception {
        LockOptions noRenew = LockOptions.builder()
                .leaseTime(Duration.ofMillis(800))
                .autoRenew(false)
                .build();
        try (ZooKeeperLockProvider a = fixture.newZkClient(noRenew);
                ZooKeeperLockProvider b = client()) {
            assertThat(a.capabilities().automaticRenewal()).isFalse();
            String name = name(info);
            Lease lease = a.lock(name).acquire();
            assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(800));
            lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(lease.isValid()).isFalse();
            Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(next.fencingToken().getAsLong())
                    .isGreaterThan(lease.fencingToken().getAsLong());
            assertThat(lease.release()).isFalse();
            assertThat(next.isValid()).isTrue();
            next.release();
        }
    }

    @Test
    void lostWhileSuspended_holderNeverReleases_nodeGoneAfterReconnect(TestInfo info) throws Exception {
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofSeconds(4)).build();
        try (ZooKeeperLockProvider a = fixture.newZkClient(options);
                ZooKeeperLockProvider b = client()) {
            String name = name(info);
            Lease lease = a.lock(name).acquire();
            // an idle holder: its last answered request lies 2 s back when the server goes away, so
            // its validity ends well before Curator gives the session up (session timeout after
            // the disconnection) and the session survives the restart
            await().pollDelay(Duration.ofSeconds(2)).until(lease::isValid);
            fixture.stopServer();
            try {
                lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } finally {
                fixture.startServer();
            }
            // the holder never releases: whether its session survived the restart (the driver then
            // deletes the node on reconnect) or not (the node goes with the session), the node must
            // not outlive the lease
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fixture.children(a.internals().lockPath(name)).isEmpty());
            b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow().release();
        }
    }

    @Test
    void digestAcl_clientWithoutCredentials_cannotCreateOrDelete(TestInfo info) throws Exception {
        ZooKeeperLockOptions options = fixture.options()
                .rootPath("/secured")
                .credentials(Credentials.of("locks", "s3cret"))
                .build();
        try (ZooKeeperLockProvider p = fixture.newZkClient(SHORT, options)) {
            String name = name(info);
            Lease lease = p.lock(name).acquire();
            String parent = p.internals().lockPath(name);
            String node = parent + "/" + fixture.children(parent).get(0);
            assertThatThrownBy(() -> fixture.admin().delete().forPath(node))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThatThrownBy(() -> fixture.admin().create().forPath(parent + "/intruder"))
                    .isInstanceOf(KeeperException.NoAuthException.class);
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void close_providerWithOwnClient_leavesNoClientThreads(TestInfo info) throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        ZooKeeperLockProvider p = client();
        p.lock(name(info)).acquire();
        p.close();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(clientThreads(before)).isEmpty());
    }

    private static List<String> clientThreads(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t))
                .map(Thread::getName)
                .filter(n -> n.contains("SendThread")
                        || n.contains("EventThread")
                        || n.startsWith("distlock-")
                        || n.contains("Curator"))
                .collect(Collectors.toList());
    }

    @Test
    void close_providerWithGivenCurator_leavesClientOpen(TestInfo info) throws Exception {
        try (CuratorFramework curator =
                CuratorFrameworkFactory.newClient(fixture.connectString(), 5_000, 5_000, new RetryOneTime(50))) {
            curator.start();
            curator.blockUntilConnected();
            ZooKeeperLockProvider p =
                    ZooKeeperLockProvider.builder().curator(curator).build();
            Lease lease = p.lock(name(info)).acquire();
            p.close();
            assertThat(lease.isValid()).isFalse();
            assertThat(curator.getState()).isEqualTo(CuratorFrameworkState.STARTED);
            assertThat(fixture.children(p.internals().lockPath(name(info)))).isEmpty();
        }
    }

    @Test
    void open_zookeeperUri_opensWorkingProvider(TestInfo info) {
        String uri = "zookeeper://" + fixture.connectString() + "/chrooted?sessionTimeout=3s&leaseTime=3s";
        try (LockProvider p = LockProviders.open(uri)) {
            assertThat(p).isInstanceOf(ZooKeeperLockProvider.class);
            assertThat(p.unwrap(ZkInternals.class).orElseThrow().sessionTimeout())
                    .isEqualTo(Duration.ofSeconds(3));
            Optional<Lease> lease = p.lock(name(info)).tryAcquire();
            assertThat(lease).isPresent();
            lease.get().release();
        }
    }

    @Test
    void closeProvider_waiterBlocked_returnsPromptly(TestInfo info) throws Exception {
        try (ZooKeeperLockProvider a = client()) {
            ZooKeeperLockProvider b = client();
            String name = name(info);
            Lease lease = a.lock(name).acquire();
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<Throwable> result = CompletableFuture.supplyAsync(() -> {
                started.countDown();
                try {
                    b.lock(name).acquire();
                    return null;
                } catch (Throwable e) {
                    return e;
                }
            });
            started.await();
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 2);
            b.close();
            assertThat(result.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
            await().until(() -> fixture.children(a.internals().lockPath(name)).size() == 1);
            lease.release();
        }
    }
}
