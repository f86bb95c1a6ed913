package io.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * A thousand virtual threads wait for locks without pinning their carrier threads.
 *
 * <p>The library targets Java 17, so this test creates virtual threads through reflection and runs
 * only in lock-api's {@code virtual-threads} surefire execution, on a Java 21+ JVM with a scheduler
 * of two carrier threads ({@code -Djdk.virtualThreadScheduler.parallelism=2}, {@code maxPoolSize=2}).
 * It fails (never skips) on an older JVM. A waiter that pinned its carrier while waiting would hold
 * one of the two carriers: the thousand waiters could not all be parked at once, the probe thread
 * started while they wait could not run, and JFR would record {@code jdk.VirtualThreadPinned} events
 * with distlock frames.
 *
 * <p>Limit: since JDK 24 (JEP 491) a virtual thread blocked in {@code Object.wait()} inside {@code
 * synchronized} no longer pins, so on such a JVM this test cannot see that kind of pinning, which
 * still exists on Java 21 to 23. The waiting path it exercises (engine + in-JVM backend) uses
 * {@code ReentrantLock}/{@code Condition} only.
 */
class VirtualThreadWaitersTest {
    private static final int WAITERS = 1000;
    private static final int LOCKS = 4;

    @Test
    void tryAcquire_thousandVirtualThreadWaiters_waitWithoutPinningACarrier() throws Exception {
        assertThat(Runtime.version().feature())
                .as(
                        "runs on Java 21+ only (lock-api's virtual-threads surefire execution); running on %s",
                        Runtime.version())
                .isGreaterThanOrEqualTo(21);
        assertThat(System.getProperty("jdk.virtualThreadScheduler.parallelism"))
                .as("the carrier pool is bounded so that pinning shows")
                .isEqualTo("2");

        Path jfrFile = Files.createTempFile("distlock-vt-", ".jfr");
        List<Thread> waiters = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger[] holders = new AtomicInteger[LOCKS];
        AtomicInteger overlaps = new AtomicInteger();
        try (Recording recording = new Recording()) {
            recording
                    .enable("jdk.VirtualThreadPinned")
                    .withThreshold(Duration.ZERO)
                    .withStackTrace();
            recording.start();
            MemoryLockServer server = MemoryLockServer.create();
            try (MemoryLockProvider holder = provider(server);
                    MemoryLockProvider clients = provider(server)) {
                List<Lease> held = new ArrayList<>();
                for (int i = 0; i < LOCKS; i++) {
                    holders[i] = new AtomicInteger();
                    held.add(holder.lock("vt-" + i).tryAcquire().orElseThrow());
                }
                for (int i = 0; i < WAITERS; i++) {
                    int lock = i % LOCKS;
                    waiters.add(virtualThread("distlock-test-vt-" + i, () -> {
                        try {
                            Optional<Lease> lease = clients.lock("vt-" + lock).tryAcquire(Duration.ofMinutes(2));
                            if (holders[lock].incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            acquired.incrementAndGet();
                            holders[lock].decrementAndGet();
                            lease.orElseThrow().release();
                        } catch (Throwable t) {
                            failures.add(t);
                        }
                    }));
                }
                waiters.forEach(Thread::start);

                // every waiter is parked in its wait at the same time: pinned waiters would have
                // taken both carriers and kept the others from ever starting
                await("all " + WAITERS + " virtual threads waiting")
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> waiters.stream().allMatch(VirtualThreadWaitersTest::parked));
                CountDownLatch probeRan = new CountDownLatch(1);
                virtualThread("distlock-test-vt-probe", probeRan::countDown).start();
                assertThat(probeRan.await(10, TimeUnit.SECONDS))
                        .as("a new virtual thread runs while %d virtual threads wait", WAITERS)
                        .isTrue();

                held.forEach(Lease::release);
                for (Thread t : waiters) {
                    t.join(TimeUnit.SECONDS.toMillis(60));
                    assertThat(t.isAlive()).as("%s still running", t).isFalse();
                }
            }
            recording.stop();
            recording.dump(jfrFile);
        }
        assertThat(failures).isEmpty();
        assertThat(acquired).hasValue(WAITERS);
        assertThat(overlaps).hasValue(0);
        List<String> pinnedInDistlock = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(jfrFile)) {
            if (e.getStackTrace() != null) {
                for (RecordedFrame f : e.getStackTrace().getFrames()) {
                    if (f.getMethod().getType().getName().startsWith("io.distlock.")) {
                        pinnedInDistlock.add(e.toString());
                        break;
                    }
                }
            }
        }
        Files.delete(jfrFile);
        assertThat(pinnedInDistlock)
                .as("jdk.VirtualThreadPinned events in distlock code")
                .isEmpty();
    }

    private static MemoryLockProvider provider(MemoryLockServer server) {
        return MemoryLockProvider.builder()
                .server(server)
                .options(LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
    }

    private static boolean parked(Thread t) {
        Thread.State s = t.getState();
        return s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING;
    }

    /** {@code Thread.ofVirtual().name(name).unstarted(task)}, called through reflection (Java 17 API). */
    private static Thread virtualThread(String name, Runnable task) throws ReflectiveOperationException {
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        builder = builderType.getMethod("name", String.class).invoke(builder, name);
        Method unstarted = builderType.getMethod("unstarted", Runnable.class);
        return (Thread) unstarted.invoke(builder, task);
    }
}
