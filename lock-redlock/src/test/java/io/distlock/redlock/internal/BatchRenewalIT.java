package io.distlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.spi.LockEngine;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

/**
 * Batched renewal on three real masters: thousands of held locks are renewed with one pipeline per
 * node per renewal tick ({@code RENEW_PACKED} calls of 1,000 locks, counted by the driver and by the
 * servers' command statistics), all stay valid; of 10,000 held locks, one that a majority of nodes no longer
 * holds reaches its own lease, alone, within one renewal interval, while one that a single node lost
 * stays valid; and with one node stopped the others' majority keeps every lock renewed.
 */
class BatchRenewalIT {
    /** Renewed every 500 ms. */
    private static final Duration LEASE = Duration.ofMillis(1_500);

    private static final Duration INTERVAL = LEASE.dividedBy(3);
    /** For 10,000 locks: renewed every second, so that a loaded machine acquires them in time. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(3);
    /** The batch's round and the scheduling on a loaded machine. */
    private static final Duration SLACK = Duration.ofMillis(300);

    private static final LockOptions LOCK_OPTIONS =
            LockOptions.builder().leaseTime(LEASE).build();

    private static RedisServers servers;

    @BeforeAll
    static void start() {
        servers = RedisServers.independentMasters(3);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    private static List<NodeAddress> addresses(RedisServers on) {
        return on.servers().stream()
                .map(s -> NodeAddress.of(new HostAndPort(s.host(), s.port())))
                .toList();
    }

    private static RedlockDriver driver(RedisServers on) {
        return RedlockDriver.create(
                addresses(on),
                RedlockLockOptions.defaults(), // a 50 ms node timeout per 1,000 locks of a batch
                LOCK_OPTIONS);
    }

    private static List<Lease> acquire(LockEngine engine, String prefix, int n) throws InterruptedException {
        List<Lease> leases = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            // a wait: under load a single try may miss the 50 ms node timeout
            leases.add(engine.lock(prefix + i).tryAcquire(Duration.ofSeconds(5)).orElseThrow());
        }
        return leases;
    }

    /** Waits for two batch renewals after the acquisitions: the leases are then on the shared ticks. */
    private static void twoTicks(RedlockDriver driver) {
        long before = driver.nodes().get(0).pipelines();
        await("two renewal ticks")
                .atMost(INTERVAL.multipliedBy(6))
                .until(() -> driver.nodes().get(0).pipelines() - before >= 2);
    }

    /** Waits {@code n} renewal intervals (the window a test measures or lets pass). */
    private static void intervals(int n) {
        long t0 = System.nanoTime();
        await().atMost(INTERVAL.multipliedBy(n + 2))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> System.nanoTime() - t0 >= INTERVAL.multipliedBy(n).toNanos());
    }

    private static List<Long> pipelines(RedlockDriver driver) {
        return driver.nodes().stream().map(Node::pipelines).toList();
    }

    /** {@code EVALSHA} and {@code EVAL} calls each server has served so far ({@code INFO commandstats}). */
    private static List<Long> scriptCalls(RedisServers on) {
        return on.servers().stream().map(BatchRenewalIT::scriptCalls).toList();
    }

    static long scriptCalls(RedisServer s) {
        try {
            long n = 0;
            for (String line : s.call("INFO", "commandstats").split("\\r?\\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    int calls = line.indexOf("calls=") + "calls=".length();
                    n += Long.parseLong(line.substring(calls, line.indexOf(',', calls)));
                }
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void renewal_thousandsOfLocks_onePipelinePerNodePerTickAndAllStayValid() throws Exception {
        RedlockDriver driver = driver(servers);
        try (LockEngine engine = LockEngine.create(driver, LOCK_OPTIONS)) {
            List<Lease> leases = acquire(engine, "batch-", 3_000);
            twoTicks(driver);

            List<Long> pipelinesBefore = pipelines(driver);
            List<Long> scriptsBefore = scriptCalls(servers);
            intervals(6);
            List<Long> pipelinesAfter = pipelines(driver);
            List<Long> scriptsAfter = scriptCalls(servers);

            for (int i = 0; i < servers.size(); i++) {
                // one pipeline per tick, at most two ticks per interval (leases acquired at
                // different times), usually one
                assertThat(pipelinesAfter.get(i) - pipelinesBefore.get(i))
                        .as("pipelines to node %d in six renewal intervals", i)
                        .isBetween(5L, 13L);
                // three RENEW_PACKED calls of 1,000 locks per pipeline; 18,000 if renewed one by one
                assertThat(scriptsAfter.get(i) - scriptsBefore.get(i))
                        .as("scripts node %d ran in six renewal intervals", i)
                        .isBetween(15L, 39L);
            }
            assertThat(leases).allMatch(Lease::isValid);
            assertThat(leases)
                    .allMatch(l -> l.remainingValidity().compareTo(LEASE.minus(INTERVAL.multipliedBy(2))) > 0);
            leases.forEach(Lease::release);
        }
    }

    @Test
    void renewal_oneOfTenThousandLocksGoneFromAMajority_onlyItsLeaseIsLost_withinOneInterval() throws Exception {
        LockOptions lockOptions = LockOptions.builder().leaseTime(LONG_LEASE).build();
        RedlockDriver driver = RedlockDriver.create(addresses(servers), RedlockLockOptions.defaults(), lockOptions);
        Duration interval = LONG_LEASE.dividedBy(3);
        try (LockEngine engine = LockEngine.create(driver, lockOptions)) {
            List<Lease> leases = acquire(engine, "gone-", 10_000);
            long before = driver.nodes().get(0).pipelines();
            await("two renewal ticks")
                    .atMost(interval.multipliedBy(6))
                    .until(() -> driver.nodes().get(0).pipelines() - before >= 2);
            // one node loses another lock: the majority still holds it
            servers.get(2).call("DEL", driver.keys().lockKey("gone-77"));

            long deletedAt = System.nanoTime();
            for (RedisServer s : servers.servers().subList(0, 2)) {
                s.call("DEL", driver.keys().lockKey("gone-1234"));
            }
            LeaseLostException cause =
                    leases.get(1234).lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - deletedAt);

            assertThat(cause).hasMessageContaining("renewal found the lock gone");
            assertThat(took).isLessThan(interval.plus(SLACK));
            // two more ticks: every other lease renewed again, gone-77 on its majority
            long now = driver.nodes().get(0).pipelines();
            await("two more renewal ticks")
                    .atMost(interval.multipliedBy(4))
                    .until(() -> driver.nodes().get(0).pipelines() - now >= 2);
            assertThat(leases.stream().filter(Lease::isValid)).hasSize(9_999);
            assertThat(leases.get(77).isValid()).isTrue();
            // closing the engine releases them (a release that misses the 50 ms node timeout while a
            // node renews 10,000 locks on a loaded machine is no failure of this test)
        }
    }

    @Test
    void renewal_oneNodeStopped_remainingMajorityKeepsEveryLockRenewed() throws Exception {
        try (RedisServers own = RedisServers.independentMasters(3)) {
            RedlockDriver driver = driver(own);
            try (LockEngine engine = LockEngine.create(driver, LOCK_OPTIONS)) {
                List<Lease> leases = acquire(engine, "stopped-", 2_000);
                twoTicks(driver);

                own.get(2).kill();
                List<Long> before = pipelines(driver);
                intervals(4); // more than a lease: each lock lives on the two nodes' renewals alone
                List<Long> after = pipelines(driver);

                assertThat(after.get(0) - before.get(0)).isGreaterThanOrEqualTo(3L);
                assertThat(after.get(1) - before.get(1)).isGreaterThanOrEqualTo(3L);
                assertThat(leases).allMatch(Lease::isValid);
                assertThat(leases)
                        .allMatch(l -> l.remainingValidity().compareTo(LEASE.minus(INTERVAL.multipliedBy(2))) > 0);
                leases.forEach(Lease::release);
            }
        }
    }
}
