package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The engine's renewal ticks ({@link RenewalBatches}): leases of one provider are renewed together
 * through {@link LockDriver#batchRenewal()}, so the number of batch calls per second does not grow
 * with the number of leases; each lease still gets its own outcome (a lock found gone is lost, alone,
 * within one renewal interval), and a failed batch leaves every lease valid until its deadline.
 */
class RenewalBatchesTest {
    /** Renewed every 200 ms (grid 100 ms). */
    private static final Duration LEASE = Duration.ofMillis(600);

    private static final Duration INTERVAL = LEASE.dividedBy(3);

    /** Grants every try; renews in batches, counting calls and locks; a lock can be made gone. */
    private static final class BatchingDriver implements LockDriver {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger renewed = new AtomicInteger();
        final Set<String> gone = ConcurrentHashMap.newKeySet();
        final AtomicReference<RuntimeException> failWith = new AtomicReference<>();
        /** Calls still to fail with {@link #failWith} before it is cleared (0: until cleared by hand). */
        final AtomicInteger failCalls = new AtomicInteger();
        /** Calls still to answer with one outcome too few. */
        final AtomicInteger shortCalls = new AtomicInteger();

        @Override
        public String backend() {
            return "batching";
        }

        @Override
        public Capabilities capabilities() {
            return Capabilities.builder().automaticRenewal(true).build();
        }

        @Override
        public RenewalMode renewalMode() {
            return RenewalMode.WATCHDOG;
        }

        @Override
        public BatchRenewal batchRenewal() {
            return due -> {
                calls.incrementAndGet();
                RuntimeException failure = failWith.get();
                if (failure != null) {
                    if (failCalls.get() > 0 && failCalls.decrementAndGet() == 0) {
                        failWith.set(null);
                    }
                    throw failure;
                }
                if (shortCalls.get() > 0) {
                    shortCalls.decrementAndGet();
                    return new ArrayList<>(due.subList(0, due.size() - 1).stream()
                            .map(h -> RenewalOutcome.RENEWED)
                            .toList());
                }
                List<RenewalOutcome> outcomes = new ArrayList<>();
                for (HeldLock h : due) {
                    Held held = (Held) h;
                    if (gone.contains(held.name)) {
                        outcomes.add(RenewalOutcome.GONE);
                    } else {
                        held.validUntil = held.ctx.validUntil(held.ctx.ticker().read());
                        renewed.incrementAndGet();
                        outcomes.add(RenewalOutcome.RENEWED);
                    }
                }
                return outcomes;
            };
        }

        @Override
        public Contender contender(AcquireContext ctx) {
            return new Contender() {
                @Override
                public Optional<HeldLock> tryAcquire() {
                    return Optional.of(new Held(ctx));
                }

                @Override
                public void awaitChange(long deadlineNanos) {}
            };
        }

        @Override
        public void close() {}
    }

    private static final class Held implements HeldLock {
        final AcquireContext ctx;
        final String name;
        volatile long validUntil;

        Held(AcquireContext ctx) {
            this.ctx = ctx;
            this.name = ctx.lockName();
            this.validUntil = ctx.validUntil(ctx.ticker().read());
        }

        @Override
        public OptionalLong fencingToken() {
            return OptionalLong.empty();
        }

        @Override
        public long validUntilNanos() {
            return validUntil;
        }

        @Override
        public boolean renew() {
            throw new AssertionError("the engine renews through batchRenewal()");
        }

        @Override
        public boolean release() {
            return true;
        }
    }

    /** Batch calls during {@code window} while {@code n} leases (acquired over about 100 ms) are held. */
    private static int callsWhileHolding(int n, Duration window) throws InterruptedException {
        BatchingDriver driver = new BatchingDriver();
        LockEngine engine =
                LockEngine.create(driver, LockOptions.builder().leaseTime(LEASE).build());
        try {
            long spread = TimeUnit.MILLISECONDS.toNanos(100);
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                engine.lock("l" + i).tryAcquire().orElseThrow();
                long target = start + spread * (i + 1) / n; // acquisitions spread over 100 ms
                while (System.nanoTime() - target < 0) {
                    Thread.onSpinWait();
                }
            }
            // from the first renewal on, count the calls during the window
            await().atMost(Duration.ofSeconds(5)).until(() -> driver.calls.get() > 0);
            int before = driver.calls.get();
            Thread.sleep(window.toMillis()); // the measured window itself, not a wait for a state
            int calls = driver.calls.get() - before;
            assertThat(engine.heldLeases()).hasSize(n).allMatch(Lease::isValid);
            assertThat(driver.renewed.get()).isGreaterThanOrEqualTo(n);
            return calls;
        } finally {
            engine.close();
        }
    }

    /** Counts calls per second: a measurement, which mutation testing leaves out (tag "measurement"). */
    @Test
    @Tag("measurement")
    void renewal_manyLeasesAcquiredAtDifferentTimes_batchCallsPerSecondAtMostTwiceOneLeases()
            throws InterruptedException {
        Duration window = Duration.ofSeconds(2);
        int one = callsWhileHolding(1, window);
        int many = callsWhileHolding(2_000, window);

        // one lease: one call per interval (10 in 2 s); any number: at most two per interval
        long intervals = window.toNanos() / INTERVAL.toNanos();
        assertThat(one).isBetween((int) intervals - 2, (int) intervals + 2);
        assertThat(many).isLessThanOrEqualTo(2 * one + 2);
    }

    @Test
    void renewal_oneLockOfManyGone_onlyThatLeaseIsLost_withinOneInterval() throws Exception {
        BatchingDriver driver = new BatchingDriver();
        LockEngine engine =
                LockEngine.create(driver, LockOptions.builder().leaseTime(LEASE).build());
        try {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                leases.add(engine.lock("l" + i).tryAcquire().orElseThrow());
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> driver.calls.get() > 0);
            long goneAt = System.nanoTime();
            driver.gone.add("l123");

            LeaseLostException cause =
                    leases.get(123).lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - goneAt);

            assertThat(cause).hasMessageContaining("renewal found the lock gone");
            assertThat(took).isLessThan(INTERVAL.plusMillis(100));
            assertThat(leases.stream().filter(Lease::isValid)).hasSize(499);
        } finally {
            engine.close();
        }
    }

    @Test
    void renewal_batchFails_leasesStayValidUntilTheirDeadlineThenAreLost() throws Exception {
        BatchingDriver driver = new BatchingDriver();
        LockEngine engine =
                LockEngine.create(driver, LockOptions.builder().leaseTime(LEASE).build());
        try {
            Lease a = engine.lock("a").tryAcquire().orElseThrow();
            Lease b = engine.lock("b").tryAcquire().orElseThrow();
            driver.failWith.set(new BackendUnavailableException("down", "a", "batching", null));
            long failingFrom = System.nanoTime();

            LeaseLostException cause = a.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

            assertThat(cause).hasMessageContaining("validity deadline passed");
            assertThat(Duration.ofNanos(System.nanoTime() - failingFrom)).isLessThan(LEASE.plusMillis(300));
            assertThat(b.lost().toCompletableFuture().get(1, TimeUnit.SECONDS)).isNotNull();
        } finally {
            engine.close();
        }
    }

    /** A renewal a grid of 100 from origin 7: due times land on the grid, a first one on half of it. */
    @Test
    void dueAt_roundsDownToTheSharedGrid_andAFirstRenewalToHalfOfIt() {
        RenewalBatches b = new RenewalBatches(null, null, 7, 100);
        assertThat(b.dueAt(7, 100, false)).isEqualTo(107);
        assertThat(b.dueAt(37, 100, false)).isEqualTo(107); // 137 rounded down to the grid
        assertThat(b.dueAt(67, 100, false)).isEqualTo(107);
        assertThat(b.dueAt(67, 100, true)).isEqualTo(157); // half the grid for a first renewal
        assertThat(b.dueAt(37, 100, true)).isEqualTo(107);
        // a lease whose interval is shorter than the grid: a power-of-two fraction of it (25 for 30)
        assertThat(b.dueAt(7, 30, false)).isEqualTo(32);
        assertThat(b.dueAt(60, 30, false)).isEqualTo(82);
        // a longer interval keeps the grid itself
        assertThat(b.dueAt(7, 400, false)).isEqualTo(407);
        assertThat(b.dueAt(57, 400, false)).isEqualTo(407);
        // never later than the interval asks, never more than one grid step earlier
        for (long now = 0; now < 500; now += 13) {
            long due = b.dueAt(now, 100, false);
            assertThat(due).isBetween(now + 1, now + 100);
            assertThat(Math.floorMod(due - 7, 100)).isZero();
        }
        assertThat(b.dueAt(Long.MAX_VALUE - 10, 100, false)).isEqualTo(Deadlines.NEVER);
    }

    /**
     * One failed batch is a failed renewal for each of its leases, not the end of their renewals: the
     * next tick renews them, and they stay held past the deadline of the failed tick.
     */
    @Test
    void renewal_oneBatchFails_theNextTickRenewsEveryLeaseAgain() throws Exception {
        BatchingDriver driver = new BatchingDriver();
        LockEngine engine =
                LockEngine.create(driver, LockOptions.builder().leaseTime(LEASE).build());
        try (CapturingSlf4jProvider.Capture capture = CapturingSlf4jProvider.capture()) {
            Lease a = engine.lock("a").tryAcquire().orElseThrow();
            Lease b = engine.lock("b").tryAcquire().orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> driver.calls.get() > 0);
            driver.failCalls.set(1);
            driver.failWith.set(new BackendUnavailableException("down once", "a", "batching", null));
            int failedAt = driver.calls.get() + 1;
            // the failed call, then more calls than a lease lasts (600 ms at one call per 200 ms)
            await().atMost(Duration.ofSeconds(5)).until(() -> driver.calls.get() >= failedAt + 4);

            assertThat(a.isValid()).as("a, renewed after the failed batch").isTrue();
            assertThat(b.isValid()).as("b, renewed after the failed batch").isTrue();
            assertThat(driver.renewed.get()).isGreaterThanOrEqualTo(2 * 4);
            // a failed batch is the driver's answer, handled: no renewal task failed on the watchdog
            assertThat(capture.events()).noneMatch(e -> e.name().equals(LogEvents.TIMER_TASK_FAILED));
        } finally {
            engine.close();
        }
    }

    /**
     * A driver whose batch answers with the wrong number of outcomes: every lease of that batch counts
     * it as a failed renewal (none is taken for renewed or gone), and the next tick renews them again.
     */
    @Test
    void renewal_batchAnswersWithTooFewOutcomes_isAFailedRenewalForEach_andRenewalGoesOn() throws Exception {
        BatchingDriver driver = new BatchingDriver();
        LockEngine engine =
                LockEngine.create(driver, LockOptions.builder().leaseTime(LEASE).build());
        try {
            Lease a = engine.lock("a").tryAcquire().orElseThrow();
            Lease b = engine.lock("b").tryAcquire().orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> driver.calls.get() > 0);
            int renewedBefore = driver.renewed.get();
            int shortAt;
            try (CapturingSlf4jProvider.Capture capture = CapturingSlf4jProvider.capture()) {
                driver.shortCalls.set(1);
                shortAt = driver.calls.get() + 1;
                await().atMost(Duration.ofSeconds(5)).until(() -> driver.shortCalls.get() == 0);
                // the driver's answer is named in one warning
                CapturingSlf4jProvider.Event warned = await().atMost(Duration.ofSeconds(5))
                        .until(
                                () -> capture.events().stream()
                                        .filter(e -> e.name().equals(LogEvents.TIMER_TASK_FAILED))
                                        .findFirst(),
                                java.util.Optional::isPresent)
                        .orElseThrow();
                assertThat(warned.level()).isEqualTo(org.slf4j.event.Level.WARN);
                // both leases in one tick (1 for 2), or the tick had only one of them (0 for 1)
                assertThat(warned.error().getMessage())
                        .isIn(
                                "the driver's batch renewal returned 1 outcomes for 2 locks",
                                "the driver's batch renewal returned 0 outcomes for 1 locks");
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> driver.calls.get() >= shortAt + 4);

            assertThat(a.isValid()).isTrue();
            assertThat(b.isValid()).isTrue();
            assertThat(driver.renewed.get() - renewedBefore).isGreaterThanOrEqualTo(2 * 4);
        } finally {
            engine.close();
        }
    }

    /** A batch that keeps failing: each lease is lost at its own deadline, never renewed in between. */
    @Test
    void renewal_batchKeepsAnsweringTooFewOutcomes_leasesAreLostAtTheirDeadline() throws Exception {
        BatchingDriver driver = new BatchingDriver();
        LockEngine engine =
                LockEngine.create(driver, LockOptions.builder().leaseTime(LEASE).build());
        try {
            Lease a = engine.lock("a").tryAcquire().orElseThrow();
            driver.shortCalls.set(Integer.MAX_VALUE);
            long from = System.nanoTime();

            LeaseLostException cause = a.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

            assertThat(cause).hasMessageContaining("validity deadline passed");
            assertThat(Duration.ofNanos(System.nanoTime() - from)).isLessThan(LEASE.plusMillis(300));
            assertThat(driver.renewed.get()).isZero();
        } finally {
            engine.close();
        }
    }

    @Test
    void extend_toALeaseShorterThanTheRenewalInterval_renewalsComeSoonerAndKeepIt() throws Exception {
        MemoryLockServer server = MemoryLockServer.create();
        try (MemoryLockProvider p = MemoryLockProvider.builder()
                .server(server)
                .options(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build()) {
            Lease lease = p.lock("x").tryAcquire().orElseThrow();
            lease.extend(LEASE); // renewed every 200 ms from now on, not every 10 s

            long t0 = System.nanoTime();
            await().atMost(Duration.ofSeconds(3))
                    .until(() -> System.nanoTime() - t0 > LEASE.multipliedBy(3).toNanos());

            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remainingValidity()).isLessThanOrEqualTo(LEASE);
        }
    }

    @Test
    void handleWithAShorterLeaseThanTheEngines_renewedOncePerItsOwnInterval() throws Exception {
        BatchingDriver driver = new BatchingDriver();
        LockEngine engine = LockEngine.create(
                driver, LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build());
        try {
            // the engine's grid is 10 s; this lease renews every 200 ms on a finer one
            engine.lock("short").withLeaseTime(LEASE).tryAcquire().orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> driver.renewed.get() >= 3);
            int before = driver.renewed.get();
            long t0 = System.nanoTime();
            await().atMost(Duration.ofSeconds(5)).until(() -> driver.renewed.get() >= before + 3);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

            // three renewals take about two intervals, not a burst of the watchdog's passes
            assertThat(tookMs).isGreaterThanOrEqualTo(INTERVAL.toMillis());
        } finally {
            engine.close();
        }
    }
}
