package io.distlock.zookeeper;

import io.distlock.LockOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of a {@link ZooKeeperLockProvider}: where the ensemble is, under which path locks live,
 * the ZooKeeper session's timeouts, the lease settings shared by all backends, and optional digest
 * credentials. Immutable; build with {@link #builder()}, derive with {@link #mutate()}.
 *
 * <p>The session timeout is what makes a lock expire when its holder dies: the server deletes the
 * holder's node when it has not heard from the client for the negotiated session timeout. Unless
 * set explicitly it equals {@link LockOptions#leaseTime()}, so the common {@code leaseTime} setting
 * means the same thing on every backend. The server clamps it to {@code [2, 20] * tickTime} by
 * default; the negotiated value is the one the client uses to stop trusting a suspended session.
 *
 * <p>With {@linkplain Builder#digestCredentials(String, String) digest credentials} every node the
 * provider creates (the root, each lock's parent and the queue nodes) gets an ACL that gives all
 * permissions to that identity and only READ to everyone else, so clients without the credentials
 * can neither create queue nodes (take the lock) nor delete them (break it). Nodes that existed
 * before keep their ACL.
 */
public final class ZooKeeperLockOptions {
    /** Where locks live unless {@link Builder#rootPath(String)} says otherwise. */
    public static final String DEFAULT_ROOT_PATH = "/distlock";
    /**
     * How long to wait for a connection before an operation fails, unless the session timeout is
     * shorter (then the session timeout).
     */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(15);

    private static final Duration MAX_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

    private final String connectString;
    private final String rootPath;
    private final Duration sessionTimeout;
    private final Duration connectionTimeout;
    private final LockOptions lockOptions;
    private final String digestUser;
    private final String digestPassword;
    private final boolean tls;
    private final Path tlsTrustStore;
    private final String tlsTrustStorePassword;

    private ZooKeeperLockOptions(Builder b) {
        this.connectString = b.connectString;
        this.rootPath = b.rootPath;
        this.sessionTimeout = b.sessionTimeout;
        this.connectionTimeout = b.connectionTimeout;
        this.lockOptions = b.lockOptions;
        this.digestUser = b.digestUser;
        this.digestPassword = b.digestPassword;
        this.tls = b.tls;
        this.tlsTrustStore = b.tlsTrustStore;
        this.tlsTrustStorePassword = b.tlsTrustStorePassword;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised with these options. */
    public Builder mutate() {
        Builder b = new Builder();
        b.connectString = connectString;
        b.rootPath = rootPath;
        b.sessionTimeout = sessionTimeout;
        b.connectionTimeout = connectionTimeout;
        b.lockOptions = lockOptions;
        b.digestUser = digestUser;
        b.digestPassword = digestPassword;
        b.tls = tls;
        b.tlsTrustStore = tlsTrustStore;
        b.tlsTrustStorePassword = tlsTrustStorePassword;
        return b;
    }

    /** {@code host:port[,host:port...][/chroot]}, or empty when the provider is given a client. */
    public Optional<String> connectString() {
        return Optional.ofNullable(connectString);
    }

    /** Absolute path under which each lock gets its parent node. */
    public String rootPath() {
        return rootPath;
    }

    /** The session timeout to request: the explicit value or, if none, the lease time. */
    public Duration sessionTimeout() {
        return sessionTimeout != null ? sessionTimeout : lockOptions.leaseTime();
    }

    /** The explicit connection timeout or, if none, {@code min(15 s, sessionTimeout())}. */
    public Duration connectionTimeout() {
        if (connectionTimeout != null) {
            return connectionTimeout;
        }
        Duration session = sessionTimeout();
        return session.compareTo(DEFAULT_CONNECTION_TIMEOUT) < 0 ? session : DEFAULT_CONNECTION_TIMEOUT;
    }

    public LockOptions lockOptions() {
        return lockOptions;
    }

    /** The digest user name, if credentials are set. */
    public Optional<String> digestUser() {
        return Optional.ofNullable(digestUser);
    }

    /** {@code user:password} for the digest scheme; not part of {@link #toString()}. */
    Optional<String> digestCredentials() {
        return digestUser == null ? Optional.empty() : Optional.of(digestUser + ':' + digestPassword);
    }

    /**
     * Whether the client connects over TLS (ZooKeeper's Netty client, {@code zookeeper.client.secure};
     * the servers must serve a {@code secureClientPort}, and the connect string must name it). The
     * servers' certificates must chain to a CA in {@link #tlsTrustStore()} (or the JVM's default
     * trust store) and name the host connected to (ZooKeeper's host-name verification is on).
     * Settings are passed per client through a {@code ZKClientConfig}, never as system properties.
     */
    public boolean tls() {
        return tls;
    }

    /**
     * Trust store with the CA certificates to trust (PKCS#12, JKS, or PEM — ZooKeeper picks the type
     * from the file name: {@code .p12}/{@code .pfx}, {@code .jks}, {@code .pem}), if set.
     */
    public Optional<Path> tlsTrustStore() {
        return Optional.ofNullable(tlsTrustStore);
    }

    /** Password of the trust store; not part of {@link #toString()}. */
    Optional<String> tlsTrustStorePassword() {
        return Optional.ofNullable(tlsTrustStorePassword);
    }

    @Override
    public String toString() {
        return "ZooKeeperLockOptions{connectString=" + connectString + ", rootPath=" + rootPath + ", sessionTimeout="
                + sessionTimeout() + ", connectionTimeout=" + connectionTimeout() + ", digestUser=" + digestUser
                + (digestPassword == null ? "" : ", digestPassword=****") + ", tls=" + tls
                + (tlsTrustStore == null ? "" : ", tlsTrustStore=" + tlsTrustStore)
                + (tlsTrustStorePassword == null ? "" : ", tlsTrustStorePassword=****") + ", lockOptions="
                + lockOptions + '}';
    }

    /** Builder for {@link ZooKeeperLockOptions}; each setter checks its argument at once. */
    public static final class Builder {
        private String connectString;
        private String rootPath = DEFAULT_ROOT_PATH;
        private Duration sessionTimeout;
        private Duration connectionTimeout;
        private LockOptions lockOptions = LockOptions.defaults();
        private String digestUser;
        private String digestPassword;
        private boolean tls;
        private Path tlsTrustStore;
        private String tlsTrustStorePassword;

        private Builder() {}

        /** Connect over TLS; see {@link ZooKeeperLockOptions#tls()}. */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /**
         * The trust store holding the CA certificates to trust, and its password ({@code null} for
         * none, e.g. PEM). Requires {@link #tls(boolean) tls}.
         *
         * @throws IllegalArgumentException if the file is not readable or the password is empty
         */
        public Builder tlsTrustStore(Path trustStore, String password) {
            Objects.requireNonNull(trustStore, "tlsTrustStore must not be null");
            if (!Files.isReadable(trustStore)) {
                throw new IllegalArgumentException("tlsTrustStore must be a readable file (was '" + trustStore + "')");
            }
            if (password != null && password.isEmpty()) {
                throw new IllegalArgumentException("tlsTrustStorePassword must not be empty (use null for none)");
            }
            this.tlsTrustStore = trustStore;
            this.tlsTrustStorePassword = password;
            return this;
        }

        /** {@code host:port[,host:port...][/chroot]}; hosts must be non-empty and ports numeric. */
        public Builder connectString(String connectString) {
            Objects.requireNonNull(connectString, "connectString must not be null");
            String servers = connectString;
            int slash = connectString.indexOf('/');
            if (slash >= 0) {
                servers = connectString.substring(0, slash);
                String chroot = connectString.substring(slash);
                if (!chroot.equals("/")) {
                    checkPath("connectString chroot", chroot);
                }
            }
            if (servers.isBlank()) {
                throw new IllegalArgumentException(
                        "connectString must name at least one host:port (was '" + connectString + "')");
            }
            for (String hp : servers.split(",", -1)) {
                int colon = hp.lastIndexOf(':');
                String host = colon < 0 ? hp : hp.substring(0, colon);
                if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
                    throw new IllegalArgumentException(
                            "connectString must be host:port[,host:port...] with non-empty hosts (was '" + connectString
                                    + "')");
                }
                if (colon >= 0) {
                    String port = hp.substring(colon + 1);
                    int p;
                    try {
                        p = Integer.parseInt(port);
                    } catch (NumberFormatException e) {
                        p = -1;
                    }
                    if (p < 1 || p > 65535) {
                        throw new IllegalArgumentException(
                                "connectString port must be a number in 1..65535 (was '" + port + "')");
                    }
                }
            }
            this.connectString = connectString;
            return this;
        }

        /**
         * Absolute ZooKeeper path under which lock parents are created: starts with {@code /}, no
         * trailing {@code /}, no empty, {@code .} or {@code ..} segment, no control characters.
         */
        public Builder rootPath(String rootPath) {
            Objects.requireNonNull(rootPath, "rootPath must not be null");
            checkPath("rootPath", rootPath);
            this.rootPath = rootPath;
            return this;
        }

        /** The session timeout to request (positive, at most {@code Integer.MAX_VALUE} ms). */
        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = checkTimeout("sessionTimeout", sessionTimeout);
            return this;
        }

        /** How long an operation waits for a connection (positive, at most {@code Integer.MAX_VALUE} ms). */
        public Builder connectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = checkTimeout("connectionTimeout", connectionTimeout);
            return this;
        }

        public Builder lockOptions(LockOptions lockOptions) {
            this.lockOptions = Objects.requireNonNull(lockOptions, "lockOptions must not be null");
            return this;
        }

        /**
         * Digest credentials: the provider authenticates with them and protects the nodes it creates
         * with an ACL for this identity only (others may read).
         */
        public Builder digestCredentials(String user, String password) {
            Objects.requireNonNull(user, "digest user must not be null");
            Objects.requireNonNull(password, "digest password must not be null");
            if (user.isEmpty() || user.indexOf(':') >= 0) {
                throw new IllegalArgumentException("digest user must be non-empty and contain no ':'");
            }
            if (password.isEmpty()) {
                throw new IllegalArgumentException("digest password must not be empty");
            }
            this.digestUser = user;
            this.digestPassword = password;
            return this;
        }

        /** @throws IllegalArgumentException if a trust store is set without {@code tls} */
        public ZooKeeperLockOptions build() {
            if (!tls && tlsTrustStore != null) {
                throw new IllegalArgumentException("tlsTrustStore requires tls=true");
            }
            return new ZooKeeperLockOptions(this);
        }

        private static Duration checkTimeout(String name, Duration d) {
            Objects.requireNonNull(d, name + " must not be null");
            if (d.isNegative() || d.isZero() || d.toMillis() < 1) {
                throw new IllegalArgumentException(name + " must be at least 1ms (was " + d + ")");
            }
            if (d.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(name + " must be at most " + MAX_TIMEOUT + " (was " + d + ")");
            }
            return d;
        }

        static void checkPath(String name, String path) {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException(name + " must start with '/' (was '" + path + "')");
            }
            if (path.length() > 1 && path.endsWith("/")) {
                throw new IllegalArgumentException(name + " must not end with '/' (was '" + path + "')");
            }
            if (path.equals("/")) {
                return;
            }
            for (String segment : path.substring(1).split("/", -1)) {
                if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                    throw new IllegalArgumentException(
                            name + " must not contain empty, '.' or '..' segments (was '" + path + "')");
                }
                for (int i = 0; i < segment.length(); i++) {
                    char c = segment.charAt(i);
                    if (Character.isISOControl(c)
                            || (c >= '\ud800' && c <= '\uf8ff')
                            || c == '\ufff0'
                            || c == '\uffff') {
                        throw new IllegalArgumentException(String.format(
                                "%s must not contain control or reserved characters (U+%04X in '%s')",
                                name, (int) c, path));
                    }
                }
            }
        }
    }
}
