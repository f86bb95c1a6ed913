package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.TimeoutOptions;
import io.distlock.redis.core.RedisKeys;
import io.distlock.testing.servers.RedisSentinelSetup;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Waiters across a real Sentinel failover (master + replica + 3 sentinels), as the nemesis fault
 * {@code redis-failover} produces it: the replica's link is cut (replication lag), so the promoted
 * replica holds the state from before the cut: the key of a hold that has since been released on the
 * old master, an earlier waiter's queue entry, but not the current holder's key. A waiting client
 * must acquire on the promoted replica promptly after the promotion, not when the (frozen) holder's
 * lease, the stale key's TTL or the stale queue entry runs out. The previous holder's process is
 * gone by then (as a frozen one would be, it cannot act): a client that heard its release sends it
 * again to the new master, and queue entries from before the failover are passed over.
 */
class RedisSentinelWaitersIT {
    private static final String NAME = "sentinel-waiters/job";
    private static final RedisKeys KEYS = new RedisKeys("distlock");
    /** Far beyond what the wait after promotion may take: a retry at a TTL hint would show. */
    private static final Duration HOLDER_LEASE = Duration.ofSeconds(20);
    /** Prompt: the subscriber reconnects (backoff ≤ 1 s) and the waiter retries once. */
    private static final long PROMPT_MS = 2_500;

    private static RedisLockProvider client(RedisSentinelSetup s, boolean handOff, Duration lease) {
        return RedisLockProvider.builder()
                .sentinel(
                        s.masterName(), java.util.List.of(s.sentinelAddresses().split(",")))
                .options(RedisLockOptions.builder()
                        .handOff(handOff)
                        .timeouts(new TimeoutOptions(Duration.ofMillis(300), Duration.ofSeconds(2)))
                        .build())
                .leaseTime(lease)
                .build();
    }

    private static Optional<Lease> waitFor(RedisLockProvider p, Duration maxWait) {
        try {
            return p.lock(NAME).tryAcquire(maxWait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.util.concurrent.CompletionException(e);
        }
    }

    private static long zcard(RedisServer server, String key) {
        try (Jedis j = new Jedis(server.host(), server.port())) {
            return j.zcard(key);
        }
    }

    private static long subscribers(RedisServer server, String channel) {
        try (Jedis j = new Jedis(server.host(), server.port())) {
            return j.pubsubNumSub(channel).getOrDefault(channel, 0L);
        }
    }

    /** Cuts the replica's link for good (a wrong masterauth keeps it from reconnecting). */
    private static void detachReplica(RedisServer replica) throws Exception {
        replica.call("CONFIG", "SET", "masterauth", "detached-by-test");
        replica.call("CLIENT", "KILL", "TYPE", "master");
        await("replica detached")
                .atMost(Duration.ofSeconds(5))
                .until(() -> replica.call("INFO", "replication").contains("master_link_status:down"));
    }

    @ParameterizedTest(name = "handOff={0}")
    @ValueSource(booleans = {true, false})
    void sentinelFailover_waiterBehindFrozenHolder_acquiresPromptlyAfterPromotion(boolean handOff) throws Exception {
        try (RedisSentinelSetup s = RedisSentinelSetup.start();
                RedisLockProvider earlier = client(s, handOff, HOLDER_LEASE);
                RedisLockProvider holder = client(s, handOff, HOLDER_LEASE);
                RedisLockProvider waiter = client(s, handOff, HOLDER_LEASE)) {
            RedisServer oldMaster = s.master();
            RedisServer replica = s.replica();
            // 1. replicated state: a holder, and an earlier waiter queued behind it
            RedisLockProvider previous = client(s, handOff, HOLDER_LEASE);
            Lease p = previous.lock(NAME).tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> e =
                    CompletableFuture.supplyAsync(() -> waitFor(earlier, Duration.ofSeconds(10)));
            if (handOff) {
                await("earlier waiter queued on the replica")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> zcard(replica, KEYS.queueKey(NAME)) == 1);
            } else {
                await("earlier waiter subscribed")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> subscribers(oldMaster, KEYS.channel(NAME)) == 1);
            }
            // 2. replication lag from here on: the replica keeps that state
            detachReplica(replica);
            p.release();
            previous.close(); // it cannot send its release again: others heard it
            e.get(10, TimeUnit.SECONDS).orElseThrow().release();
            Lease frozen = holder.lock(NAME).tryAcquire().orElseThrow(); // on the old master only
            AtomicLong acquiredAt = new AtomicLong();
            CompletableFuture<Optional<Lease>> w = CompletableFuture.supplyAsync(() -> {
                Optional<Lease> l = waitFor(waiter, Duration.ofSeconds(40));
                acquiredAt.set(System.nanoTime());
                return l;
            });
            await("waiter subscribed on the old master")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> subscribers(oldMaster, KEYS.channel(NAME)) == 1);
            if (handOff) {
                await("waiter queued on the old master")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> zcard(oldMaster, KEYS.queueKey(NAME)) == 1);
            }
            long killedAt = System.nanoTime();
            s.failover();
            long promotedAt = System.nanoTime();
            Optional<Lease> got = w.get(45, TimeUnit.SECONDS);
            long afterPromotion = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - promotedAt);
            long afterKill = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - killedAt);
            System.out.printf(
                    "handOff=%s: waiter acquired %d ms after the kill, %d ms after the promotion was seen%n",
                    handOff, afterKill, afterPromotion);
            assertThat(got)
                    .as("the promoted replica never saw the frozen holder's key (the documented double grant)")
                    .isPresent();
            assertThat(got.get().fencingToken().getAsLong())
                    .as("tokens still increase (server-clock floor)")
                    .isGreaterThan(frozen.fencingToken().getAsLong());
            assertThat(afterPromotion)
                    .as(
                            "waiter acquired %d ms after the promotion (kill → promotion %d ms); the frozen holder's"
                                    + " lease is %s",
                            afterPromotion, afterKill - afterPromotion, HOLDER_LEASE)
                    .isLessThan(PROMPT_MS);
            got.get().release();
        }
    }

    /**
     * Replication in step (no lag): the holder's key and the waiter's queue entry are both on the
     * promoted replica. The waiter's attempt fails against the dead master meanwhile; when the holder
     * releases on the new master, the release hands the lock to the entry, which must still be the
     * waiter's own (not a ghost that holds the lock for a lease).
     */
    @Test
    void sentinelFailover_holderReleasesOnPromotedReplica_queuedWaiterGetsTheLock() throws Exception {
        Duration lease = Duration.ofSeconds(10);
        try (RedisSentinelSetup s = RedisSentinelSetup.start();
                RedisLockProvider holder = client(s, true, lease);
                RedisLockProvider waiter = client(s, true, lease)) {
            Lease held = holder.lock(NAME).tryAcquire().orElseThrow();
            AtomicLong acquiredAt = new AtomicLong();
            CompletableFuture<Optional<Lease>> w = CompletableFuture.supplyAsync(() -> {
                Optional<Lease> l = waitFor(waiter, Duration.ofSeconds(40));
                acquiredAt.set(System.nanoTime());
                return l;
            });
            await("waiter queued on the replica")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> zcard(s.replica(), KEYS.queueKey(NAME)) == 1);
            s.failover();
            await("holder's renewal reaches the promoted replica")
                    .atMost(Duration.ofSeconds(15))
                    .ignoreExceptions()
                    .until(() -> {
                        try (Jedis j = new Jedis(s.master().host(), s.master().port())) {
                            return j.pttl(KEYS.lockKey(NAME)) > lease.toMillis() - 2_000;
                        }
                    });
            assertThat(held.isValid())
                    .as("the holder's lease survived the failover")
                    .isTrue();
            long releasedAt = System.nanoTime();
            held.release();
            Optional<Lease> got = w.get(45, TimeUnit.SECONDS);
            long afterRelease = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get() - releasedAt);
            System.out.printf("queued waiter acquired %d ms after the release on the promoted replica%n", afterRelease);
            assertThat(got).isPresent();
            assertThat(afterRelease)
                    .as("the release on the new master handed the lock to the waiter (lease %s)", lease)
                    .isLessThan(PROMPT_MS);
            assertThat(got.get().fencingToken().getAsLong())
                    .isGreaterThan(held.fencingToken().getAsLong());
            got.get().release();
        }
    }
}
