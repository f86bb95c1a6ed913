package io.distlock;

import io.distlock.spi.LockAdapter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

/**
 * Makes any provider's locks reentrant per thread: a thread that already holds a lock (through this
 * decorator) acquires it again at once, without a server round trip, and the lock is released on
 * the server when the outermost lease is released.
 *
 * <p>Nested leases share the outer lease's fencing token and validity: if the outer lease is lost,
 * every nested lease is lost too. Reentrancy is per thread and per decorator instance; another
 * thread of the same JVM waits like any other client.
 *
 * <pre>{@code
 * LockProvider provider = ReentrantLockProvider.wrap(LockProviders.open("redis://localhost:6379"));
 * }</pre>
 */
public final class ReentrantLockProvider implements LockProvider {
    private final LockProvider delegate;
    private final Capabilities capabilities;
    private final Map<HoldKey, Hold> holds = new ConcurrentHashMap<>();

    private ReentrantLockProvider(LockProvider delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate must not be null");
        this.capabilities = delegate.capabilities().mutate().reentrant(true).build();
    }

    /** Wraps {@code delegate}; closing the wrapper closes the delegate. */
    public static ReentrantLockProvider wrap(LockProvider delegate) {
        return new ReentrantLockProvider(delegate);
    }

    @Override
    public DistributedLock lock(String name) {
        return new ReentrantLock(delegate.lock(name));
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public String backend() {
        return delegate.backend();
    }

    /**
     * The wrapped provider's leases: one per lock held, however deeply it is nested. Releasing one
     * (or {@link #releaseAll()}) releases the lock on the server and invalidates every nested lease
     * of it.
     */
    @Override
    public List<Lease> heldLeases() {
        return delegate.heldLeases();
    }

    /** This decorator if it is a {@code type}, otherwise what the wrapped provider offers. */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        Objects.requireNonNull(type, "type must not be null");
        return type.isInstance(this) ? Optional.of(type.cast(this)) : delegate.unwrap(type);
    }

    @Override
    public void close() {
        delegate.close();
    }

    private record HoldKey(String name, Thread thread) {}

    private static final class Hold {
        final Lease lease;
        int count = 1; // touched only by the owning thread

        Hold(Lease lease) {
            this.lease = lease;
        }
    }

    private final class ReentrantLock implements DistributedLock {
        private final DistributedLock inner;
        private volatile Lock adapter;

        ReentrantLock(DistributedLock inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public String backend() {
            return inner.backend();
        }

        private Optional<Lease> reenter() {
            HoldKey key = new HoldKey(inner.name(), Thread.currentThread());
            Hold hold = holds.get(key);
            if (hold == null) {
                return Optional.empty();
            }
            if (!hold.lease.isValid()) {
                // the outer lease was lost: this thread holds nothing any more, so acquire afresh
                // (enter() replaces the stale hold; its leases' releases then return false)
                holds.remove(key, hold);
                return Optional.empty();
            }
            hold.count++;
            return Optional.of(new NestedLease(key, hold));
        }

        private Optional<Lease> enter(Optional<Lease> acquired) {
            return acquired.map(l -> {
                HoldKey key = new HoldKey(inner.name(), Thread.currentThread());
                Hold hold = new Hold(l);
                holds.put(key, hold);
                return new NestedLease(key, hold);
            });
        }

        /** Same lock, same holds; a thread that already holds it re-enters whatever the lease time. */
        @Override
        public DistributedLock withLeaseTime(Duration leaseTime) {
            return new ReentrantLock(inner.withLeaseTime(leaseTime));
        }

        @Override
        public DistributedLock withAutoRenew(boolean autoRenew) {
            return new ReentrantLock(inner.withAutoRenew(autoRenew));
        }

        @Override
        public Optional<Lease> tryAcquire() {
            Optional<Lease> again = reenter();
            return again.isPresent() ? again : enter(inner.tryAcquire());
        }

        @Override
        public Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException {
            Objects.requireNonNull(maxWait, "maxWait must not be null");
            if (maxWait.isNegative()) {
                throw new IllegalArgumentException("maxWait must not be negative (was " + maxWait + ")");
            }
            Optional<Lease> again = reenter();
            return again.isPresent() ? again : enter(inner.tryAcquire(maxWait));
        }

        @Override
        public Lease acquire() throws InterruptedException {
            Optional<Lease> again = reenter();
            return again.isPresent()
                    ? again.get()
                    : enter(Optional.of(inner.acquire())).orElseThrow();
        }

        @Override
        public Lock asLock() {
            Lock a = adapter;
            if (a == null) {
                synchronized (this) {
                    a = adapter;
                    if (a == null) {
                        a = adapter = new LockAdapter(this, true);
                    }
                }
            }
            return a;
        }
    }

    private final class NestedLease implements Lease {
        private final HoldKey key;
        private final Hold hold;
        private final AtomicBoolean released = new AtomicBoolean();

        NestedLease(HoldKey key, Hold hold) {
            this.key = key;
            this.hold = hold;
        }

        @Override
        public String lockName() {
            return hold.lease.lockName();
        }

        @Override
        public OptionalLong fencingToken() {
            return hold.lease.fencingToken();
        }

        @Override
        public Instant acquiredAt() {
            return hold.lease.acquiredAt();
        }

        @Override
        public boolean isValid() {
            return !released.get() && hold.lease.isValid();
        }

        @Override
        public Duration remainingValidity() {
            return released.get() ? Duration.ZERO : hold.lease.remainingValidity();
        }

        @Override
        public void checkValid() {
            if (released.get()) {
                throw new LeaseLostException("lease was released", lockName(), backend());
            }
            hold.lease.checkValid();
        }

        @Override
        public CompletionStage<LeaseLostException> lost() {
            return hold.lease.lost();
        }

        /** Extends the shared (outermost) lease: every nested lease of the hold sees it. */
        @Override
        public void extend(Duration leaseTime) {
            checkValid();
            hold.lease.extend(leaseTime);
        }

        @Override
        public boolean release() {
            return leave(Duration.ZERO);
        }

        /** The delay applies when this is the last lease of the hold; a nested one just leaves. */
        @Override
        public boolean releaseAfter(Duration delay) {
            Objects.requireNonNull(delay, "delay must not be null");
            return leave(delay);
        }

        private boolean leave(Duration delay) {
            if (!released.compareAndSet(false, true)) {
                return false;
            }
            boolean last;
            synchronized (hold) {
                last = --hold.count == 0;
            }
            if (last) {
                holds.remove(key, hold);
                return delay.isZero() || delay.isNegative() ? hold.lease.release() : hold.lease.releaseAfter(delay);
            }
            return hold.lease.isValid();
        }

        @Override
        public void close() {
            release();
        }
    }
}
