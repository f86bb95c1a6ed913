package io.distlock;

/**
 * A lease is no longer valid: its validity ran out, a renewal failed or found another owner, the
 * session or connection that carried it died, or the provider was closed. Once a lease is lost the
 * caller must assume that another client may hold the lock, and must stop work that relies on it.
 */
public class LeaseLostException extends LockException {
    private static final long serialVersionUID = 1L;

    public LeaseLostException(String message, String lockName, String backend, Throwable cause) {
        super(message, lockName, backend, cause);
    }

    public LeaseLostException(String message, String lockName, String backend) {
        super(message, lockName, backend, null);
    }
}
