package io.distlock.etcd.internal;

import io.distlock.Ticker;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's one background thread ({@code distlock-etcd-session-N}, a daemon): it sends the
 * keepalives, runs the delayed and retried work of the other parts, and times out requests nobody
 * blocks on. Nothing that runs on it blocks. Internal.
 */
final class SessionThread {
    private static final Logger log = LoggerFactory.getLogger(SessionThread.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    /** Period of the tick that runs {@link Delayed} tasks: they run up to this much after they are due. */
    private static final long LATER_TICK_MILLIS = 50;

    /** A task for {@link #runLater}: runs on the session thread once the ticker passes {@link #dueAt}. */
    abstract static class Delayed implements Runnable {
        final long dueAt;

        Delayed(long dueAt) {
            this.dueAt = dueAt;
        }
    }

    private final ScheduledThreadPoolExecutor executor;
    private final Ticker ticker;
    private final Set<Delayed> later = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean laterTicking = new AtomicBoolean();

    SessionThread(Ticker ticker) {
        this.ticker = ticker;
        String name = "distlock-etcd-session-" + SEQUENCE.incrementAndGet();
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Runs {@code task} soon; dropped if the provider is closing. */
    void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException closing) {
            // the provider is closing: what the task would do ends with it
        }
    }

    /**
     * Runs {@code task} after {@code delayNanos}.
     *
     * @throws RejectedExecutionException if the provider is closing
     */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Runs {@code task} every {@code periodNanos}, the first time after one period.
     *
     * @throws RejectedExecutionException if the provider is closing
     */
    ScheduledFuture<?> every(Runnable task, long periodNanos) {
        return executor.scheduleWithFixedDelay(task, periodNanos, periodNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Fails {@code f} with a {@link TimeoutException} if it is not complete within {@code nanos},
     * on this thread (not the JDK's JVM-wide delay thread).
     */
    <T> CompletableFuture<T> within(CompletableFuture<T> f, long nanos) {
        try {
            ScheduledFuture<?> t = schedule(
                    () -> f.completeExceptionally(
                            new TimeoutException("no answer within " + nanos / 1_000_000 + " ms")),
                    nanos);
            f.whenComplete((r, e) -> t.cancel(false));
        } catch (RejectedExecutionException closing) {
            f.completeExceptionally(new IllegalStateException("provider is closed"));
        }
        return f;
    }

    /**
     * Runs {@code task} on this thread when it is due. Unlike a scheduled task, adding and {@link
     * #cancelLater cancelling} one only touches a set: a tick every {@value #LATER_TICK_MILLIS} ms
     * runs what is due, and stops when nothing is left. So a lock acquired and released within the
     * delay wakes no thread at all (a scheduled task per acquisition would wake this thread twice:
     * at schedule and at cancel).
     */
    void runLater(Delayed task) {
        later.add(task);
        if (laterTicking.compareAndSet(false, true)) {
            scheduleTick();
        }
    }

    void cancelLater(Delayed task) {
        later.remove(task);
    }

    private void scheduleTick() {
        try {
            executor.schedule(this::laterTick, LATER_TICK_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            later.clear();
        }
    }

    private void laterTick() {
        long now = ticker.read();
        for (Delayed d : later) {
            if (now - d.dueAt >= 0 && later.remove(d)) {
                try {
                    d.run();
                } catch (RuntimeException e) {
                    log.debug("distlock.etcd.delayed_task_failed error={}", e.toString());
                }
            }
        }
        laterTicking.set(false);
        if (!later.isEmpty() && !executor.isShutdown() && laterTicking.compareAndSet(false, true)) {
            scheduleTick();
        }
    }

    /** Stops the thread: queued and scheduled tasks are dropped, later ones rejected. */
    void shutdown() {
        executor.shutdownNow();
    }

    /** Waits up to 5 s for the thread to end after {@link #shutdown()}. */
    void awaitTermination() {
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("distlock.etcd.close.session_thread_still_running");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
