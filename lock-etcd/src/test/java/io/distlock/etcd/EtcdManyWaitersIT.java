package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * 50 waiters on one lock: each release wakes one waiter (at most one read per hand-off, no write),
 * and a hand-off costs the same with 50 waiters queued as with 2.
 */
class EtcdManyWaitersIT {
    private static EtcdTestServer server;
    private static EtcdTckFixture fixture;

    @BeforeAll
    static void start() {
        server = EtcdTestServer.start();
        fixture = new EtcdTckFixture(List.of(server.endpoint()), server);
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    /**
     * Queues {@code waiters} behind a holder, releases, and returns each hand-off in µs. Each waiter,
     * once it holds the lock, keeps it until the server has answered its holder mark (every one of
     * them waited, so each marks its key): the waiter behind it then finds the mark in the delete.
     * (A holder that releases before its mark reached the server is handed off with one read, as
     * before the mark; EtcdHandOffIT's convoy covers that.)
     */
    private static List<Long> chain(List<EtcdLockProvider> ps, String name, int waiters, Map<String, Long> requests)
            throws Exception {
        // the holder marks of the previous chain's last holders may still be on their way
        server.awaitReceivedThenQuiet(server.received(), "Txn", 0);
        Lease held = ps.get(0).lock(name).acquire();
        Map<String, Long> start = server.received();
        AtomicLong lastRelease = new AtomicLong();
        java.util.concurrent.atomic.AtomicReference<Map<String, Long>> before =
                new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger holders = new java.util.concurrent.atomic.AtomicInteger();
        List<Long> handOffs = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(waiters);
        try {
            List<CompletableFuture<Void>> fs = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                EtcdLockProvider p = ps.get(1 + i % (ps.size() - 1));
                fs.add(CompletableFuture.runAsync(
                        () -> {
                            try {
                                Lease l = p.lock(name).acquire();
                                handOffs.add((System.nanoTime() - lastRelease.get()) / 1000);
                                int marks = holders.incrementAndGet();
                                // the server's metrics are read over HTTP: not counted as requests
                                org.awaitility.Awaitility.await()
                                        .atMost(Duration.ofSeconds(20))
                                        .pollInterval(Duration.ofMillis(2))
                                        .until(() -> EtcdTestServer.diff(before.get(), server.received())
                                                        .getOrDefault("Txn", 0L)
                                                >= marks);
                                lastRelease.set(System.nanoTime());
                                l.release();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        pool));
            }
            // every waiter is queued (its transaction) and watches its predecessor
            server.awaitReceivedThenQuiet(start, "Watch", waiters);
            assertThat(EtcdTestServer.diff(start, server.received()).get("Txn")).isEqualTo(waiters);
            before.set(server.received());
            lastRelease.set(System.nanoTime());
            held.release();
            CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
            requests.putAll(EtcdTestServer.diff(before.get(), server.received()));
        } finally {
            pool.shutdownNow();
        }
        return handOffs;
    }

    private static long median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }

    @Test
    void fiftyWaiters_eachReleaseWakesOne_handOffFlat() throws Exception {
        List<EtcdLockProvider> ps = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                ps.add(fixture.newClient(LockOptions.defaults()
                        .mutate()
                        .leaseTime(Duration.ofSeconds(10))
                        .build()));
                ps.get(i).lock("warm-up").tryAcquire().orElseThrow().release();
            }
            // Hand-offs come in two kinds: to the waiter that queued directly behind the holder (its
            // predecessor was the oldest key: the delete notification alone, no request) and to any
            // later waiter (the notification plus one read). Flat means: the second kind costs the
            // same with 50 waiters as with 2, i.e. nobody else is woken by a release.
            List<Long> direct = new ArrayList<>();
            List<Long> second = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                List<Long> two = chain(ps, "two-" + i, 2, new java.util.HashMap<>());
                direct.add(two.get(0));
                second.add(two.get(1));
            }
            Map<String, Long> requests = new java.util.HashMap<>();
            List<Long> fifty = chain(ps, "fifty", 50, requests);
            long m0 = median(direct);
            long m2 = median(second);
            long m50 = median(fifty.subList(1, fifty.size()));
            System.out.printf(
                    "etcd hand-off median µs: directly behind the holder %d (50-waiter queue: %d); further back:"
                            + " 2 waiters %d, 50 waiters %d; requests for 50 hand-offs: %s%n",
                    m0, fifty.get(0), m2, m50, requests);
            // the first waiter's predecessor was the oldest key: no request; every later one finds
            // its predecessor's holder mark in the delete (see EtcdContender.markHolder) and reads
            // nothing (before the mark: 49 reads). Nobody else is woken.
            assertThat(requests.getOrDefault("Range", 0L)).isLessThanOrEqualTo(2L);
            // each of the 50 waiters marked its key once it held (one conditional transaction)
            assertThat(requests.getOrDefault("Txn", 0L)).isEqualTo(50L);
            assertThat(requests).doesNotContainKeys("Put");
            assertThat(requests.get("DeleteRange")).as("51 releases").isEqualTo(51L);
            // flat: within 1.5x of the hand-off to a second waiter (plus 3 ms of scheduling noise
            // on a shared 2-core machine)
            assertThat(m50).isLessThanOrEqualTo(Math.max((long) (m2 * 1.5), m2 + 3_000));
        } finally {
            for (EtcdLockProvider p : ps) {
                p.close();
            }
        }
    }
}
