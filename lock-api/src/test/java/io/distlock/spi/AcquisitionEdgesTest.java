package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.spi.CapturingSlf4jProvider.Capture;
import io.distlock.spi.CapturingSlf4jProvider.Event;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * The acquisition loop's clean-up: what an attempt that ends without the lock gives back ({@link
 * Contender#abandon()}, once, and never after it got the lock), a clean-up that fails (suppressed
 * on the attempt's own exception, else logged), a lock granted while the provider closed (given back),
 * and a closed provider, before or during an outage wait.
 */
class AcquisitionEdgesTest {
    private final Capture capture = CapturingSlf4jProvider.capture();

    @AfterEach
    void stopCapture() {
        capture.close();
    }

    @Test
    void attemptWithoutTheLock_abandonedOnce_attemptWithIt_never() throws InterruptedException {
        ScriptedDriver driver = new ScriptedDriver(ctx -> Optional.empty());
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            assertThat(engine.lock("x").tryAcquire()).isEmpty();
            assertThat(driver.abandoned).hasValue(1);

            driver.answer.set(ctx -> Optional.of(driver.held(ctx)));
            engine.lock("x").tryAcquire(Duration.ofSeconds(1)).orElseThrow();
            assertThat(driver.abandoned).hasValue(1);
        }
    }

    @Test
    void abandonFails_afterAnOutage_suppressedOnTheOutage() {
        ScriptedDriver driver = new ScriptedDriver(ctx -> {
            throw new BackendUnavailableException("down", ctx.lockName(), "scripted", null);
        });
        driver.abandonFailure = new IllegalStateException("abandon failed");
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            assertThatThrownBy(() -> engine.lock("x").tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(driver.abandonFailure));
        }
    }

    @Test
    void abandonFails_whileWaitingOutAnOutage_suppressedOnTheOutageThrownAtTheEnd() {
        ScriptedDriver driver = new ScriptedDriver(ctx -> {
            throw new BackendUnavailableException("down", ctx.lockName(), "scripted", null);
        });
        driver.abandonFailure = new IllegalStateException("abandon failed");
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            // the last pause ends at the deadline, so the outage thrown is the one whose contender
            // was abandoned before that pause (suppressed) and again at the end (suppressed)
            assertThatThrownBy(() -> engine.lock("x").tryAcquire(Duration.ofMillis(100)))
                    .isInstanceOf(BackendUnavailableException.class)
                    .satisfies(e -> assertThat(e.getSuppressed()).hasSize(2).containsOnly(driver.abandonFailure));
        }
    }

    @Test
    void abandonFails_afterAnAttemptThatFoundTheLockHeld_loggedAtDebug() {
        ScriptedDriver driver = new ScriptedDriver(ctx -> Optional.empty());
        driver.abandonFailure = new IllegalStateException("abandon failed");
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            assertThat(engine.lock("x").tryAcquire()).isEmpty();
        }
        Event failed = event(LogEvents.ABANDON_FAILED);
        assertThat(failed.level()).isEqualTo(Level.DEBUG);
        assertThat(failed.keyValues()).containsEntry(LogEvents.ERROR, IllegalStateException.class.getName());
    }

    @Test
    void lockGrantedWhileTheProviderCloses_givenBack_andTheCallerToldSo() {
        AtomicReference<LockEngine> engineRef = new AtomicReference<>();
        ScriptedDriver driver = new ScriptedDriver(null);
        driver.answer.set(ctx -> {
            engineRef.get().close(); // the provider closes while the request is in flight
            return Optional.of(driver.held(ctx));
        });
        driver.releaseFailure = new BackendUnavailableException("down", "x", "scripted", null);
        LockEngine engine = LockEngine.create(driver, LockOptions.defaults());
        engineRef.set(engine);

        assertThatThrownBy(() -> engine.lock("x").tryAcquire())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed during acquisition");
        assertThat(driver.released).hasValue(1);
        assertThat(event(LogEvents.RELEASE_LATE_ACQUISITION_FAILED).level()).isEqualTo(Level.DEBUG);
    }

    @Test
    void closedProvider_handleTakenBefore_rejectedWithoutARequest() {
        ScriptedDriver driver = new ScriptedDriver(ctx -> Optional.of(new ScriptedDriver(null).held(ctx)));
        LockEngine engine = LockEngine.create(driver, LockOptions.defaults());
        var handle = engine.lock("x");
        engine.close();

        assertThatThrownBy(handle::tryAcquire)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("provider is closed");
        assertThat(driver.tries).hasValue(0);
    }

    @Test
    void providerClosedDuringAnOutageWait_waiterFailsAfterItsBackOff_notAtTheEndOfItsWait() throws Exception {
        ScriptedDriver driver = new ScriptedDriver(ctx -> {
            throw new BackendUnavailableException("down", ctx.lockName(), "scripted", null);
        });
        LockEngine engine = LockEngine.create(driver, LockOptions.defaults());
        CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                engine.lock("x").tryAcquire(Duration.ofSeconds(30));
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> driver.tries.get() >= 2);
        engine.close();

        assertThat(waiter.get(5, TimeUnit.SECONDS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("provider is closed");
    }

    @Test
    void context_namesTheBackend_andTheWaitDeadlineOfEachKindOfAttempt() throws InterruptedException {
        java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000);
        ScriptedDriver driver = new ScriptedDriver(null);
        driver.answer.set(ctx -> {
            seen.add(ctx.backend() + " " + ctx.waitDeadlineNanos());
            now.addAndGet(1_000); // each try takes 1 µs of the manual ticker
            return ctx.waitDeadlineNanos() == Deadlines.NEVER ? Optional.of(driver.held(ctx)) : Optional.empty();
        });
        try (LockEngine engine =
                LockEngine.create(driver, LockOptions.builder().ticker(now::get).build())) {
            assertThat(engine.lock("x").tryAcquire()).isEmpty(); // starts at 1000
            assertThat(engine.lock("x").tryAcquire(Duration.ofNanos(500))).isEmpty(); // starts at 2000
            engine.lock("x").acquire();
        }
        assertThat(seen).containsExactly("scripted 1000", "scripted 2500", "scripted " + Deadlines.NEVER);
    }

    @Test
    void lossReportedByTheDriverBeforeTheLeaseExists_leaseReturnedLost() {
        ScriptedDriver driver = new ScriptedDriver(null);
        driver.answer.set(ctx -> {
            ctx.reportLost("session expired during the acquisition", null);
            return Optional.of(driver.held(ctx));
        });
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            var lease = engine.lock("x").tryAcquire().orElseThrow();

            assertThat(lease.isValid()).isFalse();
            assertThat(lease.lost().toCompletableFuture())
                    .isCompletedWithValueMatching(
                            e -> e.getMessage().contains("session expired during the acquisition"));
        }
    }

    @Test
    void renewalOutcome_describesItself() {
        assertThat(RenewalOutcome.RENEWED).hasToString("RENEWED");
        assertThat(RenewalOutcome.GONE).hasToString("GONE");
        assertThat(RenewalOutcome.failed(new IllegalStateException("x")).toString())
                .startsWith("FAILED(java.lang.IllegalStateException");
    }

    @Test
    void lockAdapter_lockCalledInterrupted_acquiresAndKeepsTheInterrupt() {
        ScriptedDriver driver = new ScriptedDriver(null);
        driver.answer.set(ctx -> Optional.of(driver.held(ctx)));
        try (LockEngine engine = LockEngine.create(driver, LockOptions.defaults())) {
            java.util.concurrent.locks.Lock lock = engine.lock("x").asLock();
            Thread.currentThread().interrupt();
            try {
                lock.lock();
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
            } finally {
                Thread.interrupted();
            }
            lock.unlock();
            assertThat(driver.released).hasValue(1);
        }
    }

    private Event event(String name) {
        return capture.events().stream()
                .filter(e -> e.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in " + capture.events()));
    }
}
