package io.distlock;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Entry point to one backend: a client connection (or pool) and the threads that keep its leases
 * alive. Create one per application and share it; it is thread-safe.
 *
 * <p>{@link #close()} releases every lease still held through this provider (best effort; leases
 * that cannot be released expire on the server), makes waiting threads fail with {@link
 * IllegalStateException}, stops every thread the provider started and closes connections it
 * opened. Connections or clients passed in by the caller are left open.
 *
 * <p>Obtain one from a backend's builder, or by URI through {@link LockProviders#open(String)}.
 */
public interface LockProvider extends AutoCloseable {

    /**
     * A handle for the lock called {@code name}. No I/O.
     *
     * @throws IllegalArgumentException if the name breaks the rule in {@link LockNames}
     * @throws IllegalStateException if the provider is closed
     */
    DistributedLock lock(String name);

    /** What this backend guarantees. */
    Capabilities capabilities();

    /** Short backend name, for example {@code "redis"}, {@code "etcd"} or {@code "mem"}. */
    String backend();

    /**
     * A snapshot of the leases acquired through this provider and not released yet, for operations:
     * which locks does this instance hold, since when ({@link Lease#acquiredAt()}), with which token
     * ({@link Lease#fencingToken()}) and until when ({@link Lease#validUntil()}).
     *
     * <p>The list is a copy, in no particular order. It includes leases that were lost but not yet
     * released ({@link Lease#isValid()} is {@code false} for those). Leases acquired or released while
     * the snapshot is taken may or may not be in it. Leases of other providers (other processes,
     * other provider instances in this JVM) are never listed: this is what <em>this</em> client
     * holds, not a server-side view. Decorators (such as {@link ReentrantLockProvider}) list the
     * leases of the provider they wrap.
     */
    List<Lease> heldLeases();

    /**
     * Releases every lease in {@link #heldLeases()}, the same way {@link Lease#release()} does
     * (owner-only: a lease that was lost is not deleted on the server, since the lock may belong to
     * someone else by now). Afterwards those leases are invalid and their locks free. Meant for admin
     * endpoints and shutdown hooks; unlike {@link #close()} the provider stays open. Leases acquired
     * while this runs may survive it.
     *
     * <p>Every lease is tried even if some releases fail.
     *
     * @return the number of locks this call released while they were still held by this provider
     *     (the leases whose {@code release()} returned {@code true})
     * @throws BackendUnavailableException if some release could not reach the server (the first
     *     failure, the others attached as suppressed); those locks expire on the server at the end of
     *     their lease
     */
    default int releaseAll() {
        int released = 0;
        RuntimeException failure = null;
        for (Lease lease : heldLeases()) {
            try {
                if (lease.release()) {
                    released++;
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return released;
    }

    /**
     * This provider, or something behind it, as {@code type}: the provider itself if it is a {@code
     * type} (for example a backend's provider class behind a {@link ReentrantLockProvider}), or a
     * service the backend offers through the SPI (such as {@link io.distlock.spi.FaultHooks}, which
     * the TCK uses). Decorators look through to the provider they wrap.
     *
     * @return the object, or empty if neither this provider nor anything behind it is a {@code type}
     * @throws NullPointerException if {@code type} is null
     */
    default <T> Optional<T> unwrap(Class<T> type) {
        Objects.requireNonNull(type, "type must not be null");
        return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
    }

    @Override
    void close();
}
