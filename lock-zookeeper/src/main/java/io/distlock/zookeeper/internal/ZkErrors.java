package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import io.distlock.LockException;
import org.apache.zookeeper.KeeperException;

/**
 * What a ZooKeeper error code means to a caller. A refusal for lack of permission ({@code NoAuth}:
 * the client's identity, i.e. its digest credentials, has no such right in the node's ACL) or a
 * failed authentication ({@code AuthFailed}) is a {@link LockConfigurationException}: retrying
 * cannot help, so it is thrown at once. Anything else (connection loss, a session that expired, a
 * server error) is a {@link BackendUnavailableException}, which a waiting caller retries.
 */
final class ZkErrors {
    static final String BACKEND = "zookeeper";

    private ZkErrors() {}

    /** Whether {@code rc} means missing permissions or failed authentication. */
    static boolean isRefusal(KeeperException.Code rc) {
        return rc == KeeperException.Code.NOAUTH || rc == KeeperException.Code.AUTHFAILED;
    }

    /** The exception for request {@code what} on {@code path} that failed with {@code rc}. */
    static LockException failure(String what, KeeperException.Code rc, String path, String lockName) {
        KeeperException cause = KeeperException.create(rc, path);
        if (isRefusal(rc)) {
            return refused(what, rc, path, lockName, cause);
        }
        return new BackendUnavailableException(what + " failed: " + rc, lockName, BACKEND, cause);
    }

    /** A configuration error for a request the server refused with {@code rc} (NoAuth, AuthFailed). */
    static LockConfigurationException refused(
            String what, KeeperException.Code rc, String path, String lockName, Throwable cause) {
        boolean authFailed = rc == KeeperException.Code.AUTHFAILED;
        String why = authFailed
                ? "authentication with the ZooKeeper servers failed"
                : "this client's identity (its digest credentials) lacks the permission in the ACL of " + path
                        + " or of its parent: check the credentials and the ACLs under the root path";
        return new LockConfigurationException(
                what + " refused (" + (authFailed ? "AuthFailed" : "NoAuth") + ") for lock '" + lockName + "': " + why,
                BACKEND,
                cause);
    }
}
