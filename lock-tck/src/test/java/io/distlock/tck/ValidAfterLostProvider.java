package io.distlock.tck;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockProvider;
import io.distlock.spi.LockAdapter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

/**
 * A deliberately broken decorator: its leases ignore loss. They say they are valid until released,
 * report the full lease time as remaining, and never complete {@link Lease#lost()}, the way a
 * client that forgets to wire its renewal failures to the lease behaves.
 */
final class ValidAfterLostProvider implements LockProvider {
    final LockProvider delegate;
    private final Duration leaseTime;

    ValidAfterLostProvider(LockProvider delegate, Duration leaseTime) {
        this.delegate = delegate;
        this.leaseTime = leaseTime;
    }

    @Override
    public DistributedLock lock(String name) {
        return forgetful(delegate.lock(name));
    }

    private DistributedLock forgetful(DistributedLock inner) {
        return new DistributedLock() {
            @Override
            public DistributedLock withLeaseTime(Duration leaseTime) {
                return forgetful(inner.withLeaseTime(leaseTime));
            }

            @Override
            public DistributedLock withAutoRenew(boolean autoRenew) {
                return forgetful(inner.withAutoRenew(autoRenew));
            }

            @Override
            public String name() {
                return inner.name();
            }

            @Override
            public Optional<Lease> tryAcquire() {
                return inner.tryAcquire().map(ForgetfulLease::new);
            }

            @Override
            public Optional<Lease> tryAcquire(Duration maxWait) throws InterruptedException {
                return inner.tryAcquire(maxWait).map(ForgetfulLease::new);
            }

            @Override
            public Lease acquire() throws InterruptedException {
                return new ForgetfulLease(inner.acquire());
            }

            @Override
            public Lock asLock() {
                return new LockAdapter(this, false);
            }
        };
    }

    @Override
    public Capabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public String backend() {
        return delegate.backend();
    }

    @Override
    public List<Lease> heldLeases() {
        return delegate.heldLeases();
    }

    @Override
    public void close() {
        delegate.close();
    }

    private final class ForgetfulLease implements Lease {
        private final Lease inner;
        private final AtomicBoolean released = new AtomicBoolean();
        private final CompletableFuture<LeaseLostException> never = new CompletableFuture<>();

        ForgetfulLease(Lease inner) {
            this.inner = inner;
        }

        @Override
        public String lockName() {
            return inner.lockName();
        }

        @Override
        public OptionalLong fencingToken() {
            return inner.fencingToken();
        }

        @Override
        public Instant acquiredAt() {
            return inner.acquiredAt();
        }

        @Override
        public boolean isValid() {
            return !released.get();
        }

        @Override
        public Duration remainingValidity() {
            return released.get() ? Duration.ZERO : leaseTime;
        }

        @Override
        public void checkValid() {
            if (released.get()) {
                throw new LeaseLostException("lease was released", lockName(), backend());
            }
        }

        @Override
        public CompletionStage<LeaseLostException> lost() {
            return never;
        }

        @Override
        public boolean release() {
            released.set(true);
            return inner.release();
        }

        @Override
        public void extend(Duration leaseTime) {
            inner.extend(leaseTime);
        }

        @Override
        public boolean releaseAfter(Duration delay) {
            released.set(true);
            return inner.releaseAfter(delay);
        }

        @Override
        public void close() {
            release();
        }
    }
}
