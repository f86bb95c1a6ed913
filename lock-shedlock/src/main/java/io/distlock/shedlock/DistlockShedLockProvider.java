package io.distlock.shedlock;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} (and {@link ExtensibleLockProvider})
 * over any distlock {@link LockProvider}: {@code @SchedulerLock} jobs, {@code LockingTaskExecutor}
 * calls and {@code LockExtender} keep their code and run on Redis, Redlock, ZooKeeper, etcd, MySQL or
 * the in-JVM backend, with the guarantees that backend states in its {@link
 * io.distlock.Capabilities} and a fencing token for the job's writes ({@link
 * DistlockLockAssert#currentToken()}).
 *
 * <p>How ShedLock's settings map to distlock's lease control, on the one provider given here:
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is the lease time of the acquisition, without renewal ({@code
 *       lock(name).withLeaseTime(lockAtMostFor).withAutoRenew(false)}): the lock is free again
 *       {@code lockAtMostFor} after it was taken, also when the holder crashed or paused. Values below
 *       {@link LockOptions#MIN_LEASE_TIME} (10 ms) are held for that minimum on the backend; the
 *       {@link SimpleLock} still counts itself expired after {@code lockAtMostFor}. Where the server
 *       keeps lease times ({@link io.distlock.Capabilities.LeaseTiming#SERVER}), a crashed holder
 *       keeps the lock exactly that long; where the client keeps them ({@code CLIENT}), the holder's
 *       provider frees the lock at that time and a crash frees it when its session or connection
 *       ends.
 *   <li>{@code lockAtLeastFor} is kept at unlock with {@link Lease#releaseAfter(Duration)}: a job that
 *       finishes early leaves the lock taken until {@code lockAtLeastFor} after it was acquired.
 *   <li>{@link SimpleLock#extend(Duration, Duration)} is {@link Lease#extend(Duration)}: owner-checked,
 *       so a lock that already expired (or was taken by another instance) is not extended; the
 *       extension then returns empty and the lease is released.
 *   <li>A try never waits: a lock held elsewhere gives an empty {@code Optional} (the job is skipped,
 *       as with every ShedLock provider). Backend outages throw {@link
 *       io.distlock.BackendUnavailableException} and the job does not run.
 * </ul>
 *
 * <p>A backend that cannot hold a lease as short as {@code lockAtMostFor} (Redlock: below about twice
 * its node timeout) refuses the acquisition with an {@link IllegalArgumentException} that names the
 * lock, the value and the backend's minimum, rather than holding the lock for a different time.
 *
 * <pre>{@code
 * @Bean
 * net.javacrumbs.shedlock.core.LockProvider shedLockProvider(io.distlock.LockProvider locks) {
 *     return DistlockShedLockProvider.create(locks);
 * }
 * }</pre>
 *
 * <p>Thread-safe. Closing is the distlock provider's business: this class opens nothing.
 */
public final class DistlockShedLockProvider implements ExtensibleLockProvider {
    private final LockProvider locks;

    private DistlockShedLockProvider(LockProvider locks) {
        this.locks = Objects.requireNonNull(locks, "locks must not be null");
    }

    /** A ShedLock provider whose locks are {@code locks}' locks of the same name. */
    public static DistlockShedLockProvider create(LockProvider locks) {
        return new DistlockShedLockProvider(locks);
    }

    /** The distlock provider underneath. */
    public LockProvider locks() {
        return locks;
    }

    /**
     * One try for the lock {@code lockConfiguration.getName()}, held for at most {@code
     * lockAtMostFor} and at least {@code lockAtLeastFor}. On success the lease is bound to this
     * thread for {@link DistlockLockAssert} until the returned lock is unlocked.
     *
     * @return the lock, or empty if another client holds it
     * @throws IllegalArgumentException if the name breaks {@link io.distlock.LockNames}' rule, or the
     *     backend cannot hold a lease of {@code lockAtMostFor}
     * @throws io.distlock.BackendUnavailableException if the backend could not be asked
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        Objects.requireNonNull(lockConfiguration, "lockConfiguration must not be null");
        long startedAt = System.nanoTime();
        String name = lockConfiguration.getName();
        Duration atMost = lockConfiguration.getLockAtMostFor();
        DistributedLock lock = locks.lock(name);
        DistributedLock handle;
        try {
            handle = lock.withLeaseTime(leaseTime(atMost)).withAutoRenew(false);
        } catch (IllegalArgumentException e) {
            throw unsupportedLeaseTime(name, atMost, e);
        }
        return handle.tryAcquire()
                .map(lease -> new LeaseLock(
                        this,
                        name,
                        lease,
                        startedAt,
                        atMost,
                        lockConfiguration.getLockAtLeastFor(),
                        DistlockLockAssert.bind(lease, locks.backend())));
    }

    /** The lease time for {@code lockAtMostFor}: itself, or the smallest one distlock accepts. */
    static Duration leaseTime(Duration lockAtMostFor) {
        return lockAtMostFor.compareTo(LockOptions.MIN_LEASE_TIME) < 0 ? LockOptions.MIN_LEASE_TIME : lockAtMostFor;
    }

    IllegalArgumentException unsupportedLeaseTime(String name, Duration lockAtMostFor, IllegalArgumentException e) {
        return new IllegalArgumentException(
                "lockAtMostFor " + lockAtMostFor + " of lock '" + name + "' is not a lease time backend "
                        + locks.backend() + " can hold: " + e.getMessage(),
                e);
    }

    @Override
    public String toString() {
        return "DistlockShedLockProvider{backend=" + locks.backend() + '}';
    }
}
