package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.lockKey;
import static io.distlock.redis.RedisTestAccess.scriptCalls;
import static io.distlock.redis.RedisTestAccess.subscribedChannels;
import static io.distlock.redis.RedisTestAccess.tokenKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.TimeoutOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;

/** The Redis provider against a real local redis-server. */
class RedisLockProviderIT {
    private static RedisTckFixture fixture;
    private final List<LockProvider> clients = new ArrayList<>();
    private String name;

    @BeforeAll
    static void startServer() {
        fixture = RedisTckFixture.standalone();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    @org.junit.jupiter.api.BeforeEach
    void name(TestInfo info) {
        name = "it/" + info.getDisplayName() + "/{slot}";
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockProvider::close);
    }

    private RedisLockProvider client(Duration leaseTime) {
        RedisLockProvider p = (RedisLockProvider)
                fixture.newClient(LockOptions.builder().leaseTime(leaseTime).build());
        clients.add(p);
        return p;
    }

    private RedisLockProvider client(RedisLockOptions options) {
        return client(options, LockOptions.defaults());
    }

    private RedisLockProvider client(RedisLockOptions options, LockOptions lockOptions) {
        RedisLockProvider p = RedisLockProvider.builder()
                .standalone(fixture.server().host(), fixture.server().port())
                .options(options)
                .lockOptions(lockOptions)
                .build();
        clients.add(p);
        return p;
    }

    private Jedis admin() {
        return fixture.admin();
    }

    @Test
    void tryAcquire_free_returnsLeaseWithTokenAndSetsKeyWithTtl() {
        RedisLockProvider a = client(Duration.ofSeconds(5));
        try (Lease lease = a.lock(name).tryAcquire().orElseThrow();
                Jedis admin = admin()) {
            assertThat(lease.fencingToken()).isPresent();
            assertThat(lease.isValid()).isTrue();
            assertThat(admin.pttl(lockKey(a, name))).isBetween(1L, 5000L);
            assertThat(admin.pttl(tokenKey(a, name)))
                    .isGreaterThan(Duration.ofDays(6).toMillis())
                    .isLessThanOrEqualTo(RedisLockOptions.DEFAULT_COUNTER_RETENTION.toMillis());
        }
    }

    @Test
    void tryAcquire_heldByOtherClient_returnsEmpty() {
        RedisLockProvider a = client(Duration.ofSeconds(5));
        RedisLockProvider b = client(Duration.ofSeconds(5));
        try (Lease lease = a.lock(name).tryAcquire().orElseThrow()) {
            assertThat(b.lock(name).tryAcquire()).isEmpty();
            assertThat(lease.isValid()).isTrue();
        }
        assertThat(b.lock(name).tryAcquire()).isPresent();
    }

    @Test
    void release_successiveHolders_tokensStrictlyIncrease() {
        RedisLockProvider a = client(Duration.ofSeconds(5));
        RedisLockProvider b = client(Duration.ofSeconds(5));
        long previous = 0;
        for (int i = 0; i < 20; i++) {
            RedisLockProvider p = i % 2 == 0 ? a : b;
            try (Lease lease = p.lock(name).tryAcquire().orElseThrow()) {
                long token = lease.fencingToken().getAsLong();
                assertThat(token).isGreaterThan(previous);
                previous = token;
            }
        }
    }

    @Test
    void fencingToken_counterKeyDeleted_nextTokenStillLarger() {
        RedisLockProvider a = client(Duration.ofSeconds(5));
        long first;
        try (Lease lease = a.lock(name).tryAcquire().orElseThrow()) {
            first = lease.fencingToken().getAsLong();
        }
        try (Jedis admin = admin()) {
            admin.del(tokenKey(a, name)); // as after counterRetention, or a restart without persistence
        }
        try (Lease lease = a.lock(name).tryAcquire().orElseThrow()) {
            assertThat(lease.fencingToken().getAsLong()).isGreaterThan(first);
        }
    }

    @Test
    void release_afterLockLostAndReacquiredByOther_leavesNewHolderAlone() {
        RedisLockProvider a = client(
                RedisLockOptions.defaults(),
                LockOptions.builder()
                        .leaseTime(Duration.ofSeconds(5))
                        .autoRenew(false)
                        .build());
        RedisLockProvider b = client(Duration.ofSeconds(5));
        Lease stale = a.lock(name).tryAcquire().orElseThrow();
        fixture.expireLease(name);
        try (Lease current = b.lock(name).tryAcquire().orElseThrow()) {
            assertThat(stale.release()).isFalse();
            try (Jedis admin = admin()) {
                assertThat(admin.exists(lockKey(b, name))).isTrue();
            }
            assertThat(a.lock(name).tryAcquire()).isEmpty();
            assertThat(current.fencingToken().getAsLong())
                    .isGreaterThan(stale.fencingToken().getAsLong());
        }
    }

    @Test
    void tryAcquireWithWait_holderReleases_waiterWokenByNotificationLongBeforeTtl() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(30));
        RedisLockProvider b = client(Duration.ofSeconds(30));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Optional<Lease>> waiter = pool.submit(() -> b.lock(name).tryAcquire(Duration.ofSeconds(20)));
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribedChannels(b) == 1);
            long releasedAt = System.nanoTime();
            held.release();
            Optional<Lease> got = waiter.get(10, TimeUnit.SECONDS);
            long handOff = System.nanoTime() - releasedAt;
            assertThat(got).isPresent();
            assertThat(Duration.ofNanos(handOff)).isLessThan(Duration.ofSeconds(2));
            got.get().release();
            await().atMost(Duration.ofSeconds(2)).until(() -> subscribedChannels(b) == 0);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void tryAcquireWithWait_timesOut_leavesNoSubscriptionBehind() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(10));
        RedisLockProvider b = client(Duration.ofSeconds(10));
        try (Lease held = a.lock(name).tryAcquire().orElseThrow()) {
            long start = System.nanoTime();
            assertThat(b.lock(name).tryAcquire(Duration.ofMillis(300))).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            assertThat(subscribedChannels(b)).isZero();
            try (Jedis admin = admin()) {
                String channel = "distlock:{" + io.distlock.LockNames.encode(name) + "}:released";
                await().atMost(Duration.ofSeconds(2))
                        .until(() -> admin.pubsubNumSub(channel).get(channel) == 0L);
            }
            assertThat(held.isValid()).isTrue();
        }
    }

    @Test
    void tryAcquireWithWait_holderCrashes_waiterAcquiresAfterTtl() throws Exception {
        RedisLockProvider a = client(Duration.ofMillis(600));
        RedisLockProvider b = client(Duration.ofMillis(600));
        long token = a.lock(name).tryAcquire().orElseThrow().fencingToken().getAsLong();
        long crashedAt = System.nanoTime();
        fixture.crashClient(a);
        Lease next = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        Duration waited = Duration.ofNanos(System.nanoTime() - crashedAt);
        assertThat(waited).isLessThan(Duration.ofMillis(600 + 500));
        assertThat(next.fencingToken().getAsLong()).isGreaterThan(token);
        next.release();
    }

    @Test
    void renewal_holdLongerThanLease_keepsLockAndOthersOut() throws Exception {
        RedisLockProvider a = client(Duration.ofMillis(300));
        RedisLockProvider b = client(Duration.ofMillis(300));
        try (Lease lease = a.lock(name).tryAcquire().orElseThrow()) {
            assertThat(b.lock(name).tryAcquire(Duration.ofMillis(1000))).isEmpty();
            assertThat(lease.isValid()).isTrue();
            lease.checkValid();
        }
    }

    @Test
    void renewal_keyDeletedOnServer_leaseReportedLost() throws Exception {
        RedisLockProvider a = client(Duration.ofMillis(300));
        Lease lease = a.lock(name).tryAcquire().orElseThrow();
        CountDownLatch lost = new CountDownLatch(1);
        lease.lost().thenAccept(e -> lost.countDown());
        fixture.expireLease(name);
        assertThat(lost.await(2, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::checkValid).isInstanceOf(LeaseLostException.class);
        assertThat(lease.release()).isFalse();
    }

    @Test
    void serverStopped_duringHold_leaseReportedLostByValidityDeadline() throws Exception {
        RedisLockProvider a = client(
                RedisLockOptions.builder()
                        .timeouts(TimeoutOptions.of(Duration.ofMillis(200)))
                        .build(),
                LockOptions.builder().leaseTime(Duration.ofMillis(500)).build());
        String lockName = name;
        Lease lease = a.lock(lockName).tryAcquire().orElseThrow();
        long acquiredAt = System.nanoTime();
        CountDownLatch lost = new CountDownLatch(1);
        lease.lost().thenAccept(e -> lost.countDown());
        fixture.stopServer();
        try {
            assertThat(lost.await(3, TimeUnit.SECONDS)).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - acquiredAt)).isLessThan(Duration.ofMillis(500 + 300));
            assertThat(lease.isValid()).isFalse();
        } finally {
            fixture.startServer();
        }
    }

    @Test
    void mutualExclusion_fourClientsEightThreads_noLostUpdates() throws Exception {
        List<RedisLockProvider> ps = List.of(
                client(Duration.ofSeconds(2)),
                client(Duration.ofSeconds(2)),
                client(Duration.ofSeconds(2)),
                client(Duration.ofSeconds(2)));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        int[] counter = {0};
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                RedisLockProvider p = ps.get(t % 4);
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        try (Lease l = p.lock(name).acquire()) {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            int v = counter[0];
                            Thread.yield();
                            counter[0] = v + 1;
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
        assertThat(counter[0]).isEqualTo(200);
    }

    @Test
    void waiting_hundredThreadsOnOneLock_useOneSubscriberConnectionPlusPool() throws Exception {
        RedisLockProvider holder = client(Duration.ofSeconds(10));
        RedisLockProvider waiters = client(Duration.ofSeconds(10));
        int before = fixture.serverConnectionCount();
        Lease held = holder.lock(name).tryAcquire().orElseThrow();
        ExecutorService pool = Executors.newFixedThreadPool(100);
        try {
            CountDownLatch acquired = new CountDownLatch(100);
            for (int i = 0; i < 100; i++) {
                pool.submit(() -> {
                    try (Lease l = waiters.lock(name).acquire()) {
                        acquired.countDown();
                    }
                    return null;
                });
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> subscribedChannels(waiters) == 1);
            // pool of 4 + 1 subscriber for the waiting client, whatever the number of waiters
            assertThat(fixture.serverConnectionCount() - before).isLessThanOrEqualTo(4 + 1);
            held.release();
            assertThat(acquired.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(fixture.serverConnectionCount() - before).isLessThanOrEqualTo(4 + 1);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long distlockRedisThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("distlock-redis-"))
                .count();
    }

    @Test
    void waiting_twentyThreadsOneProvider_eachReleaseWakesOneWaiterNotAll() throws Exception {
        RedisLockProvider holder = client(Duration.ofSeconds(10));
        RedisLockProvider waiters = client(Duration.ofSeconds(10));
        Lease held = holder.lock(name).tryAcquire().orElseThrow();
        int n = 20;
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try (Jedis admin = admin()) {
            long before = scriptCalls(admin);
            CountDownLatch done = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                pool.submit(() -> {
                    try (Lease l = waiters.lock(name).acquire()) {
                        done.countDown();
                    }
                    return null;
                });
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> subscribedChannels(waiters) == 1);
            held.release();
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            long calls = scriptCalls(admin) - before;
            // about 2 tries per waiter before it sleeps, 1 acquisition and 1 release each, + the
            // holder's release: ~4n. Waking every waiter on every release would add n(n+1)/2 = 210.
            assertThat(calls).as("script calls for %d hand-offs", n).isLessThan(7L * n);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void close_providerWithConnections_leavesNoConnectionsOrThreads() {
        int before = fixture.serverConnectionCount();
        long threadsBefore = distlockRedisThreads();
        RedisLockProvider p = RedisLockProvider.builder()
                .standalone(fixture.server().host(), fixture.server().port())
                .build();
        p.lock(name).tryAcquire().orElseThrow();
        assertThat(distlockRedisThreads()).isGreaterThan(threadsBefore);
        p.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.serverConnectionCount() == before);
        await().atMost(Duration.ofSeconds(5)).until(() -> distlockRedisThreads() == threadsBefore);
        try (Jedis admin = admin()) {
            assertThat(admin.exists(lockKey(p, name)))
                    .as("close released the held lease")
                    .isFalse();
        }
    }

    @Test
    void tryAcquire_serverScriptCacheFlushed_fallsBackToEvalAndWorks() {
        RedisLockProvider a = client(Duration.ofSeconds(5));
        a.lock(name).tryAcquire().orElseThrow().release();
        try (Jedis admin = admin()) {
            admin.scriptFlush();
        }
        try (Lease lease = a.lock(name).tryAcquire().orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
        }
        try (Jedis admin = admin()) {
            assertThat(admin.exists(lockKey(a, name))).isFalse();
        }
    }

    @Test
    void requiredReplicas_noReplicaAcknowledges_acquisitionUndoneAndReported() {
        RedisLockProvider p = client(RedisLockOptions.builder()
                .requiredReplicas(1)
                .replicaAckTimeout(Duration.ofMillis(50))
                .build());
        assertThatThrownBy(() -> p.lock(name).tryAcquire())
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("0 of 1 required replicas");
        try (Jedis admin = admin()) {
            assertThat(admin.exists(lockKey(p, name))).isFalse();
        }
    }

    @Test
    void open_redisUri_givesWorkingProvider() {
        URI uri = URI.create("redis://127.0.0.1:" + fixture.server().port() + "?leaseTime=2s&keyPrefix=uri-test");
        try (LockProvider p = LockProviders.open(uri)) {
            assertThat(p).isInstanceOf(RedisLockProvider.class);
            assertThat(p.backend()).isEqualTo("redis");
            try (Lease lease = p.lock(name).tryAcquire().orElseThrow();
                    Jedis admin = admin()) {
                assertThat(admin.exists(lockKey(p, name))).isTrue();
                assertThat(lockKey(p, name)).startsWith("uri-test:{");
                assertThat(admin.pttl(lockKey(p, name))).isBetween(1L, 2000L);
            }
        }
    }

    @Test
    void builder_existingClient_isUsedAndNotClosed() {
        try (redis.clients.jedis.RedisClient jedis = redis.clients.jedis.RedisClient.create(
                fixture.server().host(), fixture.server().port())) {
            RedisLockProvider p = RedisLockProvider.builder()
                    .client(jedis)
                    .leaseTime(Duration.ofSeconds(2))
                    .build();
            try (Lease lease = p.lock(name).tryAcquire().orElseThrow()) {
                assertThat(jedis.exists(lockKey(p, name))).isTrue();
            }
            p.close();
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
    }
}
