package io.distlock.spi;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

/** The engine's lock handle. */
final class EngineLock implements DistributedLock {
    private final LockEngine engine;
    private final String name;
    /** This handle's lease settings: the engine's, or a variant from withLeaseTime/withAutoRenew. */
    private final LockOptions options;

    private volatile Lock adapter;

    EngineLock(LockEngine engine, String name) {
        this(engine, name, engine.options());
    }

    private EngineLock(LockEngine engine, String name, LockOptions options) {
        this.engine = engine;
        this.name = name;
        this.options = options;
    }

    @Override
    public DistributedLock withLeaseTime(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime must not be null");
        if (leaseTime.equals(options.leaseTime())) {
            return this;
        }
        return new EngineLock(
                engine, name, options.mutate().leaseTime(leaseTime).build());
    }

    @Override
    public DistributedLock withAutoRenew(boolean autoRenew) {
        if (autoRenew == options.autoRenew()) {
            return this;
        }
        return new EngineLock(
                engine, name, options.mutate().autoRenew(autoRenew).build());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<Lease> tryAcquire() {
        try {
            return engine.acquire(name, 0, options);
        } catch (InterruptedException e) {
            // a single try never waits, so this cannot happen; keep the flag for the caller
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException {
        long nanos = waitNanos(maxWait);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
        }
        return engine.acquire(name, nanos, options);
    }

    @Override
    public Lease acquire() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before acquiring lock '" + name + "'");
        }
        return engine.acquire(name, Long.MAX_VALUE, options)
                .orElseThrow(() -> new IllegalStateException("unbounded wait ended without the lock"));
    }

    @Override
    public String backend() {
        return engine.backend();
    }

    /** Validates a wait; {@code Long.MAX_VALUE} stands for "no limit". */
    static long waitNanos(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait must not be null");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative (was " + maxWait + ")");
        }
        try {
            return maxWait.toNanos();
        } catch (ArithmeticException tooLarge) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public Lock asLock() {
        Lock a = adapter;
        if (a == null) {
            synchronized (this) {
                a = adapter;
                if (a == null) {
                    a = adapter = new LockAdapter(this, false);
                }
            }
        }
        return a;
    }

    @Override
    public String toString() {
        return "DistributedLock{name='" + name + "', backend=" + engine.backend()
                + (options == engine.options()
                        ? ""
                        : ", leaseTime=" + options.leaseTime() + ", autoRenew=" + options.autoRenew())
                + '}';
    }
}
