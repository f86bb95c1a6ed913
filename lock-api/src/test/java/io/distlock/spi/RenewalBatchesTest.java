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
                    throw failure;
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
