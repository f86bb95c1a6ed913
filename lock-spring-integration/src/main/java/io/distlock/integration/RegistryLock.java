package io.distlock.integration;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * One key of a {@link DistlockLockRegistry}: a local {@link ReentrantLock} (threads of this JVM, and
 * reentrancy) in front of the distlock lease (other processes). The lease is taken by the outermost
 * lock and released by the outermost unlock.
 */
final class RegistryLock implements DistributedLock {
    private final DistlockLockRegistry registry;
    private final String name;
    private final ReentrantLock local = new ReentrantLock();
    /** The lease while the local lock is held; written by the holding thread only. */
    private volatile Lease lease;
    /** The lease time the current hold was acquired with, or null if it is the provider's. */
    private volatile Duration leaseTime;

    private volatile long lastObtained;

    RegistryLock(DistlockLockRegistry registry, String name) {
        this.registry = registry;
        this.name = name;
    }

    @Override
    public void lock() {
        lock(null);
    }

    /**
     * Waits, uninterruptibly, until the lock is held; {@code ttl} is the lease time (how long the lock
     * outlives a holder that stops renewing). The interrupt flag is set again on return if an interrupt
     * arrived meanwhile.
     */
    @Override
    public void lock(Duration ttl) {
        local.lock();
        if (reentered()) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    hold(registry.handle(name, ttl).acquire(), ttl);
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (RuntimeException | Error e) {
                    local.unlock();
                    throw e;
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
        local.lockInterruptibly();
        if (reentered()) {
            return;
        }
        try {
            hold(registry.handle(name, null).acquire(), null);
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    /** One try, without waiting: for the local lock or the backend. */
    @Override
    public boolean tryLock() {
        if (!local.tryLock()) {
            return false;
        }
        if (reentered()) {
            return true;
        }
        try {
            Optional<Lease> acquired = registry.handle(name, null).tryAcquire();
            if (acquired.isEmpty()) {
                local.unlock();
                return false;
            }
            hold(acquired.get(), null);
            return true;
        } catch (RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit must not be null");
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
    }

    /** Waits at most {@code waitTime} (local queue and backend together); {@code ttl} as in {@link #lock(Duration)}. */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        Objects.requireNonNull(waitTime, "waitTime must not be null");
        long waitNanos = Math.max(0, saturatedNanos(waitTime));
        long start = System.nanoTime();
        if (!local.tryLock(waitNanos, TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (reentered()) {
            return true;
        }
        try {
            long left = Math.max(0, waitNanos - (System.nanoTime() - start));
            Optional<Lease> acquired = registry.handle(name, ttl).tryAcquire(Duration.ofNanos(left));
            if (acquired.isEmpty()) {
                local.unlock();
                return false;
            }
            hold(acquired.get(), ttl);
            return true;
        } catch (InterruptedException | RuntimeException | Error e) {
            local.unlock();
            throw e;
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    private void hold(Lease acquired, Duration ttl) {
        leaseTime = ttl != null ? ttl : registry.leaseTime();
        lease = acquired;
    }

    /**
     * Whether this lock was taken by a thread that held it already: true if its lease is still valid;
     * otherwise the new hold is undone and {@link LeaseLostException} thrown.
     */
    private boolean reentered() {
        if (local.getHoldCount() == 1) {
            return false;
        }
        Lease current = lease;
        if (current != null && current.isValid()) {
            return true;
        }
        local.unlock();
        throw new LeaseLostException(
                "the lock this thread holds was lost (expired, or its session ended); unlock it before"
                        + " locking it again",
                name,
                registry.backend());
    }

    /**
     * Unlocks one level; the outermost unlock releases the lease on the backend.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws LeaseLostException if the lease had been lost before this unlock (the lock may have had
     *     another holder meanwhile; the local lock is released all the same)
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("current thread does not hold lock '" + name + "'");
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        Lease held = lease;
        lease = null;
        leaseTime = null;
        try {
            if (!held.release()) {
                throw new LeaseLostException(
                        "the lock was lost before unlock; another client may have held it meanwhile, so the"
                                + " work it protected may have overlapped theirs",
                        name,
                        registry.backend());
            }
        } finally {
            local.unlock();
        }
    }

    /** Extends the holding thread's lease to {@code ttl}, or to the hold's lease time if null. */
    void renew(Duration ttl) {
        Duration to = ttl != null ? ttl : leaseTime;
        if (to == null) {
            throw new IllegalStateException("renewLock(lockKey) needs the lease time of lock '" + name
                    + "', which is the provider's here: build the registry with leaseTime(...) or call"
                    + " renewLock(lockKey, ttl)");
        }
        lease.extend(to);
        leaseTime = to;
    }

    /** Always throws: distributed locks have no conditions. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("distributed locks do not support conditions");
    }

    Optional<Lease> currentLease() {
        return Optional.ofNullable(lease);
    }

    boolean isHeld() {
        return local.isLocked();
    }

    boolean isHeldByCurrentThread() {
        return local.isHeldByCurrentThread();
    }

    void obtained() {
        lastObtained = System.nanoTime();
    }

    long lastObtained() {
        return lastObtained;
    }

    @Override
    public String toString() {
        return "DistlockLock{name='" + name + "', backend=" + registry.backend() + ", held=" + isHeld() + '}';
    }
}
