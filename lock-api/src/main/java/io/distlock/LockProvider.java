package io.distlock;

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

    @Override
    void close();
}
