package io.distlock.shedlock;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * ShedLock's view of one distlock lease, from {@code lock()} (or an extension) to {@code unlock()}.
 * Like every ShedLock lock it is used once: after {@link #unlock()} or a successful {@link #extend}
 * it throws {@link IllegalStateException}. An extension that finds the lock expired releases the
 * lease and returns empty; unlocking afterwards does nothing.
 */
final class LeaseLock implements SimpleLock {
    private enum State {
        ACTIVE,
        UNLOCKED,
        EXTENDED,
        /** An extension found the lock expired and released the lease. */
        EXPIRED
    }

    private final DistlockShedLockProvider provider;
    private final String name;
    private final Lease lease;
    /** {@link System#nanoTime()} when this lock (or the extension that made it) was asked for. */
    private final long startedAt;

    private final Duration lockAtMostFor;
    private final Duration lockAtLeastFor;
    private final DistlockLockAssert.Binding binding;
    private State state = State.ACTIVE; // guarded by this

    LeaseLock(
            DistlockShedLockProvider provider,
            String name,
            Lease lease,
            long startedAt,
            Duration lockAtMostFor,
            Duration lockAtLeastFor,
            DistlockLockAssert.Binding binding) {
        this.provider = provider;
        this.name = name;
        this.lease = lease;
        this.startedAt = startedAt;
        this.lockAtMostFor = lockAtMostFor;
        this.lockAtLeastFor = lockAtLeastFor;
        this.binding = binding;
    }

    /**
     * Frees the lock, or lets it stay taken until {@code lockAtLeastFor} after it was acquired
     * ({@link Lease#releaseAfter(Duration)}).
     */
    @Override
    public void unlock() {
        synchronized (this) {
            if (state == State.EXPIRED) {
                return;
            }
            checkActive();
            state = State.UNLOCKED;
        }
        binding.unbind();
        Duration delay = lockAtLeastFor.minusNanos(System.nanoTime() - startedAt);
        if (delay.isNegative() || delay.isZero()) {
            lease.release();
        } else {
            lease.releaseAfter(delay);
        }
    }

    /**
     * Extends the lease by its owner to {@code lockAtMostFor} from now ({@link Lease#extend}); the
     * new lock keeps it at least {@code lockAtLeastFor} from now.
     *
     * @return the new lock, or empty if this one had expired or the backend found it owned by
     *     another client (the lease is then released)
     * @throws IllegalStateException if this lock was unlocked or extended before
     * @throws io.distlock.BackendUnavailableException if the backend could not be asked; this lock
     *     stays as it was, and can still be unlocked or extended
     */
    @Override
    public synchronized Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
        Objects.requireNonNull(lockAtMostFor, "lockAtMostFor must not be null");
        Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor must not be null");
        if (lockAtMostFor.isNegative()) {
            throw new IllegalArgumentException("lockAtMostFor must not be negative (was " + lockAtMostFor + ")");
        }
        if (lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
            throw new IllegalArgumentException("lockAtLeastFor must not be longer than lockAtMostFor (was "
                    + lockAtLeastFor + " > " + lockAtMostFor + ")");
        }
        checkActive();
        long now = System.nanoTime();
        if (now - startedAt - this.lockAtMostFor.toNanos() > 0 || !lease.isValid()) {
            return expire();
        }
        try {
            lease.extend(DistlockShedLockProvider.leaseTime(lockAtMostFor));
        } catch (LeaseLostException lost) {
            return expire();
        } catch (IllegalArgumentException e) {
            throw provider.unsupportedLeaseTime(name, lockAtMostFor, e);
        }
        state = State.EXTENDED;
        return Optional.of(new LeaseLock(provider, name, lease, now, lockAtMostFor, lockAtLeastFor, binding));
    }

    private Optional<SimpleLock> expire() {
        state = State.EXPIRED;
        binding.unbind();
        try {
            lease.release(); // owner-only: frees it at once if the backend still holds it for us
        } catch (RuntimeException unreachable) {
            // the lease runs out on the backend by itself
        }
        return Optional.empty();
    }

    private void checkActive() {
        if (state != State.ACTIVE) {
            throw new IllegalStateException("lock '" + name + "' was already "
                    + (state == State.UNLOCKED ? "unlocked" : "extended; use the lock extend() returned"));
        }
    }

    @Override
    public String toString() {
        return "LeaseLock{name='" + name + "', lease=" + lease + '}';
    }
}
