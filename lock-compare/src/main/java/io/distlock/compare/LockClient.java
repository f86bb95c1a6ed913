package io.distlock.compare;

import io.distlock.Lease;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The smallest lock interface the comparison needs, so that distlock providers and peers (Redisson,
 * Curator, jetcd, hand-rolled locks) run the same scenarios. One instance is one client (its own
 * connections); the comparison opens one per simulated process.
 */
public interface LockClient extends AutoCloseable {

    /**
     * Acquires {@code name}, waiting at most {@code maxWait} ({@link Duration#ZERO}: one try).
     *
     * @return the hold, or empty if not acquired in time
     */
    Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException;

    @Override
    void close();

    /** One acquired lock. */
    interface Hold {
        /** Releases the lock. */
        void release();

        /** The fencing token, if the lock has one. */
        default OptionalLong token() {
            return OptionalLong.empty();
        }
    }

    /** A client over a distlock provider; closing the client closes the provider. */
    static LockClient of(LockProvider provider) {
        return new LockClient() {
            @Override
            public Optional<Hold> acquire(String name, Duration maxWait) throws InterruptedException {
                Optional<Lease> lease = maxWait.isZero()
                        ? provider.lock(name).tryAcquire()
                        : provider.lock(name).tryAcquire(maxWait);
                return lease.map(l -> new Hold() {
                    @Override
                    public void release() {
                        l.release();
                    }

                    @Override
                    public OptionalLong token() {
                        return l.fencingToken();
                    }
                });
            }

            @Override
            public void close() {
                provider.close();
            }

            @Override
            public String toString() {
                return provider.toString();
            }
        };
    }
}
