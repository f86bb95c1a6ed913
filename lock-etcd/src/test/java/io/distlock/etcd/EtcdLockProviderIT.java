package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.etcd.jetcd.options.CompactOption;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EtcdLockProviderIT {
    private static EtcdTckFixture fixture;
    private final List<LockProvider> clients = new ArrayList<>();

    @BeforeAll
    static void startServer() {
        EtcdTestServer server = EtcdTestServer.start();
        fixture = new EtcdTckFixture(List.of(server.endpoint()), server);
    }

    @AfterAll
    static void stopServer() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @AfterEach
    void closeClients() {
        for (LockProvider c : clients) {
            c.close();
        }
    }

    private EtcdLockProvider client(Duration leaseTime) {
        EtcdLockProvider p = fixture.newClient(
                LockOptions.defaults().mutate().leaseTime(leaseTime).build());
        clients.add(p);
        return p;
    }

    private EtcdLockProvider client() {
        return client(Duration.ofSeconds(2));
    }

    private static String name() {
        return "it-" + UUID.randomUUID();
    }

    @Test
    void tryAcquire_heldByOtherClient_returnsEmptyThenLargerTokenAfterRelease() {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client();
        String name = name();
        Lease first = a.lock(name).tryAcquire().orElseThrow();
        assertThat(first.isValid()).isTrue();
        assertThat(first.fencingToken()).isPresent();
        assertThat(b.lock(name).tryAcquire()).isEmpty();
        assertThat(first.release()).isTrue();
        Lease second = b.lock(name).tryAcquire().orElseThrow();
        assertThat(second.fencingToken().getAsLong())
                .isGreaterThan(first.fencingToken().getAsLong());
        second.release();
        assertThat(fixture.keys(name)).isEmpty();
    }

    @Test
    void tryAcquire_sameProviderTwoAttempts_secondIsRefused() {
        EtcdLockProvider a = client();
        String name = name();
        Lease first = a.lock(name).tryAcquire().orElseThrow();
        assertThat(a.lock(name).tryAcquire()).isEmpty();
        first.release();
        assertThat(fixture.keys(name)).isEmpty();
    }

    @Test
    void acquire_sameProviderManyThreads_excludesEachOther() throws Exception {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client();
        String name = name();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                EtcdLockProvider p = t % 2 == 0 ? a : b;
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        try (Lease l = p.lock(name).acquire()) {
                            tokens.add(l.fencingToken().getAsLong());
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(tokens).hasSize(60).doesNotHaveDuplicates();
        assertThat(fixture.keys(name)).isEmpty();
    }

    @Test
    void acquire_waiter_isHandedTheLockQuicklyOnRelease() throws Exception {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client();
        String name = name();
        List<Long> handOffMicros = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            Lease held = a.lock(name).acquire();
            CountDownLatch waiting = new CountDownLatch(1);
            CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
                waiting.countDown();
                try (Lease l = b.lock(name).acquire()) {
                    return System.nanoTime();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            waiting.await();
            await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 2);
            long released = System.nanoTime();
            held.release();
            long got = acquiredAt.get(5, TimeUnit.SECONDS);
            handOffMicros.add((got - released) / 1000);
        }
        Collections.sort(handOffMicros);
        long median = handOffMicros.get(handOffMicros.size() / 2);
        // a watch served from etcd 3.4's unsynced group would add up to 100 ms
        System.out.println("etcd hand-off µs (sorted): " + handOffMicros);
        assertThat(median).as("median hand-off µs of %s", handOffMicros).isLessThan(60_000);
    }

    @Test
    void tryAcquireWithTimeout_expires_leavesNoKey() throws Exception {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client();
        String name = name();
        Lease held = a.lock(name).acquire();
        assertThat(b.lock(name).tryAcquire(Duration.ofMillis(200))).isEmpty();
        assertThat(fixture.keys(name)).hasSize(1);
        held.release();
    }

    @Test
    void acquire_interrupted_leavesNoKey() throws Exception {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client();
        String name = name();
        Lease held = a.lock(name).acquire();
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                b.lock(name).acquire();
                outcome.complete(null);
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 2);
        waiter.interrupt();
        assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(fixture.keys(name)).hasSize(1);
        held.release();
    }

    @Test
    void expireLease_holderRevoked_lostSignalFiresAndOtherAcquiresWithLargerToken() throws Exception {
        EtcdLockProvider a = client(Duration.ofSeconds(5));
        EtcdLockProvider b = client();
        String name = name();
        Lease held = a.lock(name).acquire();
        CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> {
            try {
                return b.lock(name).acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 2);
        long t0 = System.nanoTime();
        fixture.expireLease(name);
        LeaseLostException lost = held.lost().toCompletableFuture().get(2, TimeUnit.SECONDS);
        long lostAfterMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(lost).isNotNull();
        assertThat(lostAfterMs).as("loss signalled after revoke").isLessThan(1000);
        assertThat(held.isValid()).isFalse();
        Lease second = next.get(5, TimeUnit.SECONDS);
        assertThat(second.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThatThrownBy(held::checkValid).isInstanceOf(LeaseLostException.class);
        second.release();
        // the revoked provider goes on working with a new session
        Lease again = a.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        again.release();
    }

    @Test
    void waiterOnRevokedSession_requeuesAndAcquires() throws Exception {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client(Duration.ofSeconds(5));
        String name = name();
        Lease held = a.lock(name).acquire();
        CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> {
            try {
                return b.lock(name).acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 2);
        long waiterLease = fixture.keys(name).get(1).getLease();
        fixture.admin().getLeaseClient().revoke(waiterLease).get(5, TimeUnit.SECONDS);
        // the waiter queues again on a new session at once
        await().atMost(Duration.ofSeconds(3))
                .until(() -> fixture.keys(name).size() == 2
                        && fixture.keys(name).get(1).getLease() != waiterLease);
        held.release();
        Lease second = next.get(5, TimeUnit.SECONDS);
        second.release();
        assertThat(fixture.keys(name)).isEmpty();
    }

    @Test
    void hold_longerThanSeveralLeaseTimes_staysValid() throws Exception {
        EtcdLockProvider a = client(Duration.ofSeconds(1));
        String name = name();
        Lease held = a.lock(name).acquire();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3500);
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> {
                    assertThat(held.isValid()).isTrue();
                    return System.nanoTime() > until;
                });
        assertThat(held.remainingValidity()).isPositive();
        assertThat(held.release()).isTrue();
    }

    @Test
    void crash_holderStopsKeepalive_otherAcquiresAfterTtl() throws Exception {
        EtcdLockProvider a = client(Duration.ofSeconds(1));
        EtcdLockProvider b = client();
        String name = name();
        Lease held = a.lock(name).acquire();
        fixture.crashClient(a);
        assertThat(fixture.keys(name)).hasSize(1);
        long t0 = System.nanoTime();
        Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(tookMs).isBetween(300L, 5000L);
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        next.release();
    }

    @Test
    void close_revokesSession_otherAcquiresAtOnce() throws Exception {
        EtcdLockProvider a = fixture.newClient(LockOptions.defaults()
                .mutate()
                .leaseTime(Duration.ofSeconds(30))
                .build());
        EtcdLockProvider b = client();
        String name = name();
        a.lock(name).acquire();
        a.lock(name + "-2").acquire();
        a.close();
        assertThat(fixture.keys(name)).isEmpty();
        assertThat(b.lock(name).tryAcquire()).isPresent();
    }

    @Test
    void waiter_predecessorWatchRevisionCompacted_stillAcquires() throws Exception {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client();
        String name = name();
        Lease held = a.lock(name).acquire();
        CompletableFuture<Lease> next = CompletableFuture.supplyAsync(() -> {
            try {
                return b.lock(name).acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 2);
        // write some revisions and compact past the waiter's start revision
        var kv = fixture.admin().getKVClient();
        long rev = 0;
        for (int i = 0; i < 5; i++) {
            rev = kv.put(EtcdDriverTestKeys.bytes("/compact-filler"), EtcdDriverTestKeys.bytes("x" + i))
                    .get(5, TimeUnit.SECONDS)
                    .getHeader()
                    .getRevision();
        }
        kv.compact(rev, CompactOption.builder().withCompactPhysical(true).build())
                .get(5, TimeUnit.SECONDS);
        held.release();
        Lease second = next.get(5, TimeUnit.SECONDS);
        assertThat(second.isValid()).isTrue();
        second.release();
    }

    @Test
    void open_etcdUri_givesWorkingProvider() throws Exception {
        String hostPort = fixture.endpoints().get(0).replace("http://", "");
        URI uri = URI.create("etcd://" + hostPort + ",127.0.0.1:1/distlock-test/?leaseTime=2s&requestTimeout=3s");
        try (LockProvider p = LockProviders.open(uri)) {
            assertThat(p).isInstanceOf(EtcdLockProvider.class);
            String name = name();
            Optional<Lease> l = p.lock(name).tryAcquire(Duration.ofSeconds(5));
            assertThat(l).isPresent();
            assertThat(fixture.keys(name)).hasSize(1);
            l.get().release();
        }
    }

    @Test
    void jetcdWatch_withCreateNotify_deliversCreatedResponse() throws Exception {
        // the driver's "no missed delete" argument depends on this notification
        CompletableFuture<Boolean> created = new CompletableFuture<>();
        try (var w = fixture.admin()
                .getWatchClient()
                .watch(
                        EtcdDriverTestKeys.bytes("/no-such-key-" + UUID.randomUUID()),
                        io.etcd.jetcd.options.WatchOption.builder()
                                .withCreateNotify(true)
                                .build(),
                        r -> created.complete(r.isCreatedNotify()))) {
            assertThat(created.get(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void contended_eightClients_handOffsAreNotPacedByUnsyncedWatches() throws Exception {
        List<EtcdLockProvider> ps = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ps.add(client());
        }
        String name = name();
        for (EtcdLockProvider p : ps) {
            p.lock(name + "-warm-up").tryAcquire().orElseThrow().release(); // grants the session
        }
        int perClient = 10;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        long t0 = System.nanoTime();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (EtcdLockProvider p : ps) {
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < perClient; i++) {
                        try (Lease l = p.lock(name).acquire()) {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        double perSecond = 80 / ((System.nanoTime() - t0) / 1e9);
        assertThat(maxInside.get()).isEqualTo(1);
        // jetcd's Lock manages about 40/s here (hand-offs paced by the 100 ms unsynced-watch loop)
        assertThat(perSecond).as("acquisitions per second").isGreaterThan(40);
        System.out.printf("etcd contended 8 clients: %.0f acquisitions/s%n", perSecond);
    }

    private static CompletableFuture<Lease> acquireAsync(EtcdLockProvider p, String name) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return p.lock(name).acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void waiters_queueInArrivalOrder() throws Exception {
        EtcdLockProvider holder = client();
        String name = name();
        Lease held = holder.lock(name).acquire();
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiters.add(acquireAsync(client(), name));
            int expected = i + 2;
            await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == expected);
        }
        held.release();
        long last = held.fencingToken().getAsLong();
        for (CompletableFuture<Lease> w : waiters) {
            Lease l = w.get(5, TimeUnit.SECONDS);
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(last);
            last = l.fencingToken().getAsLong();
            l.release();
        }
    }

    @Test
    void middleWaiterGivesUp_lastWaiterWatchesTheHolderAndAcquiresOnRelease() throws Exception {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client();
        EtcdLockProvider c = client();
        String name = name();
        Lease held = a.lock(name).acquire();
        CompletableFuture<Optional<Lease>> middle = CompletableFuture.supplyAsync(() -> {
            try {
                return b.lock(name).tryAcquire(Duration.ofMillis(700));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 2);
        CompletableFuture<Lease> last = acquireAsync(c, name);
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 3);
        assertThat(middle.get(5, TimeUnit.SECONDS)).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 2);
        assertThat(last).isNotDone();
        long released = System.nanoTime();
        held.release();
        Lease l = last.get(5, TimeUnit.SECONDS);
        assertThat((System.nanoTime() - released) / 1_000_000).isLessThan(1000);
        l.release();
    }

    /**
     * The hand-off without a request must not trust a predecessor's delete alone: a waiter whose own
     * key was deleted while it waited (here by another client, as an expired lease would) must not
     * take the lock when the keys ahead of it go, and the waiter behind it, whose older keys are all
     * gone, must. Two waiters that time out mid-queue leave no trace either.
     */
    @Test
    void waiterWhoseKeyWasDeleted_doesNotTakeTheLock_nextWaiterDoes_midQueueTimeoutsIgnored() throws Exception {
        EtcdLockProvider a = client();
        EtcdLockProvider b = client();
        EtcdLockProvider c = client();
        EtcdLockProvider d = client();
        String name = name();
        Lease held = a.lock(name).acquire();
        CompletableFuture<Lease> second = acquireAsync(b, name);
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 2);
        CompletableFuture<Optional<Lease>> gaveUp = CompletableFuture.supplyAsync(() -> {
            try {
                return c.lock(name).tryAcquire(Duration.ofMillis(600));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 3);
        CompletableFuture<Lease> fourth = acquireAsync(d, name);
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 4);
        assertThat(gaveUp.get(5, TimeUnit.SECONDS)).isEmpty(); // timed out mid-queue
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 3);
        // delete the second waiter's key behind its back
        io.etcd.jetcd.ByteSequence secondKey = fixture.keys(name).get(1).getKey();
        fixture.admin().getKVClient().delete(secondKey).get(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).size() == 3); // it queued again
        assertThat(second).isNotDone();
        assertThat(fourth).isNotDone();
        held.release();
        Lease next = fourth.get(5, TimeUnit.SECONDS);
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        assertThat(second).isNotDone(); // it is behind the fourth now
        assertThat(next.isValid()).isTrue();
        next.release();
        Lease after = second.get(5, TimeUnit.SECONDS);
        assertThat(after.fencingToken().getAsLong())
                .isGreaterThan(next.fencingToken().getAsLong());
        after.release();
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.keys(name).isEmpty());
    }

    @Test
    void close_provider_leavesNoServerConnections() {
        int before = fixture.serverConnectionCount();
        EtcdLockProvider p = fixture.newClient(
                LockOptions.defaults().mutate().leaseTime(Duration.ofSeconds(2)).build());
        p.lock(name()).tryAcquire().orElseThrow().release();
        // a previous test's connection may still be closing, so "before" can shrink meanwhile: compare
        // with the count while this provider is open, and never end above the count before it opened
        int during = fixture.serverConnectionCount();
        p.close();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> fixture.serverConnectionCount() < during && fixture.serverConnectionCount() <= before);
    }
}
