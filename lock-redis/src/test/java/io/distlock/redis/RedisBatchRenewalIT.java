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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * Batched renewal on a standalone server and on a 3-master Cluster: thousands of held locks are
 * renewed with one pipeline per renewal tick (one round trip per server), all stay valid, and the
 * loss of any one of them (its key deleted; one of 10,000 on a standalone server) reaches its own
 * lease, alone, within one renewal interval; the server reads a tick's request for 10,000 locks in
 * about one socket read per 1,000.
 */
class RedisBatchRenewalIT {
    /** Renewed every 500 ms. */
    private static final Duration LEASE = Duration.ofMillis(1_500);

    private static final Duration INTERVAL = LEASE.dividedBy(3);
    /** For 10,000 locks: renewed every second, so that a loaded machine acquires them in time. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(3);
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

    @ParameterizedTest(name = "{0}: {1} locks")
    @CsvSource({"standalone, 10000", "cluster, 2000"})
    void renewal_oneOfManyLocksDeleted_onlyItsLeaseIsLost_withinOneInterval(String kind, int locks) throws Exception {
        RedisTckFixture f = fixture(kind);
        try (RedisLockProvider p = f.open(
                RedisLockOptions.defaults(),
                LockOptions.builder().leaseTime(LONG_LEASE).build())) {
            RedisInternals internals = p.unwrap(RedisInternals.class).orElseThrow();
            String prefix = "gone-" + kind + "-";
            List<Lease> leases = acquire(p, prefix, locks);
            await("first renewal tick").atMost(LONG_LEASE).until(() -> internals.renewalPipelines() > 0);

            long deletedAt = System.nanoTime();
            f.expireLease(prefix + 1234);
            LeaseLostException cause =
                    leases.get(1234).lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - deletedAt);

            assertThat(cause).hasMessageContaining("renewal found the lock gone");
            assertThat(took).isLessThan(LONG_LEASE.dividedBy(3).plus(SLACK));
            assertThat(leases.stream().filter(Lease::isValid)).hasSize(locks - 1);
            leases.forEach(Lease::release);
        }
    }

    @Test
    void renewal_tenThousandLocks_serverReadsEachTickInAboutOneSocketReadPerThousand() throws Exception {
        try (RedisLockProvider p = standalone.open(
                        RedisLockOptions.defaults(),
                        LockOptions.builder().leaseTime(LONG_LEASE).build());
                Jedis admin = standalone.admin()) {
            RedisInternals internals = p.unwrap(RedisInternals.class).orElseThrow();
            List<Lease> leases = acquire(p, "reads-", 10_000);
            Duration interval = LONG_LEASE.dividedBy(3);
            long first = internals.renewalPipelines();
            // two ticks after the acquisitions: every lease is on the shared ticks
            await("two renewal ticks")
                    .atMost(interval.multipliedBy(6))
                    .until(() -> internals.renewalPipelines() - first >= 2);

            long pipelinesBefore = internals.renewalPipelines();
            long readsBefore = readsProcessed(admin);
            long t0 = System.nanoTime();
            await("four renewal intervals")
                    .atMost(interval.multipliedBy(6))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() ->
                            System.nanoTime() - t0 >= interval.multipliedBy(4).toNanos());
            long pipelines = internals.renewalPipelines() - pipelinesBefore;
            long reads = readsProcessed(admin) - readsBefore - 1; // minus the second INFO

            // one tick per interval once in step (one more if a tick straddles the window's edge)
            assertThat(pipelines).isBetween(3L, 5L);
            // each tick's ten 1,000-lock calls read in about one socket read each (one per 16 KB of
            // separate arguments: ~50 per tick)
            assertThat(reads).as("socket reads of %d renewal ticks", pipelines).isLessThanOrEqualTo(20 * pipelines);
            assertThat(leases).allMatch(Lease::isValid);
            leases.forEach(Lease::release);
        }
    }

    /** The server's {@code total_reads_processed}, read on {@code admin}. */
    private static long readsProcessed(Jedis admin) {
        for (String line : admin.info("stats").split("\\r?\\n")) {
            if (line.startsWith("total_reads_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new IllegalStateException("INFO stats has no total_reads_processed");
    }
}
