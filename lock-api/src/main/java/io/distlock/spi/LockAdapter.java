package io.distlock.spi;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A thread-bound {@link Lock} view of a {@link DistributedLock} (see {@link
 * DistributedLock#asLock()}). Support class for providers and decorators.
 */
public final class LockAdapter implements Lock {
    private final DistributedLock lock;
    private final boolean reentrant;
    private final Map<Thread, Deque<Lease>> holds = new ConcurrentHashMap<>();

    /**
     * @param reentrant whether the underlying lock lets a thread acquire again what it holds
     */
    public LockAdapter(DistributedLock lock, boolean reentrant) {
        this.lock = Objects.requireNonNull(lock, "lock must not be null");
        this.reentrant = reentrant;
    }

    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    lockInterruptibly();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        checkReentry();
        push(lock.acquire());
    }

    @Override
    public boolean tryLock() {
        checkReentry();
        return lock.tryAcquire().map(this::push).isPresent();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit must not be null");
        checkReentry();
        Duration wait = Duration.ofNanos(Math.max(0, unit.toNanos(time)));
        return lock.tryAcquire(wait).map(this::push).isPresent();
    }

    @Override
    public void unlock() {
        Thread me = Thread.currentThread();
        Deque<Lease> mine = holds.get(me);
        if (mine == null || mine.isEmpty()) {
            throw new IllegalMonitorStateException(
                    "current thread does not hold lock '" + lock.name() + "' through this view");
        }
        Lease lease = mine.pop();
        if (mine.isEmpty()) {
            holds.remove(me);
        }
        lease.release();
    }

    /** Always throws: distributed locks have no conditions. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks do not support conditions");
    }

    private void checkReentry() {
        if (!reentrant && holds.containsKey(Thread.currentThread())) {
            throw new IllegalStateException("lock '" + lock.name()
                    + "' is already held by this thread and is not reentrant; wrap the provider with"
                    + " ReentrantLockProvider to allow that");
        }
    }

    private Lease push(Lease lease) {
        holds.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>()).push(lease);
        return lease;
    }
}
