package io.distlock;

import java.util.Objects;

/**
 * Root of every exception distlock throws for a lock operation. Unchecked.
 *
 * <p>Each instance names the lock and the backend it concerns (either may be {@code null} when the
 * failure is not about one lock, e.g. opening a provider). Messages never contain credentials.
 *
 * <p>Contention is never an exception: {@link DistributedLock#tryAcquire()} returns an empty
 * {@code Optional} when another holder has the lock.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final String backend;

    public LockException(String message, String lockName, String backend, Throwable cause) {
        super(compose(message, lockName, backend), cause);
        this.lockName = lockName;
        this.backend = backend;
    }

    public LockException(String message, String lockName, String backend) {
        this(message, lockName, backend, null);
    }

    /** The lock this failure concerns, or {@code null}. */
    public String lockName() {
        return lockName;
    }

    /** The backend (for example {@code "redis"}) this failure concerns, or {@code null}. */
    public String backend() {
        return backend;
    }

    private static String compose(String message, String lockName, String backend) {
        Objects.requireNonNull(message, "message");
        StringBuilder sb = new StringBuilder(message);
        if (lockName != null || backend != null) {
            sb.append(" [");
            if (lockName != null) {
                sb.append("lock '").append(lockName).append('\'');
            }
            if (backend != null) {
                if (lockName != null) {
                    sb.append(", ");
                }
                sb.append("backend ").append(backend);
            }
            sb.append(']');
        }
        return sb.toString();
    }
}
