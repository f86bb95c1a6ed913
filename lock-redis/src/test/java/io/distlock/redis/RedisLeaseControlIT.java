package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.lockKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Lease control on Redis, where the server keeps each lock's time ({@code LeaseTiming.SERVER}): a
 * handle's lease time is the key's TTL, {@code extend} and {@code releaseAfter} set the TTL
 * owner-only, and a waiter that was already asleep when the holder called {@code releaseAfter} takes
 * the lock within the delay plus a small slack even when the delay ends long before the TTL it last
 * saw. With and without the hand-off queue.
 */
class RedisLeaseControlIT {
    /** Longest time after a delayed release's end until a waiter holds the lock (two round trips and wake-ups). */
    private static final Duration SLACK = Duration.ofMillis(400);

    private static RedisTckFixture fixture;
    private final List<LockProvider> clients = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private String name;

    @BeforeAll
    static void startServer() {
        fixture = RedisTckFixture.standalone();
    }

    @AfterAll
    static void stopServer() {
        fixture.close();
    }

    @BeforeEach
    void name(TestInfo info) {
        name = "lease-control/" + info.getDisplayName();
    }

    @AfterEach
    void closeClients() {
        pool.shutdownNow();
        clients.forEach(LockProvider::close);
    }

    private RedisLockProvider client(boolean handOff) {
        RedisLockProvider p = fixture.open(
                RedisLockOptions.builder().handOff(handOff).build(),
                LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build());
        clients.add(p);
        return p;
    }

    private long pttl(LockProvider p) {
        try (Jedis admin = fixture.admin()) {
            return admin.pttl(lockKey(p, name));
        }
    }

    @ParameterizedTest(name = "handOff={0}")
    @ValueSource(booleans = {true, false})
    void capabilities_declareServerLeaseTiming(boolean handOff) {
        assertThat(client(handOff).capabilities().leaseTiming()).isEqualTo(Capabilities.LeaseTiming.SERVER);
    }

    @ParameterizedTest(name = "handOff={0}")
    @ValueSource(booleans = {true, false})
    void withLeaseTime_setsTheKeysTtlToTheHandlesLeaseTime(boolean handOff) {
        RedisLockProvider a = client(handOff);
        try (Lease lease =
                a.lock(name).withLeaseTime(Duration.ofSeconds(3)).tryAcquire().orElseThrow()) {
            assertThat(pttl(a)).isBetween(2_000L, 3_000L);
            assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofSeconds(3));
        }
    }

    @ParameterizedTest(name = "handOff={0}")
    @ValueSource(booleans = {true, false})
    void extend_setsTheTtlAndLaterRenewalsKeepTheNewLeaseTime(boolean handOff) {
        RedisLockProvider a = client(handOff);
        Lease lease =
                a.lock(name).withLeaseTime(Duration.ofSeconds(1)).tryAcquire().orElseThrow();
        lease.extend(Duration.ofSeconds(3));
        assertThat(pttl(a)).isBetween(2_500L, 3_000L);
        assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofMillis(2_500));
        long t0 = System.nanoTime();
        // renewals set the extended 3 s again (not the handle's 1 s): 2.5 s later the TTL is still
        // above 1.5 s, which neither a 1 s renewal nor no renewal would leave
        org.awaitility.Awaitility.await("2.5 s after the extension")
                .atMost(Duration.ofSeconds(4))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(2_500));
        assertThat(pttl(a)).isGreaterThan(1_500L);
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.release()).isTrue();
    }

    @ParameterizedTest(name = "handOff={0}")
    @ValueSource(booleans = {true, false})
    void extend_afterAnotherClientTookTheLock_throwsAndKeepsTheirTtl(boolean handOff) {
        RedisLockProvider a = client(handOff);
        RedisLockProvider b = client(handOff);
        Lease old = a.lock(name).tryAcquire().orElseThrow();
        fixture.expireLease(name);
        Lease current =
                b.lock(name).withLeaseTime(Duration.ofSeconds(5)).tryAcquire().orElseThrow();
        assertThatThrownBy(() -> old.extend(Duration.ofMinutes(10))).isInstanceOf(LeaseLostException.class);
        assertThat(pttl(b)).isBetween(4_000L, 5_000L);
        assertThat(current.release()).isTrue();
    }

    @ParameterizedTest(name = "handOff={0}")
    @ValueSource(booleans = {true, false})
    void releaseAfter_setsTheTtlToTheDelayAndHandsNothingOn(boolean handOff) throws Exception {
        RedisLockProvider a = client(handOff);
        RedisLockProvider b = client(handOff);
        Lease lease = a.lock(name).tryAcquire().orElseThrow();
        Duration delay = Duration.ofMillis(1_500);
        long t0 = System.nanoTime();
        assertThat(lease.releaseAfter(delay)).isTrue();
        assertThat(pttl(a)).isBetween(1_000L, 1_500L);
        Optional<Lease> next = b.lock(name).tryAcquire(Duration.ofSeconds(10));
        long took = System.nanoTime() - t0;
        assertThat(next).isPresent();
        assertThat(Duration.ofNanos(took)).isGreaterThanOrEqualTo(delay).isLessThan(delay.plus(SLACK));
    }

    /**
     * The waiters are asleep until the TTL they last saw (30 s); the delayed release tells them the
     * lock now expires after 1 s, and one of them holds it within the delay plus the slack.
     */
    @ParameterizedTest(name = "handOff={0}")
    @ValueSource(booleans = {true, false})
    void releaseAfter_shorterThanTheTtlTheWaitersSaw_aWaiterHoldsTheLockRightAfterTheDelay(boolean handOff)
            throws Exception {
        RedisLockProvider holder = client(handOff);
        Lease lease = holder.lock(name).tryAcquire().orElseThrow();
        long scriptsBefore = scriptCalls();
        List<Future<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            RedisLockProvider w = client(handOff);
            waiters.add(pool.submit(() -> {
                Lease l = w.lock(name).tryAcquire(Duration.ofSeconds(20)).orElseThrow();
                long at = System.nanoTime();
                l.release();
                return at;
            }));
        }
        // each waiter tries, subscribes, tries again once the subscription is confirmed (queued: and
        // registers), sees the 30 s TTL and sleeps until then
        org.awaitility.Awaitility.await("both tries of every waiter")
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> scriptCalls() >= scriptsBefore + 2 * waiters.size());
        Duration delay = Duration.ofSeconds(1);
        long t0 = System.nanoTime();
        assertThat(lease.releaseAfter(delay)).isTrue();
        long first = Long.MAX_VALUE;
        for (Future<Long> f : waiters) {
            first = Math.min(first, f.get(20, TimeUnit.SECONDS) - t0);
        }
        assertThat(Duration.ofNanos(first)).isGreaterThanOrEqualTo(delay).isLessThan(delay.plus(SLACK));
    }

    private static long scriptCalls() {
        try (Jedis admin = fixture.admin()) {
            return RedisTestAccess.scriptCalls(admin);
        }
    }
}
