package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.redis.internal.RedisInternals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Batched renewal on a standalone server and on a 3-master Cluster: thousands of held locks are
 * renewed with one pipeline per renewal tick (one round trip per server), all stay valid, and the
 * loss of any one of them (its key deleted) reaches its own lease, alone, within one renewal
 * interval.
 */
class RedisBatchRenewalIT {
    /** Renewed every 500 ms. */
    private static final Duration LEASE = Duration.ofMillis(1_500);

    private static final Duration INTERVAL = LEASE.dividedBy(3);
    /** The batch request and the scheduling on a loaded machine. */
    private static final Duration SLACK = Duration.ofMillis(300);

    private static RedisTckFixture standalone;
    private static RedisTckFixture cluster;

    @BeforeAll
    static void startServers() {
        standalone = RedisTckFixture.standalone();
        cluster = RedisTckFixture.cluster();
    }

    @AfterAll
    static void stopServers() {
        standalone.close();
        cluster.close();
    }

    private static RedisTckFixture fixture(String kind) {
        return kind.equals("cluster") ? cluster : standalone;
    }

    private static List<Lease> acquire(RedisLockProvider p, String prefix, int n) {
        List<Lease> leases = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            leases.add(p.lock(prefix + i).tryAcquire().orElseThrow());
        }
        return leases;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"standalone", "cluster"})
    void renewal_thousandsOfLocks_onePipelinePerTickAndAllStayValid(String kind) throws Exception {
        try (RedisLockProvider p = fixture(kind)
                .open(
                        RedisLockOptions.defaults(),
                        LockOptions.builder().leaseTime(LEASE).build())) {
            RedisInternals internals = p.unwrap(RedisInternals.class).orElseThrow();
            List<Lease> leases = acquire(p, "batch-" + kind + "-", 3_000);
            await("first renewal tick").atMost(LEASE).until(() -> internals.renewalPipelines() > 0);

            long before = internals.renewalPipelines();
            long t0 = System.nanoTime();
            await("six renewal intervals")
                    .atMost(INTERVAL.multipliedBy(8))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() ->
                            System.nanoTime() - t0 >= INTERVAL.multipliedBy(6).toNanos());
            long pipelines = internals.renewalPipelines() - before;

            // at most two ticks per interval (leases acquired at different times), usually one
            assertThat(pipelines).isBetween(5L, 13L);
            // no call was refused for its keys (CROSSSLOT, MOVED, ASK): none fell back to renewals
            // one by one (NOSCRIPT before the first EVAL and ERR for Jedis's CLIENT SETINFO on 7.0 are
            // expected)
            assertThat(fixture(kind).errorStats())
                    .noneMatch(l -> l.contains("CROSSSLOT") || l.contains("MOVED") || l.contains("ASK"));
            assertThat(leases).allMatch(Lease::isValid);
            assertThat(leases)
                    .allMatch(l -> l.remainingValidity().compareTo(LEASE.minus(INTERVAL.multipliedBy(2))) > 0);
            leases.forEach(Lease::release);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"standalone", "cluster"})
    void renewal_oneOfThousandsOfLocksDeleted_onlyItsLeaseIsLost_withinOneInterval(String kind) throws Exception {
        RedisTckFixture f = fixture(kind);
        try (RedisLockProvider p = f.open(
                RedisLockOptions.defaults(),
                LockOptions.builder().leaseTime(LEASE).build())) {
            RedisInternals internals = p.unwrap(RedisInternals.class).orElseThrow();
            String prefix = "gone-" + kind + "-";
            List<Lease> leases = acquire(p, prefix, 2_000);
            await("first renewal tick").atMost(LEASE).until(() -> internals.renewalPipelines() > 0);

            long deletedAt = System.nanoTime();
            f.expireLease(prefix + 1234);
            LeaseLostException cause =
                    leases.get(1234).lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - deletedAt);

            assertThat(cause).hasMessageContaining("renewal found the lock gone");
            assertThat(took).isLessThan(INTERVAL.plus(SLACK));
            assertThat(leases.stream().filter(Lease::isValid)).hasSize(1_999);
            leases.forEach(Lease::release);
        }
    }
}
