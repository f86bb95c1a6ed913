package io.distlock;

/**
 * The backend could not be reached or did not answer in time. The operation did not take effect
 * <em>as far as the client knows</em>; it is safe to retry. A lock that was being acquired is not
 * held by the caller (any partial state the attempt created is removed, or expires on its own).
 */
public class BackendUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    public BackendUnavailableException(String message, String lockName, String backend, Throwable cause) {
        super(message, lockName, backend, cause);
    }
}
