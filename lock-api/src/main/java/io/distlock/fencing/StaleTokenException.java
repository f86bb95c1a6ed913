package io.distlock.fencing;

import io.distlock.LockException;

/**
 * A write carried a fencing token older than one the resource has already accepted: the writer's
 * lease expired (a pause, a partition) and another client has held the lock since. The write must
 * be dropped; the writer must not retry it with the same token.
 */
public class StaleTokenException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final long token;
    private final long lastAccepted;

    public StaleTokenException(String resource, long token, long lastAccepted) {
        super(
                "stale fencing token " + token + " for resource '" + resource + "': the resource has already"
                        + " accepted token " + lastAccepted,
                null,
                null);
        this.resource = resource;
        this.token = token;
        this.lastAccepted = lastAccepted;
    }

    public String resource() {
        return resource;
    }

    public long token() {
        return token;
    }

    public long lastAccepted() {
        return lastAccepted;
    }
}
