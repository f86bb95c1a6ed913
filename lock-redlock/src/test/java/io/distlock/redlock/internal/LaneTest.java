package io.distlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LaneTest {
    private final List<Lane> lanes = new ArrayList<>();

    private Lane lane(int threads, int capacity, Duration idle) {
        Lane l = new Lane("distlock-redlock-lanetest-", threads, capacity, idle.toNanos());
        lanes.add(l);
        return l;
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (Lane l : lanes) {
            l.shutdownNow();
            assertThat(l.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** Runs {@code task} on {@code lane} and waits for it; returns the thread that ran it. */
    private static Thread runAndWait(Lane lane) throws InterruptedException {
        AtomicReference<Thread> ran = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        lane.execute(() -> {
            ran.set(Thread.currentThread());
            done.countDown();
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        return ran.get();
    }

    @Test
    void execute_oneRequestAtATime_reusesTheSameNamedDaemonThread() throws InterruptedException {
        Lane lane = lane(8, 16, Duration.ofSeconds(10));
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 50; i++) {
            Thread t = runAndWait(lane);
            threads.add(t);
            // the thread parks before the next request, so the next one is handed to a parked thread
            await().atMost(Duration.ofSeconds(10)).until(() -> t.getState() == Thread.State.TIMED_WAITING);
        }
        // a ThreadPoolExecutor would have cycled through all eight threads
        assertThat(threads).hasSize(1);
        Thread t = threads.iterator().next();
        assertThat(t.getName()).startsWith("distlock-redlock-lanetest-");
        assertThat(t.isDaemon()).isTrue();
    }

    @Test
    void execute_overlappingRequests_startThreadsUpToTheLimitThenQueue() throws InterruptedException {
        Lane lane = lane(2, 16, Duration.ofSeconds(10));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(2);
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        CountDownLatch allDone = new CountDownLatch(5);
        for (int i = 0; i < 5; i++) {
            lane.execute(() -> {
                threads.add(Thread.currentThread());
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                allDone.countDown();
            });
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(lane.allBusy()).isTrue();
        assertThat(allDone.getCount()).isEqualTo(5);
        release.countDown();
        // the queued requests run on the two busy threads once they are free
        assertThat(allDone.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(threads).hasSize(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> !lane.allBusy());
    }

    @Test
    void execute_queueFull_isRejected() throws InterruptedException {
        Lane lane = lane(1, 1, Duration.ofSeconds(10));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        lane.execute(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        lane.execute(() -> {}); // queued
        assertThatThrownBy(() -> lane.execute(() -> {}))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("1 requests queued");
        release.countDown();
    }

    @Test
    void execute_afterIdleTimeout_stopsTheThreadAndStartsANewOne() throws InterruptedException {
        Lane lane = lane(2, 16, Duration.ofMillis(100));
        Thread first = runAndWait(lane);
        await().atMost(Duration.ofSeconds(10)).until(() -> !first.isAlive());
        Thread second = runAndWait(lane);
        assertThat(second).isNotSameAs(first);
    }

    @Test
    void shutdownNow_stopsEveryThreadAndRejectsNewRequests() throws InterruptedException {
        Lane lane = lane(3, 16, Duration.ofSeconds(10));
        Thread t = runAndWait(lane);
        lane.shutdownNow();
        assertThat(lane.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThat(t.isAlive()).isFalse();
        assertThatThrownBy(() -> lane.execute(() -> {}))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("shut down");
    }

    @Test
    void shutdown_runsTheRunningAndQueuedRequests_rejectsNewOnes_thenStopsEveryThread() throws InterruptedException {
        Lane lane = lane(1, 16, Duration.ofSeconds(10));
        Thread idle = runAndWait(lane); // parked, waiting for work
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        lane.execute(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ran.add("running");
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        lane.execute(() -> ran.add("queued"));
        lane.shutdown();
        assertThatThrownBy(() -> lane.execute(() -> {}))
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("shut down");
        assertThat(lane.awaitTermination(200, TimeUnit.MILLISECONDS))
                .as("a running request holds the drain")
                .isFalse();
        release.countDown();
        assertThat(lane.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).containsExactly("running", "queued");
        assertThat(idle.isAlive()).isFalse();
    }

    @Test
    void shutdown_ofAnIdleLane_stopsItsParkedThreadsAtOnce() throws InterruptedException {
        Lane lane = lane(2, 16, Duration.ofSeconds(60));
        Thread t = runAndWait(lane);
        lane.shutdown();
        assertThat(lane.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThat(t.isAlive()).isFalse();
    }

    @Test
    void constructor_noThreads_isRejectedNamingTheArgument() {
        assertThatThrownBy(() -> new Lane("x-", 0, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxThreads must be at least 1");
    }
}
