package io.distlock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockObserver;
import io.distlock.LockProvider;
import io.distlock.spring.Locked;
import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The lock-inside-the-transaction pitfall, on a real MariaDB: two calls of a read-modify-write
 * method (read a counter, write counter + 1). Client B arrives after A has written but before A
 * has committed. With the lock inside the transaction, A releases it before its commit, B reads
 * the old value and the update of A is lost. With {@code @Locked} (outside the transaction), B
 * waits until A has committed and released, reads A's value, and nothing is lost. The steps are
 * ordered with latches and the lock observer, not with sleeps. Each case runs with {@code mem://}
 * and with a real Redis, switched by {@code distlock.url} alone.
 */
@SuppressWarnings("try") // leases held by try-with-resources without being read
class LockedTransactionIT {
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(20);

    private static MariaDbServer mariadb;
    private static RedisServer redis;

    @BeforeAll
    static void startServers() throws Exception {
        mariadb = MariaDbServer.start();
        redis = RedisServer.start();
        new JdbcTemplate(dataSource())
                .execute("CREATE TABLE counter (id VARCHAR(64) PRIMARY KEY, value BIGINT NOT NULL) ENGINE=InnoDB");
    }

    @AfterAll
    static void stopServers() {
        if (redis != null) {
            redis.close();
        }
        if (mariadb != null) {
            mariadb.close();
        }
    }

    static DataSource dataSource() {
        return new DriverManagerDataSource(mariadb.jdbcUrl(), mariadb.user(), mariadb.password());
    }

    static Stream<Arguments> backends() {
        return Stream.of(
                Arguments.of("mem", (Function<String, String>) id -> "mem://locked-tx-" + id),
                Arguments.of("redis", (Function<String, String>) id -> redis.uri()));
    }

    private ApplicationContextRunner runner(String url, Steps steps) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DistlockAutoConfiguration.class,
                        DistlockHealthContributorAutoConfiguration.class,
                        DistlockLockedAutoConfiguration.class))
                .withPropertyValues("distlock.url=" + url, "distlock.lease-time=2s")
                .withUserConfiguration(Database.class)
                .withBean(Steps.class, () -> steps)
                .withBean(CounterService.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void lockInsideTransaction_nextHolderReadsBeforeCommit_updateIsLost(String backend, Function<String, String> url)
            throws Exception {
        String id = "naive-" + backend + "-" + UUID.randomUUID().toString().substring(0, 8);
        Steps steps = new Steps();
        // A commits only after B has read: B got the lock as soon as A released it, before A's commit
        steps.commitOfAWaitsFor = steps.bRead;
        runner(url.apply(id), steps).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            CounterService service = ctx.getBean(CounterService.class);
            service.create(id);
            Map<String, Long> reads = runAAndB(
                    () -> service.incrementLockInsideTransaction(id),
                    steps.aReleasedLock,
                    () -> service.incrementLockInsideTransaction(id));
            assertThat(reads).containsEntry("A", 0L).containsEntry("B", 0L);
            assertThat(service.value(id)).as("two increments, one lost").isEqualTo(1L);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void lockedOutsideTransaction_nextHolderWaitsForCommit_noUpdateLost(String backend, Function<String, String> url)
            throws Exception {
        String id = "locked-" + backend + "-" + UUID.randomUUID().toString().substring(0, 8);
        Steps steps = new Steps();
        // A commits only after B is waiting for the lock: B arrives while A's write is uncommitted
        steps.commitOfAWaitsFor = steps.bAttemptedLock;
        runner(url.apply(id), steps).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            CounterService service = ctx.getBean(CounterService.class);
            service.create(id);
            Map<String, Long> reads = runAAndB(() -> service.increment(id), steps.aWrote, () -> service.increment(id));
            assertThat(reads).containsEntry("A", 0L).containsEntry("B", 1L);
            assertThat(service.value(id)).as("two increments, none lost").isEqualTo(2L);
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void lockedInsideCallersTransaction_releasedOnlyAfterThatCommit(String backend, Function<String, String> url) {
        String id = "caller-" + backend + "-" + UUID.randomUUID().toString().substring(0, 8);
        runner(url.apply(id), new Steps()).run(ctx -> {
            CounterService service = ctx.getBean(CounterService.class);
            LockProvider provider = ctx.getBean(LockProvider.class);
            service.create(id);
            new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
                service.increment(id);
                assertThat(provider.lock("counter-" + id).tryAcquire())
                        .as("still held after the @Locked method returned inside the caller's transaction")
                        .isEmpty();
            });
            Lease lease = provider.lock("counter-" + id).tryAcquire().orElseThrow();
            lease.release();
        });
    }

    @org.junit.jupiter.api.Test
    void health_redis_upThenDownWhenServerStops() throws Exception {
        try (RedisServer own = RedisServer.start()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            DistlockAutoConfiguration.class, DistlockHealthContributorAutoConfiguration.class))
                    .withPropertyValues("distlock.url=" + own.uri() + "?connectTimeout=500ms&requestTimeout=500ms")
                    .run(ctx -> {
                        DistlockHealthIndicator indicator = ctx.getBean(DistlockHealthIndicator.class);
                        Health up = indicator.health(true);
                        assertThat(up.getStatus()).isEqualTo(Status.UP);
                        assertThat(up.getDetails())
                                .containsEntry("backend", "redis")
                                .containsEntry("probe", "acquired and released");
                        own.kill();
                        long start = System.nanoTime();
                        Health down = indicator.health(true);
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(down.getDetails())
                                .containsEntry("backend", "redis")
                                .containsKey("error");
                        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
                    });
        }
    }

    /** Runs A, then B once {@code bStartsAfter} is reached; returns the counter value each one read. */
    private static Map<String, Long> runAAndB(
            java.util.concurrent.Callable<Long> a, CountDownLatch bStartsAfter, java.util.concurrent.Callable<Long> b)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Long> fa = pool.submit(() -> {
                Thread.currentThread().setName("A");
                return a.call();
            });
            Future<Long> fb = pool.submit(() -> {
                Thread.currentThread().setName("B");
                await(bStartsAfter, "A's step before B starts");
                return b.call();
            });
            long ra = fa.get(STEP_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
            long rb = fb.get(STEP_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
            return Map.of("A", ra, "B", rb);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    static void await(CountDownLatch latch, String what) {
        try {
            if (!latch.await(STEP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("timed out waiting for " + what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for " + what, e);
        }
    }

    /** The choreography of clients A and B (threads named "A" and "B"). */
    static final class Steps {
        final CountDownLatch aWrote = new CountDownLatch(1);
        final CountDownLatch aReleasedLock = new CountDownLatch(1);
        final CountDownLatch bRead = new CountDownLatch(1);
        final CountDownLatch bAttemptedLock = new CountDownLatch(1);
        volatile CountDownLatch commitOfAWaitsFor;

        private static boolean is(String role) {
            return Thread.currentThread().getName().equals(role);
        }

        void registerBeforeCommit() {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    if (is("A") && commitOfAWaitsFor != null) {
                        await(commitOfAWaitsFor, "B's step before A commits");
                    }
                }
            });
        }

        void afterRead() {
            if (is("B")) {
                bRead.countDown();
            }
        }

        void wrote() {
            if (is("A")) {
                aWrote.countDown();
            }
        }

        void releasedLock() {
            if (is("A")) {
                aReleasedLock.countDown();
            }
        }

        void attempt() {
            if (is("B")) {
                bAttemptedLock.countDown();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class Database {
        @Bean
        DataSource dataSource() {
            return LockedTransactionIT.dataSource();
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        LockOptionsCustomizer stepsObserver(Steps steps) {
            return options -> {
                LockObserver previous = options.observer();
                return options.mutate()
                        .observer(new LockObserver() {
                            @Override
                            public void attempt(String backend, String lockName, Duration maxWait) {
                                previous.attempt(backend, lockName, maxWait);
                                steps.attempt();
                            }
                        })
                        .build();
            };
        }
    }

    /** A read-modify-write service, written both ways. */
    public static class CounterService {
        private final JdbcTemplate jdbc;
        private final LockProvider locks;
        private final Steps steps;

        public CounterService(JdbcTemplate jdbc, LockProvider locks, Steps steps) {
            this.jdbc = jdbc;
            this.locks = locks;
            this.steps = steps;
        }

        public void create(String id) {
            jdbc.update("INSERT INTO counter (id, value) VALUES (?, 0)", id);
        }

        public long value(String id) {
            return jdbc.queryForObject("SELECT value FROM counter WHERE id = ?", Long.class, id);
        }

        /** The pitfall: the lock is taken and released inside the transaction, before the commit. */
        @Transactional
        public long incrementLockInsideTransaction(String id) throws InterruptedException {
            steps.registerBeforeCommit();
            long read;
            try (Lease lease =
                    locks.lock("counter-" + id).tryAcquire(STEP_TIMEOUT).orElseThrow()) {
                read = value(id);
                steps.afterRead();
                jdbc.update("UPDATE counter SET value = ? WHERE id = ?", read + 1, id);
                steps.wrote();
            }
            steps.releasedLock();
            return read;
        }

        /** The fix: the lock is taken before the transaction begins and released after it commits. */
        @Locked(name = "'counter-' + #id", maxWait = "20s")
        @Transactional
        public long increment(String id) {
            steps.registerBeforeCommit();
            long read = value(id);
            steps.afterRead();
            jdbc.update("UPDATE counter SET value = ? WHERE id = ?", read + 1, id);
            steps.wrote();
            return read;
        }
    }
}
