package io.distlock.examples.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.LockObserver;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import io.distlock.examples.batch.SingleNodeBatchJob.Outcome;
import io.distlock.examples.batch.SingleNodeBatchJob.Status;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.RedisLockProvider;
import io.distlock.redis.core.RedisKeys;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
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
import org.junit.jupiter.api.TestInfo;

/**
 * Runs {@link SingleNodeBatchJob} against a real Redis with 300 ms leases (renewed every 100 ms), so
 * that a one-second job outlives its lease several times over.
 */
class SingleNodeBatchJobIT {
    private static final Duration LEASE = Duration.ofMillis(300);
    /** The key layout of the providers below (the default key prefix), to look at the lock key. */
    private static final RedisKeys KEYS = new RedisKeys(RedisLockOptions.DEFAULT_KEY_PREFIX);

    private static RedisServer redis;

    private final AtomicInteger renewals = new AtomicInteger();
    private final ExecutorService nodes = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "distlock-example-batch-node");
        t.setDaemon(true);
        return t;
    });

    @BeforeAll
    static void start() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    @AfterEach
    void stopNodes() throws InterruptedException {
        nodes.shutdownNow();
        assertThat(nodes.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private RedisLockProvider node(RedisServer server) {
        LockOptions options = LockOptions.builder()
                .leaseTime(LEASE)
                .observer(new LockObserver() {
                    @Override
                    public void renewed(String backend, String lockName) {
                        renewals.incrementAndGet();
                    }
                })
                .build();
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .options(RedisLockOptions.builder()
                        .timeouts(TimeoutOptions.of(Duration.ofMillis(100)))
                        .build())
                .lockOptions(options)
                .build();
    }

    private static String job(TestInfo info) {
        return "job-" + info.getTestMethod().orElseThrow().getName();
    }

    @Test
    void runIfNotRunning_jobOutlivesItsLease_completesKeptAliveByRenewal(TestInfo info) throws Exception {
        try (RedisLockProvider node = node(redis)) {
            long start = System.nanoTime();

            Outcome outcome = new SingleNodeBatchJob(node, job(info))
                    .runIfNotRunning(40, i -> TimeUnit.MILLISECONDS.sleep(25)); // ~1 s of "work"

            assertThat(outcome.status()).isEqualTo(Status.COMPLETED);
            assertThat(outcome.chunksDone()).isEqualTo(40);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(LEASE.multipliedBy(3));
            assertThat(renewals.get()).isGreaterThanOrEqualTo(3);
            assertThat(redis.call("EXISTS", KEYS.lockKey(job(info)))).isEqualTo("0"); // released
        }
    }

    @Test
    void runIfNotRunning_whileAnotherNodeRunsTheJob_skipsWithoutRunningAChunk(TestInfo info) throws Exception {
        try (RedisLockProvider nodeA = node(redis);
                RedisLockProvider nodeB = node(redis)) {
            CountDownLatch aStarted = new CountDownLatch(1);
            CountDownLatch aMayFinish = new CountDownLatch(1);
            Future<Outcome> a = nodes.submit(() -> new SingleNodeBatchJob(nodeA, job(info)).runIfNotRunning(1, i -> {
                aStarted.countDown();
                aMayFinish.await(); // node A is busy for as long as the test needs
            }));
            assertThat(aStarted.await(10, TimeUnit.SECONDS)).isTrue();
            AtomicInteger chunksOnB = new AtomicInteger();

            // several lease times pass while A runs: renewal keeps B out all the time
            for (int round = 0; round < 4; round++) {
                Outcome b =
                        new SingleNodeBatchJob(nodeB, job(info)).runIfNotRunning(1, i -> chunksOnB.incrementAndGet());
                assertThat(b.status()).isEqualTo(Status.ALREADY_RUNNING);
                int renewedSoFar = renewals.get();
                await().atMost(Duration.ofSeconds(5)).until(() -> renewals.get() > renewedSoFar);
            }
            aMayFinish.countDown();

            assertThat(a.get(10, TimeUnit.SECONDS).status()).isEqualTo(Status.COMPLETED);
            assertThat(chunksOnB).hasValue(0);
            // once A is done, B may run it
            Outcome b = new SingleNodeBatchJob(nodeB, job(info)).runIfNotRunning(1, i -> chunksOnB.incrementAndGet());
            assertThat(b.status()).isEqualTo(Status.COMPLETED);
            assertThat(chunksOnB).hasValue(1);
        }
    }

    @Test
    void runIfNotRunning_lockKeyDeletedByHand_jobStopsWithinALease(TestInfo info) throws Exception {
        try (RedisLockProvider node = node(redis)) {
            AtomicInteger chunks = new AtomicInteger();
            Future<Outcome> run =
                    nodes.submit(() -> new SingleNodeBatchJob(node, job(info)).runIfNotRunning(100_000, i -> {
                        chunks.incrementAndGet();
                        TimeUnit.MILLISECONDS.sleep(10);
                    }));
            await().atMost(Duration.ofSeconds(10)).until(() -> chunks.get() >= 5);

            // an operator (or another client's bug) deletes the lock
            assertThat(redis.call("DEL", KEYS.lockKey(job(info)))).isEqualTo("1");
            long deletedAt = System.nanoTime();

            Outcome outcome = run.get(10, TimeUnit.SECONDS);
            long stoppedAfter = System.nanoTime() - deletedAt;
            assertThat(outcome.status()).isEqualTo(Status.LEASE_LOST);
            assertThat(outcome.loss().orElseThrow()).hasMessageContaining("renewal found the lock gone");
            // the next renewal (every 100 ms) notices; generous margin for a loaded CI machine
            assertThat(Duration.ofNanos(stoppedAfter)).isLessThan(LEASE.plusSeconds(1));
            assertThat(outcome.chunksDone()).isLessThan(100_000);
        }
    }

    @Test
    void runIfNotRunning_redisKilled_jobStopsWhenTheLeaseRunsOut(TestInfo info) throws Exception {
        try (RedisServer doomed = RedisServer.start();
                RedisLockProvider node = node(doomed)) {
            AtomicInteger chunks = new AtomicInteger();
            CompletableFuture<Outcome> run = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return new SingleNodeBatchJob(node, job(info)).runIfNotRunning(100_000, i -> {
                                chunks.incrementAndGet();
                                TimeUnit.MILLISECONDS.sleep(10);
                            });
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    nodes);
            await().atMost(Duration.ofSeconds(10)).until(() -> chunks.get() >= 5);

            doomed.kill();
            long killedAt = System.nanoTime();

            Outcome outcome = run.get(10, TimeUnit.SECONDS);
            assertThat(outcome.status()).isEqualTo(Status.LEASE_LOST);
            // renewals fail; the job stops when the validity (at most one lease) runs out
            assertThat(Duration.ofNanos(System.nanoTime() - killedAt)).isLessThan(LEASE.plusSeconds(1));
        }
    }
}
