package io.distlock.integration;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration's {@link org.springframework.integration.support.locks.LockRegistry} over any
 * distlock {@link LockProvider}: aggregators, {@code LockRegistryLeaderInitiator}, {@code
 * executeLocked} and every other user of a lock registry run on Redis, Redlock, ZooKeeper, etcd,
 * MySQL or the in-JVM backend, with the guarantees that backend states in its {@link
 * io.distlock.Capabilities} and a fencing token per hold ({@link #lease(Object)}).
 *
 * <p>The locks follow what Spring Integration documents for its {@link java.util.concurrent.locks.Lock}
 * registries ({@code JdbcLockRegistry}, {@code RedisLockRegistry}):
 *
 * <ul>
 *   <li>{@link #obtain(Object)} takes a {@code String} key (the distlock lock name) and returns the same
 *       lock object for the same key until {@link #expireUnusedOlderThan(long)} drops it;
 *   <li>reentrant per thread: a thread that holds the lock locks it again at once (no backend request)
 *       and must unlock as often; threads of this JVM queue on a local lock first, so one backend
 *       contender per key and JVM;
 *   <li>{@code tryLock()} is one try, {@code tryLock(time, unit)} waits at most that long (by
 *       notification where the backend can), {@code lock()} waits uninterruptibly, {@code
 *       lockInterruptibly()} can be interrupted; a wait that ends without the lock leaves nothing held;
 *   <li>{@code unlock()} by the holding thread only ({@link IllegalMonitorStateException} otherwise);
 *       the outermost unlock releases the lease (owner-only on the backend). If the lease was lost
 *       meanwhile (expired, session ended, taken over after a pause), the unlock throws {@link
 *       LeaseLostException}: the work it protected may have overlapped another holder's;
 *   <li>a holding thread that locks again after its lease was lost gets a {@link LeaseLostException}
 *       (its hold count unchanged, so it still unlocks as often as it locked): {@code
 *       LockRegistryLeaderInitiator}, which re-locks on every heartbeat, revokes leadership on it;
 *   <li>{@link #renewLock(Object, Duration)} extends the holding thread's lease ({@link
 *       Lease#extend(Duration)}: owner-checked on the backend).
 * </ul>
 *
 * <p>Leases renew themselves while held (the distlock watchdog or session, as the provider's {@link
 * LockOptions#autoRenew()} says, or {@link Builder#autoRenew(boolean)}), so no renewal scheduler is
 * needed; {@link #setRenewalTaskScheduler} is ignored. A lease time set here (or a {@code ttl} given to
 * {@link DistributedLock#lock(Duration)}) is the time the lock outlives a holder that stops renewing.
 *
 * <pre>{@code
 * DistlockLockRegistry registry = DistlockLockRegistry.create(locks);
 * registry.executeLocked("orders-" + id, Duration.ofSeconds(2), () -> {
 *     long token = registry.lease("orders-" + id).orElseThrow().fencingToken().getAsLong();
 *     orders.ship(id, token);
 * });
 * }</pre>
 *
 * <p>Thread-safe. The registry does not own the provider: close the provider yourself.
 */
public final class DistlockLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {
    private final LockProvider locks;
    private final Duration leaseTime;
    private final Boolean autoRenew;
    private final Map<String, RegistryLock> cache = new ConcurrentHashMap<>();

    private DistlockLockRegistry(Builder b) {
        this.locks = b.locks;
        this.leaseTime = b.leaseTime;
        this.autoRenew = b.autoRenew;
    }

    /** A registry over {@code locks}, with the provider's lease time and renewal. */
    public static DistlockLockRegistry create(LockProvider locks) {
        return builder(locks).build();
    }

    /** A builder for a registry over {@code locks}. */
    public static Builder builder(LockProvider locks) {
        return new Builder(locks);
    }

    /** The distlock provider underneath. */
    public LockProvider locks() {
        return locks;
    }

    /**
     * The lock for {@code lockKey}, a {@code String} used as the distlock lock name. No I/O.
     *
     * @throws IllegalArgumentException if {@code lockKey} is not a {@code String} or breaks {@link
     *     io.distlock.LockNames}' rule
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        String name = name(lockKey);
        locks.lock(name); // checks the name now rather than at the first lock()
        return cache.compute(name, (k, existing) -> {
            RegistryLock lock = existing != null ? existing : new RegistryLock(this, k);
            lock.obtained();
            return lock;
        });
    }

    /**
     * The lease through which this registry holds the lock for {@code lockKey} now, whichever thread
     * of this JVM holds it; empty if it is not held through this registry. For the holder's fencing
     * token ({@link Lease#fencingToken()}), validity and loss signal ({@link Lease#lost()}): a leader
     * elected with {@code LockRegistryLeaderInitiator} reads {@code lease(role)} in {@code onGranted}
     * and passes the token with its writes.
     */
    public Optional<Lease> lease(Object lockKey) {
        RegistryLock lock = cache.get(name(lockKey));
        return lock == null ? Optional.empty() : lock.currentLease();
    }

    /**
     * Drops cached locks that no thread holds and that were last obtained {@code age} milliseconds ago
     * or earlier. A dropped lock object keeps working; {@link #obtain(Object)} returns a new one.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = TimeUnit.MILLISECONDS.toNanos(age);
        cache.values().removeIf(lock -> !lock.isHeld() && now - lock.lastObtained() >= ageNanos);
    }

    /**
     * Extends the current thread's lease of {@code lockKey} by the lease time it was acquired with
     * (the {@code ttl} given to {@code lock}/{@code tryLock}, else {@link Builder#leaseTime}).
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws IllegalStateException if the lease time is not known here (the registry uses the
     *     provider's): call {@link #renewLock(Object, Duration)}
     * @throws LeaseLostException if the lease was lost or the backend found another owner
     */
    @Override
    public void renewLock(Object lockKey) {
        heldLock(lockKey).renew(null);
    }

    /**
     * Extends the current thread's lease of {@code lockKey} to {@code ttl} from now ({@link
     * Lease#extend(Duration)}, owner-checked on the backend); a later {@link #renewLock(Object)} uses
     * {@code ttl} too.
     *
     * @throws IllegalMonitorStateException if the current thread does not hold the lock
     * @throws IllegalArgumentException if {@code ttl} is not a lease time the backend accepts
     * @throws LeaseLostException if the lease was lost or the backend found another owner
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        heldLock(lockKey).renew(Objects.requireNonNull(ttl, "ttl must not be null"));
    }

    private RegistryLock heldLock(Object lockKey) {
        String name = name(lockKey);
        RegistryLock lock = cache.get(name);
        if (lock == null || !lock.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("current thread does not hold lock '" + name + "'");
        }
        return lock;
    }

    /** The handle for one acquisition of {@code name}: the registry's settings, or {@code ttl}. */
    io.distlock.DistributedLock handle(String name, Duration ttl) {
        io.distlock.DistributedLock lock = locks.lock(name);
        Duration lease = ttl != null ? ttl : leaseTime;
        if (lease != null) {
            lock = lock.withLeaseTime(lease);
        }
        if (autoRenew != null) {
            lock = lock.withAutoRenew(autoRenew);
        }
        return lock;
    }

    /** The lease time of acquisitions without a {@code ttl}, or null for the provider's. */
    Duration leaseTime() {
        return leaseTime;
    }

    String backend() {
        return locks.backend();
    }

    private static String name(Object lockKey) {
        if (!(lockKey instanceof String)) {
            throw new IllegalArgumentException("lockKey must be a String (was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()) + ")");
        }
        return (String) lockKey;
    }

    @Override
    public String toString() {
        return "DistlockLockRegistry{backend=" + locks.backend() + ", leaseTime="
                + (leaseTime == null ? "provider's" : leaseTime) + '}';
    }

    /** Builder for {@link DistlockLockRegistry}. */
    public static final class Builder {
        private final LockProvider locks;
        private Duration leaseTime;
        private Boolean autoRenew;

        private Builder(LockProvider locks) {
            this.locks = Objects.requireNonNull(locks, "locks must not be null");
        }

        /**
         * The lease time of every acquisition ({@link io.distlock.DistributedLock#withLeaseTime}):
         * how long a lock outlives a holder that stops renewing, and what {@link #renewLock(Object)}
         * extends by. Default: the provider's.
         *
         * @throws IllegalArgumentException unless between {@link LockOptions#MIN_LEASE_TIME} and
         *     {@link LockOptions#MAX_LEASE_TIME}
         */
        public Builder leaseTime(Duration leaseTime) {
            Objects.requireNonNull(leaseTime, "leaseTime must not be null");
            LockOptions.builder().leaseTime(leaseTime); // the bounds and the message naming leaseTime
            this.leaseTime = leaseTime;
            return this;
        }

        /**
         * Whether held locks renew themselves ({@link io.distlock.DistributedLock#withAutoRenew}).
         * With {@code false} a lock ends at its lease time unless {@link #renewLock renewed}, as
         * Spring's JDBC and Redis registries do without a renewal scheduler. Default: the provider's.
         */
        public Builder autoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
            return this;
        }

        public DistlockLockRegistry build() {
            return new DistlockLockRegistry(this);
        }
    }
}
