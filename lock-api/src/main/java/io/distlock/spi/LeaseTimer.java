package io.distlock.spi;

import io.distlock.Ticker;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.event.Level;

/**
 * One daemon thread that runs actions at ticker readings. The engine has two: the timer (validity
 * checks and hold caps: short, never blocking, so a renewal stuck in the network cannot delay a
 * loss signal) and the watchdog (renewals, which do I/O).
 *
 * <p>Built for the lock's hot path, where almost every lease is released long before any of its
 * timers is due: {@link #schedule} appends to a lock-free queue and wakes the thread only when the
 * new task is due before the thread's planned wake-up (or a batch of tasks has piled up), and
 * {@link Task#cancel()} only clears a field. A {@code ScheduledThreadPoolExecutor} instead takes a
 * lock and, when its queue is empty (the usual case between two short holds), signals its thread on
 * every schedule, which costs a thread wake-up per acquisition on a busy machine. Cancelled tasks
 * are dropped when the thread next looks at them; they hold no reference to their action.
 *
 * <p>With nothing to run, the thread would sleep until told, and then every {@link #schedule} would
 * have to wake it. With an idle horizon {@code h > 0} it sleeps at most {@code h} instead and says
 * so, so that tasks due later than that (a lease's first renewal, when {@code h} is half the
 * renewal interval) are taken in at its next planned wake-up without waking it: an idle provider's
 * timer thread wakes once per {@code h}, a busy one not once per acquisition.
 */
final class LeaseTimer {
    /** Wake the thread after this many schedules at the latest, so cancelled tasks do not pile up. */
    private static final int DRAIN_BATCH = 1024;

    private final Ticker ticker;
    private final long idleHorizonNanos;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Task> incoming = new ConcurrentLinkedQueue<>();
    private final AtomicInteger incomingCount = new AtomicInteger();
    /** Times {@link #schedule} woke the thread (for tests; only touched when it does). */
    private final AtomicInteger wakeUps = new AtomicInteger();

    private final String backend;
    /** Run on the thread after each pass over the due tasks (null: nothing). */
    private volatile Runnable afterPass;
    /** Where the thread plans to wake up next ({@link Deadlines#NEVER}: when told); read when not awake. */
    private volatile long wakeAt = Deadlines.NEVER;
    /** The thread is running and will look at {@link #incoming} before it sleeps again. */
    private volatile boolean awake = true;

    private volatile boolean closed;

    /** A scheduled action; {@link #cancel()} before it runs and it never runs. */
    static final class Task {
        final long at;
        private volatile Runnable action;

        Task(long at, Runnable action) {
            this.at = at;
            this.action = action;
        }

        /** Prevents the action from running if it has not started yet. */
        void cancel() {
            action = null;
        }

        Runnable take() {
            Runnable a = action;
            action = null;
            return a;
        }

        boolean isCancelled() {
            return action == null;
        }
    }

    LeaseTimer(String threadName, String backend, Ticker ticker) {
        this(threadName, backend, ticker, 0);
    }

    /**
     * @param idleHorizonNanos with no task pending, the thread sleeps at most this long (0: until
     *     told); see the class comment
     */
    LeaseTimer(String threadName, String backend, Ticker ticker, long idleHorizonNanos) {
        this.ticker = ticker;
        this.idleHorizonNanos = idleHorizonNanos;
        this.backend = backend;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Runs {@code action} on the timer thread once the ticker reaches {@code atNanos} (at once if it
     * has). Never blocks; after {@link #close()} the task is accepted and never runs.
     */
    Task schedule(long atNanos, Runnable action) {
        Task t = new Task(atNanos, action);
        if (closed) {
            t.cancel();
            return t;
        }
        incoming.add(t);
        int pending = incomingCount.incrementAndGet();
        // Read after the add. While the thread is awake it looks at the queue again before it
        // sleeps; once it has published its plan (wakeAt, then awake = false), we see that plan.
        if (pending == DRAIN_BATCH || (!awake && wakesTooLate(wakeAt, atNanos))) {
            wakeUps.incrementAndGet();
            LockSupport.unpark(thread);
        }
        return t;
    }

    /**
     * Sets what runs on the thread after each pass over the tasks that were due (tasks due at the
     * same reading run in one pass), before the thread sleeps; set it before scheduling anything.
     * It must be short and must not block.
     */
    void afterPass(Runnable hook) {
        this.afterPass = hook;
    }

    /** Runs {@code action} on the thread as soon as possible; after {@link #close()} never. */
    void execute(Runnable action) {
        schedule(ticker.read(), action);
    }

    private static boolean wakesTooLate(long planned, long at) {
        return planned == Deadlines.NEVER || at - planned < 0;
    }

    /** Whether the thread sleeps until a planned time (for tests). */
    boolean isSleeping() {
        return !awake && wakeAt != Deadlines.NEVER;
    }

    /** Times {@link #schedule} had to wake the thread (for tests). */
    int wakeUps() {
        return wakeUps.get();
    }

    /** Tasks scheduled and not yet taken in by the thread (for tests). */
    int pending() {
        return incomingCount.get();
    }

    /** Stops the thread; tasks not yet run never run. */
    void close() {
        closed = true;
        LockSupport.unpark(thread);
    }

    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        unit.timedJoin(thread, timeout);
        return !thread.isAlive();
    }

    private void run() {
        PriorityQueue<Task> heap = new PriorityQueue<>((a, b) -> Long.signum(a.at - b.at));
        int purgeAt = DRAIN_BATCH;
        while (!closed) {
            drain(heap);
            if (heap.size() >= purgeAt) {
                heap.removeIf(Task::isCancelled);
                purgeAt = Math.max(DRAIN_BATCH, heap.size() * 2);
            }
            Task head;
            while ((head = heap.peek()) != null && !closed) {
                if (head.isCancelled()) {
                    heap.poll();
                    continue;
                }
                if (head.at - ticker.read() > 0) {
                    break;
                }
                heap.poll();
                Runnable action = head.take();
                if (action != null) {
                    run(action);
                }
                drain(heap); // actions schedule follow-ups
            }
            Runnable hook = afterPass;
            if (hook != null && !closed) {
                run(hook);
            }
            long next = head != null
                    ? head.at
                    : idleHorizonNanos > 0 ? Deadlines.after(ticker.read(), idleHorizonNanos) : Deadlines.NEVER;
            wakeAt = next;
            awake = false;
            if (!incoming.isEmpty() || closed) {
                awake = true;
                continue; // a task came in after the last drain: look again before sleeping
            }
            if (next == Deadlines.NEVER) {
                LockSupport.park(this);
            } else {
                long left = next - ticker.read();
                if (left > 0) {
                    LockSupport.parkNanos(this, left);
                }
            }
            awake = true;
        }
    }

    private void run(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException | Error e) {
            LogEvents.log(
                    LockEngine.log,
                    Level.WARN,
                    LogEvents.TIMER_TASK_FAILED,
                    e,
                    LogEvents.BACKEND,
                    backend,
                    LogEvents.ERROR,
                    LogEvents.errorName(e));
        }
    }

    private void drain(PriorityQueue<Task> heap) {
        int n = 0;
        Task t;
        while ((t = incoming.poll()) != null) {
            n++;
            if (!t.isCancelled()) {
                heap.add(t);
            }
        }
        if (n > 0) {
            incomingCount.addAndGet(-n);
        }
    }
}
