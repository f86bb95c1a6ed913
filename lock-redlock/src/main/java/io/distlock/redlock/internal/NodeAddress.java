package io.distlock.redlock.internal;

import io.distlock.Credentials;
import io.distlock.redis.core.ConnectionChecks;
import java.util.Objects;
import redis.clients.jedis.HostAndPort;

/**
 * A Redlock node's address and, optionally, its own credentials, used instead of the
 * provider-wide {@code RedlockLockOptions.credentials()} for that node. {@link #toString()} never
 * shows the password; equality is by address only.
 */
public final class NodeAddress {
    private final HostAndPort hostAndPort;
    private final Credentials credentials;

    private NodeAddress(HostAndPort hostAndPort, Credentials credentials) {
        this.hostAndPort = Objects.requireNonNull(hostAndPort, "hostAndPort must not be null");
        this.credentials = credentials;
    }

    /** A node that uses the provider-wide credentials. */
    public static NodeAddress of(HostAndPort hostAndPort) {
        return new NodeAddress(hostAndPort, null);
    }

    /**
     * A node with its own credentials: {@code AUTH username password}, or {@code AUTH password}
     * (the {@code default} user) for {@link Credentials#password(String)}.
     *
     * @throws IllegalArgumentException if Redis cannot use them (see {@link
     *     ConnectionChecks#credentials(Credentials)})
     */
    public static NodeAddress withCredentials(HostAndPort hostAndPort, Credentials credentials) {
        return new NodeAddress(hostAndPort, ConnectionChecks.credentials(credentials));
    }

    public HostAndPort hostAndPort() {
        return hostAndPort;
    }

    /** This node's own credentials, or null if it uses the provider-wide ones. */
    public Credentials ownCredentials() {
        return credentials;
    }

    /** {@code host:port}. */
    public String address() {
        return hostAndPort.getHost() + ":" + hostAndPort.getPort();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeAddress && ((NodeAddress) o).hostAndPort.equals(hostAndPort);
    }

    @Override
    public int hashCode() {
        return hostAndPort.hashCode();
    }

    /** {@code host:port}, plus {@code (user u)} or {@code (own password)}; never the password. */
    @Override
    public String toString() {
        if (credentials == null) {
            return address();
        }
        return address() + credentials.user().map(u -> " (user " + u + ")").orElse(" (own password)");
    }
}
