package io.distlock;

/** The caller asked for something the backend does not offer (see {@link Capabilities}). */
public class UnsupportedCapabilityException extends LockException {
    private static final long serialVersionUID = 1L;

    public UnsupportedCapabilityException(String message, String lockName, String backend) {
        super(message, lockName, backend);
    }
}
