package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockObserver;
import io.distlock.LockOptions;
import io.distlock.memory.MemoryLockProvider;
import io.distlock.memory.MemoryLockServer;
import io.distlock.spi.CapturingSlf4jProvider.Capture;
import io.distlock.spi.CapturingSlf4jProvider.Event;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/** The engine's log events (see {@link LogEvents}), captured through a test SLF4J binding. */
class EngineLoggingTest {
    private final MemoryLockServer server = MemoryLockServer.create();
    private final Capture capture = CapturingSlf4jProvider.capture();

    @AfterEach
    void stopCapture() {
        capture.close();
        server.setAvailable(true);
    }

    private MemoryLockProvider client(LockOptions options) {
        return MemoryLockProvider.builder().server(server).options(options).build();
    }

    /** Events of the engine's logger about {@code lock}, in order. */
    private List<Event> events(String lock) {
        return capture.events().stream()
                .filter(e -> e.logger().equals(LockEngine.class.getName()))
                .filter(e -> lock.equals(e.keyValues().get(LogEvents.LOCK)))
                .toList();
    }

    private List<Event> renewalFailures(String lock) {
        return events(lock).stream()
                .filter(e -> e.name().equals(LogEvents.RENEWAL_FAILED))
                .toList();
    }

    private Event event(String lock, String name) {
        return events(lock).stream()
                .filter(e -> e.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " for " + lock + " in " + events(lock)));
    }

    @Test
    void acquireAndRelease_hotPath_debugEventsWithLockBackendAndTokenAndNothingAtInfo() {
        try (MemoryLockProvider p = client(LockOptions.defaults())) {
            long start = System.nanoTime();
            Lease lease = p.lock("log-hot").tryAcquire().orElseThrow();
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long token = lease.fencingToken().getAsLong();
            lease.release();

            assertThat(events("log-hot"))
                    .extracting(Event::name)
                    .containsExactly(LogEvents.ATTEMPT, LogEvents.ACQUIRED, LogEvents.RELEASED);
            assertThat(events("log-hot")).allSatisfy(e -> assertThat(e.level()).isIn(Level.TRACE, Level.DEBUG));
            Event acquired = event("log-hot", LogEvents.ACQUIRED);
            assertThat(acquired.level()).isEqualTo(Level.DEBUG);
            assertThat(acquired.keyValues())
                    .containsEntry(LogEvents.LOCK, "log-hot")
                    .containsEntry(LogEvents.BACKEND, "mem")
                    .containsEntry(LogEvents.TOKEN, token)
                    .containsKey(LogEvents.WAITED_MS);
            assertThat((Long) acquired.keyValues().get(LogEvents.WAITED_MS)).isBetween(0L, elapsedMs);
            assertThat(acquired.message())
                    .startsWith("distlock.acquired lock=log-hot backend=mem token=" + token + " waited_ms=");
            Event released = event("log-hot", LogEvents.RELEASED);
            assertThat(released.level()).isEqualTo(Level.DEBUG);
            assertThat(released.keyValues())
                    .containsEntry(LogEvents.TOKEN, token)
                    .containsEntry(LogEvents.WAS_VALID, true)
                    .containsKey(LogEvents.HELD_MS);
        }
    }

    @Test
    void tryAcquire_heldElsewhere_notAcquiredAtDebugWithTheWait() throws Exception {
        try (MemoryLockProvider a = client(LockOptions.defaults());
                MemoryLockProvider b = client(LockOptions.defaults())) {
            Lease held = a.lock("log-busy").tryAcquire().orElseThrow();
            assertThat(b.lock("log-busy").tryAcquire(Duration.ofMillis(50))).isEmpty();
            held.release();

            Event notAcquired = event("log-busy", LogEvents.NOT_ACQUIRED);
            assertThat(notAcquired.level()).isEqualTo(Level.DEBUG);
            assertThat((Long) notAcquired.keyValues().get(LogEvents.WAITED_MS)).isGreaterThanOrEqualTo(50L);
            assertThat(notAcquired.keyValues()).doesNotContainKey(LogEvents.TOKEN);
            assertThat(events("log-busy"))
                    .filteredOn(e -> e.name().equals(LogEvents.ATTEMPT))
                    .extracting(e -> e.keyValues().get(LogEvents.MAX_WAIT_MS))
                    .containsExactly(0L, 50L); // a's single try, then b's wait
        }
    }

    @Test
    void renewal_leaseKeptAlive_renewedAtTraceOnly() {
        try (MemoryLockProvider p =
                client(LockOptions.builder().leaseTime(Duration.ofMillis(300)).build())) {
            Lease lease = p.lock("log-renew").tryAcquire().orElseThrow();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> events("log-renew").stream()
                                    .filter(e -> e.name().equals(LogEvents.RENEWED))
                                    .count()
                            >= 3);
            lease.release();

            assertThat(event("log-renew", LogEvents.RENEWED).level()).isEqualTo(Level.TRACE);
            assertThat(event("log-renew", LogEvents.RENEWED).keyValues()).containsKey(LogEvents.TOKEN);
            assertThat(events("log-renew"))
                    .allSatisfy(e -> assertThat(e.level()).isIn(Level.TRACE, Level.DEBUG));
        }
    }

    @Test
    void lost_lockTakenAwayOnTheServer_warnWithTheReason() throws Exception {
        try (MemoryLockProvider p =
                // a renewal (every third of the lease) must find the key gone well before the validity deadline passes
                client(LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build())) {
            Lease lease = p.lock("log-lost").tryAcquire().orElseThrow();
            server.expire("log-lost");
            lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

            Event lost = event("log-lost", LogEvents.LOST);
            assertThat(lost.level()).isEqualTo(Level.WARN);
            assertThat(lost.keyValues())
                    .containsEntry(LogEvents.BACKEND, "mem")
                    .containsEntry(LogEvents.TOKEN, lease.fencingToken().getAsLong())
                    .containsEntry(LogEvents.REASON, "renewal found the lock gone or owned by another client");
        }
    }

    @Test
    void lost_maxHoldTimeReached_infoBecauseACapEndedIt() throws Exception {
        try (MemoryLockProvider p = client(LockOptions.builder()
                .leaseTime(Duration.ofSeconds(2))
                .maxHoldTime(Duration.ofMillis(100))
                .build())) {
            Lease lease = p.lock("log-cap").tryAcquire().orElseThrow();
            lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

            Event lost = event("log-cap", LogEvents.LOST);
            assertThat(lost.level()).isEqualTo(Level.INFO);
            assertThat((String) lost.keyValues().get(LogEvents.REASON)).startsWith("maximum hold time");
        }
    }

    @Test
    void renewalFailed_serverUnavailable_oneWarnPerStreakThenLost() throws Exception {
        // renewed every 400 ms, so two renewals fail well before the deadline at ~1.2 s, even on a
        // loaded machine
        try (MemoryLockProvider p =
                client(LockOptions.builder().leaseTime(Duration.ofMillis(1200)).build())) {
            Lease lease = p.lock("log-outage").tryAcquire().orElseThrow();
            server.setAvailable(false);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> renewalFailures("log-outage").size() >= 2);
            lease.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);

            List<Event> failures = renewalFailures("log-outage");
            assertThat(failures).hasSizeGreaterThanOrEqualTo(2);
            assertThat(failures.get(0).level()).isEqualTo(Level.WARN);
            assertThat(failures.subList(1, failures.size()))
                    .allSatisfy(e -> assertThat(e.level()).isEqualTo(Level.DEBUG));
            assertThat(failures.get(0).keyValues()).containsKey(LogEvents.ERROR);
            assertThat(failures.get(0).error()).isNotNull();
            assertThat(event("log-outage", LogEvents.LOST).level()).isEqualTo(Level.WARN);
        }
    }

    @Test
    void close_leaseHeld_lossLoggedAtDebugOnly() {
        MemoryLockProvider p = client(LockOptions.defaults());
        p.lock("log-close").tryAcquire().orElseThrow();
        p.close();

        assertThat(event("log-close", LogEvents.LOST).level()).isEqualTo(Level.DEBUG);
        assertThat(events("log-close")).allSatisfy(e -> assertThat(e.level()).isIn(Level.TRACE, Level.DEBUG));
    }

    @Test
    void renewal_loggedAtTraceWithLockBackendAndToken() {
        try (MemoryLockProvider p =
                client(LockOptions.builder().leaseTime(Duration.ofMillis(300)).build())) {
            Lease lease = p.lock("log-renewed").tryAcquire().orElseThrow();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> events("log-renewed").stream()
                            .anyMatch(e -> e.name().equals(LogEvents.RENEWED)));

            Event renewed = event("log-renewed", LogEvents.RENEWED);
            assertThat(renewed.level()).isEqualTo(Level.TRACE);
            assertThat(renewed.keyValues())
                    .containsEntry(LogEvents.BACKEND, "mem")
                    .containsEntry(LogEvents.TOKEN, lease.fencingToken().getAsLong());
        }
    }

    @Test
    void tryAcquire_serverDown_acquireFailedAtDebugNamingTheError() {
        try (MemoryLockProvider p = client(LockOptions.defaults())) {
            server.setAvailable(false);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> p.lock("log-failed").tryAcquire())
                    .isInstanceOf(io.distlock.BackendUnavailableException.class);

            Event failed = event("log-failed", LogEvents.ACQUIRE_FAILED);
            assertThat(failed.level()).isEqualTo(Level.DEBUG);
            assertThat(failed.keyValues())
                    .containsEntry(LogEvents.ERROR, io.distlock.BackendUnavailableException.class.getName());
            assertThat(failed.error()).isInstanceOf(io.distlock.BackendUnavailableException.class);
        }
    }

    @Test
    void timerActionThrows_warnNamingTheBackendAndError_timerKeepsRunning() throws Exception {
        LeaseTimer timer = new LeaseTimer("distlock-test-failing", "timer-test", io.distlock.Ticker.system());
        try {
            timer.execute(() -> {
                throw new IllegalStateException("task bug");
            });
            java.util.concurrent.CountDownLatch next = new java.util.concurrent.CountDownLatch(1);
            timer.execute(next::countDown);
            assertThat(next.await(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            timer.close();
        }
        Event failed = capture.events().stream()
                .filter(e -> e.name().equals(LogEvents.TIMER_TASK_FAILED))
                .findFirst()
                .orElseThrow();
        assertThat(failed.level()).isEqualTo(Level.WARN);
        assertThat(failed.keyValues())
                .containsEntry(LogEvents.BACKEND, "timer-test")
                .containsEntry(LogEvents.ERROR, IllegalStateException.class.getName());
    }

    @Test
    void release_afterTheValidityDeadline_lossLoggedAtWarn() {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        try (MemoryLockProvider p = client(LockOptions.builder()
                .leaseTime(Duration.ofDays(1))
                .ticker(now::get)
                .build())) {
            Lease lease = p.lock("log-late-release").tryAcquire().orElseThrow();
            now.addAndGet(Duration.ofDays(2).toNanos());
            assertThat(lease.release()).isFalse();

            Event lost = event("log-late-release", LogEvents.LOST);
            assertThat(lost.level()).isEqualTo(Level.WARN);
            assertThat(lost.keyValues()).containsEntry(LogEvents.REASON, "validity deadline passed before release");
        }
    }

    @Test
    void close_releaseFailsWithTheServerDown_loggedAtDebugNamingTheError() {
        MemoryLockProvider p = client(LockOptions.defaults());
        p.lock("log-close-down").tryAcquire().orElseThrow();
        server.setAvailable(false);
        p.close();

        Event failed = event("log-close-down", LogEvents.CLOSE_RELEASE_FAILED);
        assertThat(failed.level()).isEqualTo(Level.DEBUG);
        assertThat(failed.keyValues())
                .containsEntry(LogEvents.BACKEND, "mem")
                .containsEntry(LogEvents.ERROR, io.distlock.BackendUnavailableException.class.getName());
    }

    @Test
    void crash_driverCloseFails_loggedAtDebug_closeOfAFailingDriverThrows() {
        LockEngine crashed = LockEngine.create(failingCloseDriver(), LockOptions.defaults());
        crashed.abandon();
        Event failed = capture.events().stream()
                .filter(e -> e.name().equals(LogEvents.ABANDON_DRIVER_CLOSE_FAILED))
                .findFirst()
                .orElseThrow();
        assertThat(failed.level()).isEqualTo(Level.DEBUG);
        assertThat(failed.keyValues())
                .containsEntry(LogEvents.BACKEND, "scripted")
                .containsEntry(LogEvents.ERROR, IllegalStateException.class.getName());

        LockEngine closed = LockEngine.create(failingCloseDriver(), LockOptions.defaults());
        org.assertj.core.api.Assertions.assertThatThrownBy(closed::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("close failed");
    }

    @Test
    void close_renewalStuckInTheDriver_warnsThatTheEngineThreadsStillRun() throws Exception {
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        try {
            LockEngine engine = engineWithAStuckWatchdog(gate);
            engine.close(); // waits 5 s for the watchdog thread, then warns
        } finally {
            gate.countDown();
        }
        Event warned = capture.events().stream()
                .filter(e -> e.name().equals(LogEvents.CLOSE_THREADS_STILL_RUNNING))
                .findFirst()
                .orElseThrow();
        assertThat(warned.level()).isEqualTo(Level.WARN);
        assertThat(warned.keyValues()).containsEntry(LogEvents.BACKEND, "scripted");
    }

    /**
     * A close from an interrupted thread while a renewal is stuck in the driver: it does not sit out
     * the 5 s wait for the engine's threads, and the caller's interrupt flag is still set after it.
     */
    @Test
    void close_interruptedWhileTheWatchdogIsStuck_returnsAtOnceAndKeepsTheFlag() throws Exception {
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        try {
            LockEngine engine = engineWithAStuckWatchdog(gate);
            long start = System.nanoTime();
            Thread.currentThread().interrupt();
            try {
                engine.close();
                assertThat(Thread.currentThread().isInterrupted())
                        .as("the caller's interrupt flag")
                        .isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        } finally {
            gate.countDown();
        }
    }

    /**
     * An engine holding one lease whose renewal is stuck in the driver on the watchdog thread until
     * {@code gate} opens (a renewal that does not come back while the test runs).
     */
    private static LockEngine engineWithAStuckWatchdog(java.util.concurrent.CountDownLatch gate)
            throws InterruptedException {
        java.util.concurrent.CountDownLatch stuck = new java.util.concurrent.CountDownLatch(1);
        ScriptedDriver driver = new ScriptedDriver(null);
        driver.answer.set(ctx -> java.util.Optional.of(driver.held(ctx)));
        LockEngine engine = LockEngine.create(
                driver, LockOptions.builder().leaseTime(Duration.ofMillis(300)).build());
        engine.lock("stuck").tryAcquire().orElseThrow();
        driver.onRenewOrRelease = () -> {
            if (Thread.currentThread().getName().contains("watchdog")) {
                stuck.countDown();
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        assertThat(stuck.await(5, TimeUnit.SECONDS)).isTrue();
        return engine;
    }

    @Test
    void close_calledWithTheInterruptFlagSet_keepsTheFlag() {
        LockEngine engine = LockEngine.create(failingCloseDriver(), LockOptions.defaults());
        Thread.currentThread().interrupt();
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(engine::close).isInstanceOf(IllegalStateException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    private static ScriptedDriver failingCloseDriver() {
        ScriptedDriver driver = new ScriptedDriver(ctx -> java.util.Optional.empty());
        driver.closeFailure = new IllegalStateException("close failed");
        return driver;
    }

    @Test
    void observerThrows_warnNamingTheBackendAndError() {
        LockObserver broken = new LockObserver() {
            @Override
            public void acquired(String backend, String lockName, Duration waited, java.util.OptionalLong token) {
                throw new IllegalStateException("observer bug");
            }
        };
        try (MemoryLockProvider p =
                client(LockOptions.builder().observer(broken).build())) {
            p.lock("log-observer").tryAcquire().orElseThrow().release();
        }
        Event failed = capture.events().stream()
                .filter(e -> e.name().equals(LogEvents.OBSERVER_FAILED))
                .findFirst()
                .orElseThrow();
        assertThat(failed.level()).isEqualTo(Level.WARN);
        assertThat(failed.keyValues())
                .containsEntry(LogEvents.BACKEND, "mem")
                .containsEntry(LogEvents.ERROR, IllegalStateException.class.getName());
    }

    @Test
    void everyEngineEvent_hasADocumentedNameAndKeys() {
        try (MemoryLockProvider a = client(LockOptions.builder()
                        .leaseTime(Duration.ofMillis(
                                500)) // long enough that b contends while a still holds, even on a loaded machine
                        .maxRenewals(1)
                        .build());
                MemoryLockProvider b = client(LockOptions.defaults())) {
            Lease lease = a.lock("log-all").tryAcquire().orElseThrow();
            assertThat(b.lock("log-all").tryAcquire()).isEmpty();
            await().atMost(Duration.ofSeconds(5)).until(() -> !lease.isValid());
            lease.release();
        }
        List<Event> engine = capture.events().stream()
                .filter(e -> e.logger().equals(LockEngine.class.getName()))
                .toList();
        assertThat(engine).isNotEmpty();
        assertThat(engine).allSatisfy(e -> {
            assertThat(LogEvents.EVENTS).contains(e.name());
            assertThat(LogEvents.KEYS).containsAll(e.keyValues().keySet());
            assertThat(e.keyValues()).containsKey(LogEvents.BACKEND);
        });
    }

    @Test
    void docsLoggingTable_listsEveryEventAndKey() throws IOException {
        Path doc = Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "..", "docs", "logging.md");
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        assertThat(LogEvents.EVENTS).allSatisfy(e -> assertThat(text).contains("`" + e + "`"));
        assertThat(LogEvents.KEYS).allSatisfy(k -> assertThat(text).contains("`" + k + "`"));
    }
}
