package io.distlock.redis;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * For the hand-off benchmarks: counts acquisitions, and lets a holder that released wait blocked until
 * another client has taken the lock (so it does not barge). It waits on a monitor, not by polling: a
 * loop that parks 20 µs at a time competes on two CPUs with the very hand-off being measured (found in
 * session 7 for the comparison's hand-off scenario).
 */
final class NextHolder {
    private final AtomicInteger acquisitions = new AtomicInteger();

    /** Counts an acquisition and wakes released holders; returns its number (1, 2, …). */
    int acquired() {
        int n = acquisitions.incrementAndGet();
        synchronized (this) {
            notifyAll();
        }
        return n;
    }

    /** Waits until an acquisition after number {@code mine} has happened, or {@code stop} is set. */
    void awaitNext(int mine, AtomicBoolean stop) throws InterruptedException {
        synchronized (this) {
            while (!stop.get() && acquisitions.get() == mine) {
                wait(10);
            }
        }
    }
}
