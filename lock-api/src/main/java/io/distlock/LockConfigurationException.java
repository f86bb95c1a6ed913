package io.distlock;

/**
 * A provider could not be configured or opened: an unknown URI scheme, a malformed URI, a missing
 * table or privilege, conflicting options. Not retryable without a configuration change.
 */
public class LockConfigurationException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockConfigurationException(String message, String backend, Throwable cause) {
        super(message, null, backend, cause);
    }

    public LockConfigurationException(String message, String backend) {
        super(message, null, backend, null);
    }
}
