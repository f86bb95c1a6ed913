package io.distlock.testing.faults;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An injected fault that undoes itself: on {@link #close()}, or by itself once its maximum duration
 * has passed (measured with {@code System.nanoTime}), whichever comes first. The undo runs exactly
 * once. A named daemon thread ({@code distlock-fault-<name>}) watches the bound and ends on close.
 *
 * <pre>{@code
 * try (Fault pause = Faults.pause(server, Duration.ofSeconds(5))) {
 *     ... // the server is frozen here, at most 5 s
 * }   // resumed
 * }</pre>
 */
public final class Fault implements AutoCloseable {
    private final String name;
    private final Runnable undo;
    private final AtomicBoolean undone = new AtomicBoolean();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Thread watchdog;
    private volatile RuntimeException undoFailure;

    private Fault(String name, Runnable undo, Duration maxDuration) {
        this.name = name;
        this.undo = undo;
        this.watchdog = new Thread(
                () -> {
                    try {
                        if (!closed.await(maxDuration.toNanos(), TimeUnit.NANOSECONDS)) {
                            undoOnce();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "distlock-fault-" + name);
        watchdog.setDaemon(true);
    }

    /**
     * Applies a fault now and returns its handle.
     *
     * @param name a short name for messages and the watchdog thread
     * @param apply injects the fault
     * @param undo undoes it
     * @param maxDuration how long the fault may last at most; positive
     */
    public static Fault inject(String name, Runnable apply, Runnable undo, Duration maxDuration) {
        Objects.requireNonNull(name, "name must not be null");
        Objects.requireNonNull(apply, "apply must not be null");
        Objects.requireNonNull(undo, "undo must not be null");
        if (maxDuration == null || maxDuration.isNegative() || maxDuration.isZero()) {
            throw new IllegalArgumentException("maxDuration must be positive (was " + maxDuration + ")");
        }
        Fault f = new Fault(name, undo, maxDuration);
        apply.run();
        f.watchdog.start();
        return f;
    }

    /** Whether the fault is still in effect. */
    public boolean isActive() {
        return !undone.get();
    }

    private void undoOnce() {
        if (undone.compareAndSet(false, true)) {
            try {
                undo.run();
            } catch (RuntimeException e) {
                undoFailure = e;
            }
        }
    }

    /**
     * Undoes the fault now (if the bound did not already) and stops the watchdog.
     *
     * @throws IllegalStateException if undoing failed (the cause is attached)
     */
    @Override
    public void close() {
        closed.countDown();
        undoOnce();
        try {
            watchdog.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        RuntimeException failure = undoFailure;
        if (failure != null) {
            undoFailure = null;
            throw new IllegalStateException("undoing fault " + name + " failed", failure);
        }
    }

    @Override
    public String toString() {
        return "Fault[" + name + (isActive() ? ", active" : ", undone") + "]";
    }
}
