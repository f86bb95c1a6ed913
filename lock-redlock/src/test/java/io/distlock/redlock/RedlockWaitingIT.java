package io.distlock.redlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Waiting and releasing under load, on five real redis-server processes: waiters are woken by the
 * wake message of any node, one waiter of one provider per release (no herd within a provider or
 * across providers), and a release is confirmed while the provider's I/O threads are busy with other
 * acquisitions.
 */
class RedlockWaitingIT {

    private static RedlockLockProvider open(
            List<String> addresses, RedlockLockOptions options, LockOptions lockOptions) {
        return RedlockLockProvider.builder()
                .nodes(addresses)
                .options(options)
                .lockOptions(lockOptions)
                .build();
    }

    private static List<String> addresses(RedisServers nodes) {
        return List.of(nodes.addresses().split(","));
    }

    /** A 10 s lease, no renewal, and a retry delay so long that only release messages are fast. */
    private static RedlockLockProvider slowPolling(List<String> addresses) {
        return slowPolling(addresses, Duration.ofSeconds(10));
    }

    /**
     * The first holder: as {@link #slowPolling(List)}, with a 2 min lease, so that it still holds
     * when the waiters have queued, however slowly the machine sets them up.
     */
    private static RedlockLockProvider holder(List<String> addresses) {
        return slowPolling(addresses, Duration.ofMinutes(2));
    }

    private static RedlockLockProvider slowPolling(List<String> addresses, Duration leaseTime) {
        return open(
                addresses,
                RedlockLockOptions.builder()
                        // a queued try must reach every node even on a loaded machine: a node that
                        // misses it would leave the waiter unqueued there until its next try, seconds on
                        .nodeTimeout(Duration.ofSeconds(1))
                        .maxRetryDelay(Duration.ofSeconds(5)) // polling would take seconds: only messages are fast
                        .build(),
                LockOptions.builder().leaseTime(leaseTime).autoRenew(false).build());
    }

    private static long evalshaCalls(RedisServers nodes) {
        long total = 0;
        for (RedisServer s : nodes.servers()) {
            try (Jedis j = new Jedis(s.host(), s.port())) {
                for (String line : j.info("commandstats").split("\r?\n")) {
                    if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                        String calls = line.split("calls=")[1].split(",")[0];
                        total += Long.parseLong(calls);
                    }
                }
            }
        }
        return total;
    }

    /**
     * A started thread that waits up to 20 s for lock {@code name} on {@code provider}, runs {@code
     * acquired} when it holds it and releases it; a failure counts in {@code failures}.
     */
    private static Thread waiter(
            RedlockLockProvider provider,
            String name,
            int i,
            AtomicInteger failures,
            CountDownLatch done,
            Runnable acquired) {
        Thread t = new Thread(
                () -> {
                    try {
                        Optional<Lease> l = provider.lock(name).tryAcquire(Duration.ofSeconds(20));
                        if (l.isEmpty()) {
                            failures.incrementAndGet();
                            return;
                        }
                        acquired.run();
                        l.get().release();
                    } catch (InterruptedException | RuntimeException e) {
                        failures.incrementAndGet();
                    } finally {
                        done.countDown();
                    }
                },
                "redlock-waiting-it-" + i);
        t.start();
        return t;
    }

    /** Subscriptions to the wake channels of lock {@code name} (one per provider), summed over the nodes. */
    private static long subscriptions(RedisServers nodes, String name) {
        long n = 0;
        for (RedisServer s : nodes.servers()) {
            try (Jedis j = new Jedis(s.host(), s.port())) {
                List<String> channels = j.pubsubChannels("distlock-redlock:{" + name + "}:released:*");
                if (!channels.isEmpty()) {
                    n += j.pubsubNumSub(channels.toArray(new String[0])).values().stream()
                            .mapToLong(Long::longValue)
                            .sum();
                }
            }
        }
        return n;
    }

    /** Members of lock {@code name}'s wake-up queue on each node. */
    private static List<Long> queued(RedisServers nodes, String name) {
        List<Long> out = new ArrayList<>();
        for (RedisServer s : nodes.servers()) {
            try (Jedis j = new Jedis(s.host(), s.port())) {
                out.add(j.zcard("distlock-redlock:{" + name + "}:queue"));
            }
        }
        return out;
    }

    /**
     * Ten waiters of one provider: each release wakes one of them, which takes the lock with one
     * round; the others stay asleep. Counted on the servers: the scripts per hand-off stay far below
     * what ten woken waiters would send (ten rounds on five nodes), and the provider holds one
     * subscription per node, not one per waiter.
     */
    @Test
    void waiters_manyInOneProvider_eachReleaseWakesOneAndHandsOffFast() throws Exception {
        int waiters = 10;
        try (RedisServers nodes = RedisServers.independentMasters(5);
                RedlockLockProvider holder = holder(addresses(nodes));
                RedlockLockProvider many = slowPolling(addresses(nodes))) {
            Lease first = holder.lock("handoff").tryAcquire().orElseThrow();
            ConcurrentLinkedQueue<Long> handoffNanos = new ConcurrentLinkedQueue<>();
            AtomicLong releasedAt = new AtomicLong();
            AtomicInteger failures = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(waiters);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                threads.add(waiter(many, "handoff", i, failures, done, () -> {
                    handoffNanos.add(System.nanoTime() - releasedAt.get());
                    releasedAt.set(System.nanoTime());
                }));
            }
            // every waiter has tried, subscribed and gone to sleep: one subscription per node
            await().atMost(Duration.ofSeconds(10)).until(() -> subscriptions(nodes, "handoff") == 5);
            long scriptsBefore = evalshaCalls(nodes);
            releasedAt.set(System.nanoTime());
            assertThat(first.release()).isTrue();
            assertThat(done.await(30, TimeUnit.SECONDS)).as("all waiters done").isTrue();
            long scripts = evalshaCalls(nodes) - scriptsBefore;
            assertThat(failures).hasValue(0);
            assertThat(handoffNanos).hasSize(waiters);
            List<Long> millis = handoffNanos.stream()
                    .map(TimeUnit.NANOSECONDS::toMillis)
                    .sorted()
                    .toList();
            // polling would take 1.25-5 s per hand-off; a release message takes milliseconds
            assertThat(millis.get(millis.size() / 2))
                    .as("median hand-off ms %s", millis)
                    .isLessThan(300);
            // one hand-off: round 1 on 5 + release on 5 = 10 scripts (a raise where counters are
            // apart); ten waiters woken at once would send at least 10 x 5 per release
            assertThat(scripts / waiters)
                    .as("scripts per hand-off (%d in all)", scripts)
                    .isLessThan(30);
            threads.forEach(t -> assertThat(t.isAlive()).isFalse());
        }
    }

    /**
     * Ten providers with one waiter each, queued on every node: each release wakes the first
     * provider in line only (its wake channel), which takes the lock with one round, while the other
     * nine stay asleep. Counted on the servers: about ten scripts per hand-off (round 1 and release
     * on five nodes) where waking every provider would send at least one script per provider; the
     * hand-offs go in queue order; the queue is empty at the end.
     */
    @Test
    void waiters_oneInEachOfManyProviders_eachReleaseWakesOneProviderInQueueOrder() throws Exception {
        int waiters = 10;
        String name = "handoff-providers";
        List<RedlockLockProvider> providers = new ArrayList<>();
        try (RedisServers nodes = RedisServers.independentMasters(5);
                RedlockLockProvider holder = holder(addresses(nodes))) {
            Lease first = holder.lock(name).tryAcquire().orElseThrow();
            ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
            AtomicInteger failures = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(waiters);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                RedlockLockProvider p = slowPolling(addresses(nodes));
                providers.add(p);
                // warm connections, so that its queued try reaches every node in time
                assertThat(p.lock("warm-up")
                                .tryAcquire(Duration.ofSeconds(5))
                                .orElseThrow()
                                .release())
                        .isTrue();
                int id = i;
                threads.add(waiter(p, name, i, failures, done, () -> order.add(id)));
                // queued one after the other: provider i is i-th in line on every node
                int queuedSoFar = i + 1;
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(queued(nodes, name))
                                .as("members queued on each node")
                                .containsOnly((long) queuedSoFar));
            }
            assertThat(subscriptions(nodes, name)).isEqualTo(5L * waiters);
            long scriptsBefore = evalshaCalls(nodes);
            assertThat(first.release()).isTrue();
            assertThat(done.await(30, TimeUnit.SECONDS)).as("all waiters done").isTrue();
            long scripts = evalshaCalls(nodes) - scriptsBefore;
            assertThat(failures).hasValue(0);
            assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
            assertThat(scripts / waiters)
                    .as("scripts per hand-off (%d in all)", scripts)
                    .isLessThanOrEqualTo(12);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> queued(nodes, name).stream().allMatch(q -> q == 0));
            threads.forEach(t -> assertThat(t.isAlive()).isFalse());
        } finally {
            providers.forEach(RedlockLockProvider::close);
        }
    }

    /**
     * A release is sent on each node's release lane and gives each node the node timeout from the
     * moment its request is sent: three of five nodes answer slowly (40 ms per round trip, node
     * timeout 200 ms) while twelve threads of the same provider keep its two I/O threads per node
     * busy with acquisitions of other locks. Before the release lane, releases queued behind those
     * acquisitions (and behind round-1 requests of their own acquisition that were still queued)
     * and missed their majority ({@code release ... is unconfirmed}).
     */
    @Test
    void release_ioThreadsBusyWithAcquisitions_isStillConfirmed() throws Exception {
        try (RedisServers nodes = RedisServers.independentMasters(5)) {
            List<TcpProxy> proxies = new ArrayList<>();
            List<String> addrs = new ArrayList<>(addresses(nodes));
            try {
                for (int i = 0; i < 3; i++) {
                    TcpProxy p =
                            TcpProxy.start(nodes.get(i).host(), nodes.get(i).port());
                    p.setLatency(Duration.ofMillis(20));
                    proxies.add(p);
                    addrs.set(i, p.address());
                }
                RedlockLockOptions options = RedlockLockOptions.builder()
                        .nodeTimeout(Duration.ofMillis(200))
                        .poolSize(2)
                        .build();
                LockOptions lockOptions = LockOptions.builder()
                        .leaseTime(Duration.ofSeconds(5))
                        .autoRenew(false)
                        .build();
                try (RedlockLockProvider p = open(addrs, options, lockOptions)) {
                    int threads = 12;
                    AtomicInteger releases = new AtomicInteger();
                    AtomicInteger unconfirmed = new AtomicInteger();
                    AtomicInteger busy = new AtomicInteger();
                    List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
                    long endBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
                    List<Thread> workers = new ArrayList<>();
                    for (int i = 0; i < threads; i++) {
                        String name = "busy-" + i;
                        Thread t = new Thread(
                                () -> {
                                    while (System.nanoTime() - endBy < 0) {
                                        Optional<Lease> l;
                                        try {
                                            l = p.lock(name).tryAcquire();
                                        } catch (BackendUnavailableException e) {
                                            busy.incrementAndGet(); // acquisition rounds may time out here
                                            continue;
                                        }
                                        if (l.isEmpty()) {
                                            continue;
                                        }
                                        long start = System.nanoTime();
                                        try {
                                            l.get().release();
                                            releases.incrementAndGet();
                                        } catch (BackendUnavailableException e) {
                                            unconfirmed.incrementAndGet();
                                            errors.add("after "
                                                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
                                                    + " ms: " + e.getMessage());
                                        }
                                    }
                                },
                                "redlock-busy-it-" + i);
                        workers.add(t);
                        t.start();
                    }
                    for (Thread t : workers) {
                        t.join(TimeUnit.SECONDS.toMillis(30));
                        assertThat(t.isAlive()).isFalse();
                    }
                    assertThat(releases.get())
                            .as("releases (acquisitions that timed out: %d)", busy.get())
                            .isGreaterThan(20);
                    assertThat(unconfirmed.get())
                            .as("unconfirmed releases out of %d: %s", releases.get(), errors)
                            .isZero();
                }
            } finally {
                proxies.forEach(TcpProxy::close);
            }
        }
    }
}
