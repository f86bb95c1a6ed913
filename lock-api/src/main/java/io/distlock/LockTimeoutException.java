package io.distlock;

import java.time.Duration;

/**
 * Thrown by the convenience methods ({@link DistributedLock#withLock}) when the lock was not
 * acquired within the allowed wait. The plain acquisition methods report this case with an empty
 * {@code Optional} instead.
 */
public class LockTimeoutException extends LockException {
    private static final long serialVersionUID = 1L;

    private final Duration maxWait;

    public LockTimeoutException(String lockName, String backend, Duration maxWait) {
        super("lock not acquired within " + maxWait, lockName, backend);
        this.maxWait = maxWait;
    }

    /** The wait that ran out. */
    public Duration maxWait() {
        return maxWait;
    }
}
