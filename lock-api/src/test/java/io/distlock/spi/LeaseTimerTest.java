package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The engine's lazy timer: order, early tasks, cancellation, piles of cancelled tasks, close. */
class LeaseTimerTest {
    private static final Ticker TICKER = System::nanoTime;
    private final LeaseTimer timer = new LeaseTimer("distlock-test-timer", "test", TICKER);

    @AfterEach
    void close() throws InterruptedException {
        timer.close();
        assertThat(timer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }

    private static long in(long millis) {
        return TICKER.read() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void schedule_outOfOrder_runsInDeadlineOrderAndNotBefore() throws Exception {
        List<Integer> order = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(3);
        long start = TICKER.read();
        long[] ranAt = new long[1];
        timer.schedule(in(150), () -> {
            order.add(3);
            done.countDown();
        });
        timer.schedule(in(50), () -> {
            ranAt[0] = TICKER.read();
            order.add(1);
            done.countDown();
        });
        timer.schedule(in(100), () -> {
            order.add(2);
            done.countDown();
        });

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactly(1, 2, 3);
        assertThat(Duration.ofNanos(ranAt[0] - start)).isGreaterThanOrEqualTo(Duration.ofMillis(50));
    }

    @Test
    void schedule_dueAtTheCurrentReading_runsWithoutTheClockMoving() throws Exception {
        long frozen = 1_000_000_000L;
        LeaseTimer stopped = new LeaseTimer("distlock-test-stopped-timer", "test", () -> frozen);
        try {
            CountDownLatch ran = new CountDownLatch(1);
            stopped.schedule(frozen, ran::countDown);
            assertThat(ran.await(5, TimeUnit.SECONDS))
                    .as("a task due at the ticker's reading runs")
                    .isTrue();
        } finally {
            stopped.close();
            assertThat(stopped.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void schedule_dueBeforeThePlannedWakeUp_wakesTheThread() throws Exception {
        timer.schedule(in(60_000), () -> {});
        await().atMost(Duration.ofSeconds(5)).until(() -> timer.isSleeping()); // planned: in a minute
        CountDownLatch ran = new CountDownLatch(1);
        timer.schedule(in(20), ran::countDown);

        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void schedule_idleThreadWithHorizon_taskDueAfterTheHorizonRunsWithoutWakingTheThread() throws Exception {
        LeaseTimer idle = new LeaseTimer("distlock-test-idle", "test", TICKER, TimeUnit.MILLISECONDS.toNanos(300));
        try {
            await().atMost(Duration.ofSeconds(5)).until(idle::isSleeping); // nothing to run: the horizon
            CountDownLatch ran = new CountDownLatch(1);
            // the hot path: a lease's first renewal, due later than the idle thread's next look
            idle.schedule(in(1_000), ran::countDown);
            idle.schedule(in(60_000), () -> {}).cancel();

            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(idle.wakeUps()).isZero();
        } finally {
            idle.close();
            assertThat(idle.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void schedule_idleThreadWithHorizon_taskDueBeforeTheHorizonWakesTheThread() throws Exception {
        LeaseTimer idle = new LeaseTimer("distlock-test-idle", "test", TICKER, TimeUnit.SECONDS.toNanos(60));
        try {
            await().atMost(Duration.ofSeconds(5)).until(idle::isSleeping); // planned: in a minute
            CountDownLatch ran = new CountDownLatch(1);
            idle.schedule(in(20), ran::countDown);

            assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(idle.wakeUps()).isEqualTo(1);
        } finally {
            idle.close();
            assertThat(idle.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void cancel_beforeDue_neverRuns() throws Exception {
        AtomicBoolean cancelledRan = new AtomicBoolean();
        CountDownLatch later = new CountDownLatch(1);
        // due far enough out that a test thread descheduled on a loaded machine still cancels first
        LeaseTimer.Task t = timer.schedule(in(300), () -> cancelledRan.set(true));
        t.cancel();
        timer.schedule(in(400), later::countDown);

        assertThat(later.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(cancelledRan).isFalse();
        assertThat(t.isCancelled()).isTrue();
    }

    @Test
    void schedule_thousandsOfCancelledTasks_liveTasksStillRun() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 5_000; i++) {
            // the hot path: a lease's tasks, cancelled by its release long before they are due
            timer.schedule(in(60_000), ran::incrementAndGet).cancel();
            if (i % 1_000 == 0) {
                timer.schedule(in(10 + i / 100), ran::incrementAndGet);
            }
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> ran.get() == 5);
        assertThat(timer.pending()).isLessThanOrEqualTo(1_024);
    }

    @Test
    void action_throws_laterTasksStillRun() throws Exception {
        CountDownLatch after = new CountDownLatch(1);
        timer.schedule(in(10), () -> {
            throw new IllegalStateException("bug in an action");
        });
        timer.schedule(in(40), after::countDown);

        assertThat(after.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void close_pendingTask_neverRunsAndThreadStops() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        timer.schedule(in(100), () -> ran.set(true));
        timer.close();

        assertThat(timer.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        LeaseTimer.Task afterClose = timer.schedule(in(0), () -> ran.set(true));
        assertThat(afterClose.isCancelled()).isTrue();
        assertThat(ran).isFalse();
    }
}
