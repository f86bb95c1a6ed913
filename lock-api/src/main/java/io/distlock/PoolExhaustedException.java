package io.distlock;

/**
 * Every connection of the provider's pool is in use, and the caller may not (or no longer) wait for
 * one to come back: a zero-wait {@link DistributedLock#tryAcquire()} finds none free, or a {@link
 * DistributedLock#tryAcquire(java.time.Duration)} spent its wait waiting for one. The backend is up;
 * the client holds, waits for or works on as many locks as its pool has connections.
 *
 * <p>Not a {@link BackendUnavailableException} (retrying at once does not help, and nothing is wrong
 * with the server), and not a {@link LockConfigurationException} (it passes when held locks are
 * released). The message says what to change: the pool size, or how many locks are held at once.
 * Backends whose locks each keep a connection (the SQL backends: one per held lock and per waiting
 * thread) throw it; {@link ConnectionPoolMetrics} shows how close a provider is to it.
 */
public class PoolExhaustedException extends LockException {
    private static final long serialVersionUID = 1L;

    private final int poolSize;

    public PoolExhaustedException(String message, String lockName, String backend, int poolSize, Throwable cause) {
        super(message, lockName, backend, cause);
        this.poolSize = poolSize;
    }

    /** The size of the exhausted pool. */
    public int poolSize() {
        return poolSize;
    }
}
