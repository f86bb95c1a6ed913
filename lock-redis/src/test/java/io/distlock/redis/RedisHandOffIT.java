package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.lockKey;
import static io.distlock.redis.RedisTestAccess.scriptCalls;
import static io.distlock.redis.RedisTestAccess.subscribedChannels;
import static io.distlock.redis.RedisTestAccess.tokenKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockNames;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.core.Scripts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/**
 * The hand-off path (release hands the lock to the first live queued waiter) against a real local
 * redis-server.
 */
class RedisHandOffIT {
    private static RedisTckFixture fixture;
    private final List<LockProvider> clients = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private String name;

    @BeforeAll
    static void startServer() {
        fixture = RedisTckFixture.standalone(); // hand-off is the default
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    @BeforeEach
    void name(TestInfo info) {
        name = "handoff/" + info.getDisplayName();
    }

    @AfterEach
    void closeClients() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        clients.forEach(LockProvider::close);
    }

    private RedisLockProvider client(Duration leaseTime) {
        RedisLockProvider p = (RedisLockProvider)
                fixture.newClient(LockOptions.builder().leaseTime(leaseTime).build());
        clients.add(p);
        return p;
    }

    private String queueKey() {
        return "distlock:{" + LockNames.encode(name) + "}:queue";
    }

    private String waitersKey() {
        return "distlock:{" + LockNames.encode(name) + "}:waiters";
    }

    private long queued() {
        try (Jedis admin = fixture.admin()) {
            return admin.zcard(queueKey());
        }
    }

    private void assertNothingLeftButCounter() {
        try (Jedis admin = fixture.admin()) {
            assertThat(admin.exists(queueKey())).as("queue key").isFalse();
            assertThat(admin.exists(waitersKey())).as("waiters key").isFalse();
        }
    }

    @Test
    void handOff_waiterQueued_acquiresWithoutAnyScriptCallOfItsOwn() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(10));
        RedisLockProvider b = client(Duration.ofSeconds(10));
        a.lock(name).tryAcquire().orElseThrow().release(); // scripts cached: no NOSCRIPT + EVAL below
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        Future<Optional<Lease>> waiter = pool.submit(() -> b.lock(name).tryAcquire(Duration.ofSeconds(20)));
        await().atMost(Duration.ofSeconds(10)).until(() -> queued() == 1);
        try (Jedis admin = fixture.admin()) {
            long before = scriptCalls(admin);
            held.release();
            Lease got = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
            long calls = scriptCalls(admin) - before;
            // the holder's release script only: the waiter got the lock from it and was told by message
            assertThat(calls).as("script calls from release to acquisition").isEqualTo(1);
            assertThat(got.fencingToken().getAsLong())
                    .isGreaterThan(held.fencingToken().getAsLong());
            assertThat(got.isValid()).isTrue();
            assertThat(admin.pttl(lockKey(b, name))).isBetween(1L, 10_000L);
            got.release();
            assertThat(admin.exists(lockKey(b, name))).isFalse();
        }
        assertNothingLeftButCounter();
        await().atMost(Duration.ofSeconds(2)).until(() -> subscribedChannels(b) == 0);
    }

    private long serverSubscribers() {
        String channel = "distlock:{" + LockNames.encode(name) + "}:released";
        try (Jedis admin = fixture.admin()) {
            return admin.pubsubNumSub(channel).getOrDefault(channel, 0L);
        }
    }

    @Test
    void handOff_grantedWaiters_subscriberDropsEachInterestAndUnsubscribesAfterTheLast() throws Exception {
        // the subscriber thread drops a granted waiter's interest itself (the woken thread writes
        // nothing): a second waiter of the same provider must stay subscribed and get its grant
        RedisLockProvider a = client(Duration.ofSeconds(10));
        RedisLockProvider b = client(Duration.ofSeconds(10));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        Future<Optional<Lease>> first = pool.submit(() -> b.lock(name).tryAcquire(Duration.ofSeconds(20)));
        await().atMost(Duration.ofSeconds(10)).until(() -> queued() == 1);
        Future<Optional<Lease>> second = pool.submit(() -> b.lock(name).tryAcquire(Duration.ofSeconds(20)));
        await().atMost(Duration.ofSeconds(10)).until(() -> queued() == 2);
        assertThat(serverSubscribers())
                .as("one subscriber connection for both waiters")
                .isEqualTo(1);

        held.release();
        Lease got1 = first.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(subscribedChannels(b)).as("the second waiter's interest").isEqualTo(1);
        got1.release();
        // a lost subscription would leave the second waiter to its hint (the 10 s lease): 5 s fails it
        Lease got2 = second.get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(got2.fencingToken().getAsLong())
                .isGreaterThan(got1.fencingToken().getAsLong());
        assertThat(subscribedChannels(b)).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> serverSubscribers() == 0);
        got2.release();
        assertNothingLeftButCounter();
    }

    @Test
    void handOff_threeWaitersQueuedInTurn_servedInFifoOrder() throws Exception {
        RedisLockProvider holder = client(Duration.ofSeconds(10));
        Lease held = holder.lock(name).tryAcquire().orElseThrow();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            int id = i;
            RedisLockProvider w = client(Duration.ofSeconds(10));
            futures.add(pool.submit(() -> {
                try (Lease l = w.lock(name).acquire()) {
                    order.add(id);
                }
                return null;
            }));
            await().atMost(Duration.ofSeconds(10)).until(() -> queued() == id);
        }
        // a newcomer's single try does not barge past the queue, even right at the release
        RedisLockProvider newcomer = client(Duration.ofSeconds(10));
        held.release();
        assertThat(newcomer.lock(name).tryAcquire()).satisfiesAnyOf(Optional::isEmpty, l -> {
            // only if all three were already served
            assertThat(order).containsExactly(1, 2, 3);
            l.orElseThrow().release();
        });
        for (Future<?> f : futures) {
            f.get(20, TimeUnit.SECONDS);
        }
        assertThat(order).containsExactly(1, 2, 3);
        assertNothingLeftButCounter();
    }

    /** A raw subscriber of the lock's channel: what every provider with a waiter of the lock hears. */
    private final class ChannelListener implements AutoCloseable {
        final String channel = "distlock:{" + LockNames.encode(name) + "}:released";
        final List<String> messages = new CopyOnWriteArrayList<>();
        final java.util.concurrent.CountDownLatch subscribed = new java.util.concurrent.CountDownLatch(1);
        final redis.clients.jedis.JedisPubSub pubSub = new redis.clients.jedis.JedisPubSub() {
            @Override
            public void onMessage(String ch, String message) {
                messages.add(message);
            }

            @Override
            public void onSubscribe(String ch, int count) {
                subscribed.countDown();
            }
        };
        final Future<?> loop;

        ChannelListener() throws InterruptedException {
            loop = pool.submit(() -> {
                try (Jedis j = fixture.admin()) {
                    j.subscribe(pubSub, channel);
                }
            });
            assertThat(subscribed.await(10, TimeUnit.SECONDS)).isTrue();
        }

        /** Everything published on the channel before this call has been received once it returns. */
        List<String> receivedSoFar() {
            String marker = "marker-" + System.nanoTime();
            try (Jedis admin = fixture.admin()) {
                admin.publish(channel, marker); // delivered after every earlier message
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> messages.contains(marker));
            return List.copyOf(messages.subList(0, messages.indexOf(marker)));
        }

        @Override
        public void close() throws Exception {
            pubSub.unsubscribe();
            loop.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void handOff_grantPublishedOnTheGranteesOwnChannel_otherProvidersWaitingForTheLockNotWoken() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(10));
        RedisLockProvider b = client(Duration.ofSeconds(10));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        try (ChannelListener other = new ChannelListener()) {
            Future<Optional<Lease>> waiter = pool.submit(() -> b.lock(name).tryAcquire(Duration.ofSeconds(20)));
            await().atMost(Duration.ofSeconds(10)).until(() -> queued() == 1);
            try (Jedis admin = fixture.admin()) {
                // the entry names the waiter's provider's own subscriber channel
                String entry = admin.hvals(waitersKey()).get(0);
                assertThat(entry).matches("\\d+ \\d+ \\d+ distlock:subscriber:[0-9a-f]{16}");
            }
            held.release();
            Lease got = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(got.fencingToken().getAsLong())
                    .isGreaterThan(held.fencingToken().getAsLong());
            // a provider waiting for the same lock (subscribed to its channel) heard nothing of the grant
            assertThat(other.receivedSoFar()).noneMatch(m -> m.startsWith("g "));
            got.release();
            assertThat(other.receivedSoFar()).anyMatch(m -> m.startsWith("1 ")); // a release with no waiter: to all
        }
        assertNothingLeftButCounter();
    }

    @Test
    void handOff_entryWithoutGrantChannel_grantPublishedOnTheLockChannel() throws Exception {
        // entries queued by clients that name no grant channel of their own
        RedisLockProvider a = client(Duration.ofSeconds(10));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String lockKey = lockKey(a, name);
        String old = "00112233445566778899aabbccddeeff";
        try (ChannelListener listener = new ChannelListener();
                Jedis admin = fixture.admin()) {
            Object r = admin.evalsha(
                    Scripts.ACQUIRE_QUEUED.sha(),
                    List.of(lockKey, tokenKey(a, name), queueKey(), waitersKey()),
                    List.of(old, "600", "60000", "30000", "250", "0"));
            assertThat(((List<?>) r).get(0)).isEqualTo(0L);
            held.release();
            assertThat(admin.get(lockKey)).as("handed to the queued owner").isEqualTo(old);
            assertThat(listener.receivedSoFar()).anyMatch(m -> m.startsWith("g " + old + " "));
            admin.del(lockKey);
        }
    }

    @Test
    void handOff_grantedWaiterDied_lockFreedAfterItsTtl() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(10));
        RedisLockProvider c = client(Duration.ofSeconds(10));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String lockKey = lockKey(a, name);
        String dead = "0123456789abcdef0123456789abcdef";
        try (Jedis admin = fixture.admin()) {
            // a waiter that queued itself (lease 600 ms, willing to wait 30 s) and then died
            Object r = admin.evalsha(
                    Scripts.ACQUIRE_QUEUED.sha(),
                    List.of(lockKey, tokenKey(a, name), queueKey(), waitersKey()),
                    List.of(dead, "600", "60000", "30000", "250"));
            assertThat(((List<?>) r).get(0)).isEqualTo(0L);
        } catch (redis.clients.jedis.exceptions.JedisNoScriptException e) {
            throw new AssertionError("script must be cached by the holder's acquisition", e);
        }
        held.release();
        long releasedAt = System.nanoTime();
        try (Jedis admin = fixture.admin()) {
            assertThat(admin.get(lockKey)).as("handed to the dead waiter").isEqualTo(dead);
        }
        Lease next = c.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
        Duration waited = Duration.ofNanos(System.nanoTime() - releasedAt);
        assertThat(waited).isLessThan(Duration.ofMillis(600 + 2_000));
        assertThat(next.fencingToken().getAsLong())
                .isGreaterThan(held.fencingToken().getAsLong());
        next.release();
        assertNothingLeftButCounter();
    }

    @Test
    void handOff_grantMessageLostBySubscriberReset_waiterStillAcquires() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(2));
        RedisLockProvider b = client(Duration.ofSeconds(2));
        Lease held = a.lock(name).tryAcquire().orElseThrow();
        String lockKey = lockKey(a, name);
        Future<Optional<Lease>> waiter = pool.submit(() -> b.lock(name).tryAcquire(Duration.ofSeconds(20)));
        await().atMost(Duration.ofSeconds(10)).until(() -> queued() == 1);
        String channel = "distlock:{" + LockNames.encode(name) + "}:released";
        try (Jedis admin = fixture.admin()) {
            String owner = admin.get(lockKey);
            // drop every subscriber connection and release in one transaction: the grant is
            // published while the waiter's subscriber is gone, so its message is lost
            Transaction tx = admin.multi();
            tx.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "KILL", "TYPE", "pubsub");
            tx.evalsha(
                    Scripts.RELEASE_QUEUED.sha(),
                    List.of(lockKey, tokenKey(a, name), queueKey(), waitersKey()),
                    List.of(owner, channel, "60000"));
            List<Object> results = tx.exec();
            assertThat(results.get(1)).as("handed over").isEqualTo(2L);
            String granted = admin.get(lockKey);
            Lease got = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(got.isValid()).isTrue();
            assertThat(got.fencingToken().getAsLong())
                    .isGreaterThan(held.fencingToken().getAsLong());
            assertThat(admin.get(lockKey)).isEqualTo(granted);
            got.release();
            assertThat(admin.exists(lockKey)).isFalse();
        }
        assertNothingLeftButCounter();
    }

    @Test
    void handOff_waiterTimeoutRacingGrant_lockNeverLeftWithNobody() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(5));
        RedisLockProvider b = client(Duration.ofSeconds(5));
        RedisLockProvider c = client(Duration.ofSeconds(5));
        String lockKey = lockKey(a, name);
        for (int i = 0; i < 12; i++) {
            Lease held = a.lock(name).tryAcquire().orElseThrow();
            Duration bWait = Duration.ofMillis(150);
            Future<Optional<Lease>> bWaiter = pool.submit(() -> b.lock(name).tryAcquire(bWait));
            await().atMost(Duration.ofSeconds(5)).until(() -> queued() >= 1 || bWaiter.isDone());
            // release around b's deadline: before, at, or after it
            long sleepUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100 + 10L * i);
            await().pollInterval(Duration.ofMillis(2)).until(() -> System.nanoTime() - sleepUntil >= 0);
            held.release();
            Optional<Lease> got = bWaiter.get(10, TimeUnit.SECONDS);
            if (got.isPresent()) {
                assertThat(got.get().isValid()).isTrue();
                got.get().release();
            }
            // whoever the lock went to, it is free now: c takes it at once
            try (Jedis admin = fixture.admin()) {
                await().atMost(Duration.ofSeconds(2)).until(() -> admin.get(lockKey) == null);
            }
            Lease cl = c.lock(name).tryAcquire().orElseThrow();
            cl.release();
        }
        assertNothingLeftButCounter();
    }

    @Test
    void tryAcquireWithWait_timesOut_leavesNoQueueEntryBehind() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(10));
        RedisLockProvider b = client(Duration.ofSeconds(10));
        try (Lease held = a.lock(name).tryAcquire().orElseThrow()) {
            assertThat(b.lock(name).tryAcquire(Duration.ofMillis(300))).isEmpty();
            assertNothingLeftButCounter();
            assertThat(held.isValid()).isTrue();
        }
        try (Jedis admin = fixture.admin()) {
            assertThat(admin.exists(lockKey(a, name))).isFalse();
        }
    }

    @Test
    void handOff_queueKeys_expireWithTheirLastDeadline() throws Exception {
        RedisLockProvider a = client(Duration.ofSeconds(10));
        RedisLockProvider b = client(Duration.ofSeconds(10));
        try (Lease held = a.lock(name).tryAcquire().orElseThrow()) {
            Future<Optional<Lease>> waiter = pool.submit(() -> b.lock(name).tryAcquire(Duration.ofSeconds(3)));
            await().atMost(Duration.ofSeconds(10)).until(() -> queued() == 1);
            try (Jedis admin = fixture.admin()) {
                // registered for at most its remaining wait (3 s) plus 1 s
                assertThat(admin.pttl(queueKey())).isBetween(1L, 4_000L);
                assertThat(admin.pttl(waitersKey())).isBetween(1L, 4_000L);
            }
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isEmpty();
        }
        assertNothingLeftButCounter();
    }
}
