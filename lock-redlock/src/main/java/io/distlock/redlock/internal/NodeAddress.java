package io.distlock.redlock.internal;

import java.util.Objects;
import redis.clients.jedis.HostAndPort;

/**
 * A Redlock node's address and, optionally, its own credentials, used instead of the
 * provider-wide {@code RedlockOptions.username()}/{@code password()} for that node. {@link
 * #toString()} never shows the password; equality is by address only.
 */
public final class NodeAddress {
    private final HostAndPort hostAndPort;
    private final String username;
    private final String password;

    private NodeAddress(HostAndPort hostAndPort, String username, String password) {
        this.hostAndPort = Objects.requireNonNull(hostAndPort, "hostAndPort must not be null");
        this.username = username;
        this.password = password;
    }

    /** A node that uses the provider-wide credentials. */
    public static NodeAddress of(HostAndPort hostAndPort) {
        return new NodeAddress(hostAndPort, null, null);
    }

    /**
     * A node with its own credentials: {@code AUTH username password}, or {@code AUTH password}
     * (the {@code default} user) when {@code username} is null.
     */
    public static NodeAddress withCredentials(HostAndPort hostAndPort, String username, String password) {
        Objects.requireNonNull(password, "password must not be null");
        if (password.isEmpty()) {
            throw new IllegalArgumentException("password must not be empty (omit the node's credentials instead)");
        }
        if (username != null && username.isEmpty()) {
            throw new IllegalArgumentException("username must not be empty (null: the default user)");
        }
        return new NodeAddress(hostAndPort, username, password);
    }

    public HostAndPort hostAndPort() {
        return hostAndPort;
    }

    /** Whether this node has credentials of its own. */
    public boolean ownCredentials() {
        return password != null;
    }

    String username() {
        return username;
    }

    String password() {
        return password;
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
        if (!ownCredentials()) {
            return address();
        }
        return address() + (username == null ? " (own password)" : " (user " + username + ")");
    }
}
