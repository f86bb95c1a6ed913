package io.distlock.redlock.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A node's I/O threads: at most {@code maxThreads} named daemon threads, started on demand and
 * stopped after {@code idleNanos} without work, and a bounded queue for requests that find every
 * thread busy. Unlike a {@code ThreadPoolExecutor} (whose idle threads take work first-in,
 * first-out, so consecutive requests land on a different, cold thread each time), a request is
 * handed to the thread that became idle <em>last</em> (the one whose stack, connection and caches
 * are warm), and a thread that finishes a request takes the next queued one without parking. With
 * the usual traffic (one request per node per round, rounds one after the other) the same one or
 * two threads per node do all the work, which on a busy machine costs markedly less CPU per round
 * than cycling through eight; threads beyond those still start when requests overlap.
 */
final class Lane implements Executor {
    private final String namePrefix;
    private final int maxThreads;
    private final int capacity;
    private final long idleNanos;
    private final AtomicInteger sequence = new AtomicInteger();
    private final ReentrantLock lock = new ReentrantLock();
    /** Requests waiting for a thread; guarded by {@link #lock}. */
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    /** Parked threads, the one that parked last first; guarded by {@link #lock}. */
    private final ArrayDeque<Worker> idle = new ArrayDeque<>();
    /** Every live thread; guarded by {@link #lock}. */
    private final List<Worker> workers = new ArrayList<>();
    /** Threads running a request (read without the lock by {@link #allBusy()}). */
    private volatile int busy;

    private boolean shutdown; // guarded by lock
    /**
     * No new requests; queued and running ones still run ({@link #shutdown()}). Set under {@link
     * #lock}; parked threads also read it without the lock.
     */
    private volatile boolean draining;

    Lane(String namePrefix, int maxThreads, int capacity, long idleNanos) {
        if (maxThreads < 1) {
            throw new IllegalArgumentException("maxThreads must be at least 1 (was " + maxThreads + ")");
        }
        this.namePrefix = namePrefix;
        this.maxThreads = maxThreads;
        this.capacity = capacity;
        this.idleNanos = idleNanos;
    }

    /**
     * Runs {@code task} on the most recently idle thread, on a new thread if none is idle and fewer
     * than {@code maxThreads} run, else after the requests queued before it.
     *
     * @throws RejectedExecutionException once shut down, or when the queue is full
     */
    @Override
    public void execute(Runnable task) {
        Worker wake;
        lock.lock();
        try {
            if (shutdown || draining) {
                throw new RejectedExecutionException(namePrefix + " is shut down");
            }
            wake = idle.pollFirst();
            if (wake != null) {
                wake.task = task;
                busy++;
            } else if (workers.size() < maxThreads) {
                Worker w = new Worker(task);
                try {
                    w.thread.start();
                } catch (OutOfMemoryError | IllegalThreadStateException e) {
                    throw new RejectedExecutionException(namePrefix + " could not start a thread", e);
                }
                workers.add(w);
                busy++;
                return;
            } else {
                if (queue.size() >= capacity) {
                    throw new RejectedExecutionException(
                            namePrefix + " has " + capacity + " requests queued behind busy threads");
                }
                queue.addLast(task);
                return;
            }
        } finally {
            lock.unlock();
        }
        LockSupport.unpark(wake.thread);
    }

    /** Whether every thread this lane may have is busy (new requests queue behind earlier ones). */
    boolean allBusy() {
        return busy >= maxThreads;
    }

    /**
     * Stops taking requests; the ones queued or running still run, then the threads stop. Idle
     * threads stop at once. {@link #awaitTermination} waits for the rest.
     */
    void shutdown() {
        List<Worker> parked;
        lock.lock();
        try {
            draining = true;
            parked = new ArrayList<>(idle);
        } finally {
            lock.unlock();
        }
        for (Worker w : parked) {
            LockSupport.unpark(w.thread);
        }
    }

    /** Stops taking requests, drops queued ones and interrupts the threads. */
    void shutdownNow() {
        List<Worker> all;
        lock.lock();
        try {
            shutdown = true;
            queue.clear();
            idle.clear();
            all = new ArrayList<>(workers);
        } finally {
            lock.unlock();
        }
        for (Worker w : all) {
            w.thread.interrupt();
            LockSupport.unpark(w.thread);
        }
    }

    /** Waits until every thread has stopped, at most {@code timeout}. */
    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        List<Worker> all;
        lock.lock();
        try {
            all = new ArrayList<>(workers);
        } finally {
            lock.unlock();
        }
        for (Worker w : all) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedJoin(w.thread, left);
            if (w.thread.isAlive()) {
                return false;
            }
        }
        return true;
    }

    private final class Worker implements Runnable {
        final Thread thread;
        /** The next request, handed over by {@link #execute} while this thread is parked. */
        volatile Runnable task;

        Worker(Runnable first) {
            this.task = first;
            this.thread = new Thread(this, namePrefix + sequence.incrementAndGet());
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                Runnable next = task;
                task = null;
                while (next != null) {
                    try {
                        next.run();
                    } catch (RuntimeException | Error e) {
                        // a CompletableFuture task never throws; nothing else is submitted
                    }
                    next = nextTask();
                }
            } finally {
                lock.lock();
                try {
                    workers.remove(this);
                    idle.remove(this);
                } finally {
                    lock.unlock();
                }
            }
        }

        /** The next queued request, or the one handed over while parked; null to stop. */
        private Runnable nextTask() {
            lock.lock();
            try {
                busy--;
                if (shutdown) {
                    workers.remove(this);
                    return null;
                }
                Runnable queued = queue.pollFirst();
                if (queued != null) {
                    busy++;
                    return queued;
                }
                if (draining) {
                    workers.remove(this);
                    return null;
                }
                idle.addFirst(this);
            } finally {
                lock.unlock();
            }
            long until = System.nanoTime() + idleNanos;
            while (true) {
                Runnable t = task;
                if (t != null) {
                    task = null;
                    return t;
                }
                long left = until - System.nanoTime();
                if (Thread.interrupted() || left <= 0 || draining) {
                    lock.lock();
                    try {
                        if (task == null && (shutdown || draining || left <= 0)) {
                            // not handed anything: stop (idle too long, or shut down), in the same
                            // step as leaving the lane, so no request queues behind a stopping thread
                            idle.remove(this);
                            workers.remove(this);
                            return null;
                        }
                    } finally {
                        lock.unlock();
                    }
                    continue; // handed a request while timing out (or a stray interrupt): look again
                }
                LockSupport.parkNanos(this, left);
            }
        }
    }
}
