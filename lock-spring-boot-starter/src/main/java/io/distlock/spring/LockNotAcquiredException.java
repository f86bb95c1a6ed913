package io.distlock.spring;

import io.distlock.LockTimeoutException;
import java.time.Duration;

/**
 * A {@link Locked} method did not run because its lock was held by another client for the whole
 * wait. Nothing was executed; the call may be retried.
 */
public class LockNotAcquiredException extends LockTimeoutException {
    private static final long serialVersionUID = 1L;

    private final String method;

    public LockNotAcquiredException(String lockName, String backend, Duration maxWait, String method) {
        super(lockName, backend, maxWait);
        this.method = method;
    }

    /** The method that did not run, as {@code SimpleClassName.method(..)}. */
    public String method() {
        return method;
    }

    @Override
    public String getMessage() {
        return method + " did not run: " + super.getMessage();
    }
}
