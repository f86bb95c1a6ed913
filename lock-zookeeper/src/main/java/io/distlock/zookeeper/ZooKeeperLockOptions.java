package io.distlock.zookeeper;

import io.distlock.Credentials;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.zookeeper.internal.ZkPathRules;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * ZooKeeper settings of a {@link ZooKeeperLockProvider}: under which path locks live, the
 * ZooKeeper session's timeout, the connect timeout, and optional digest credentials and TLS. Where
 * the ensemble is goes to the provider's builder ({@code connectString(..)} or {@code curator(..)}),
 * the lease settings shared by all backends to its {@code lockOptions(..)}. Immutable; build with
 * {@link #builder()}, derive with {@link #mutate()}.
 *
 * <p><b>Session timeout.</b> It is what makes a lock expire when its holder dies: the server
 * deletes the holder's node when it has not heard from the client for the negotiated session
 * timeout. Unless set it equals the provider's {@link LockOptions#leaseTime()}, so the common
 * {@code leaseTime} setting means the same thing on every backend. The server clamps it to {@code
 * [2, 20] * tickTime} by default; the negotiated value is the one the client uses to stop trusting
 * a suspended session.
 *
 * <p><b>Credentials.</b> ZooKeeper's digest scheme has no login that can fail: a client adds
 * {@code user:password} to its session and that pair <em>is</em> its identity. With {@linkplain
 * Builder#credentials(Credentials) credentials} every node the provider creates (the root, each
 * lock's parent and the queue nodes) gets an ACL that gives all permissions to that identity and
 * only READ to everyone else, so clients without the credentials can neither create queue nodes
 * (take the lock) nor delete them (break it). A wrong password is therefore another identity, which
 * the ACL of an existing root refuses: the first create under it fails with {@code NoAuth}, and the
 * provider throws {@link io.distlock.LockConfigurationException} at once (never retried as an
 * outage). Nodes that existed before keep their ACL.
 *
 * <p><b>Timeouts.</b> {@link TimeoutOptions#connectTimeout()} is Curator's connection timeout: how
 * long opening the provider waits for a session, and how long an operation waits for a lost
 * connection to come back before it fails with {@link io.distlock.BackendUnavailableException}. It
 * defaults to {@link #DEFAULT_CONNECT_TIMEOUT}, capped at the session timeout, rather than the
 * shared 2 seconds: a ZooKeeper client tries the servers of the connect string one after another,
 * and a leader election takes seconds, both of which a session rides out. ZooKeeper has no
 * per-request timeout that leaves the connection alone (its {@code zookeeper.request.timeout}
 * drops the connection, which would suspend every lease): a request without a reply fails when the
 * client declares the connection lost, after two thirds of the session timeout without a word from
 * the server. So {@link TimeoutOptions#requestTimeout()} must keep its default; tune {@link
 * Builder#sessionTimeout(Duration)} instead.
 *
 * <pre>{@code
 * ZooKeeperLockOptions options = ZooKeeperLockOptions.builder()
 *         .rootPath("/myapp/locks")
 *         .credentials(Credentials.of("locks", secret))
 *         .tls(TlsOptions.builder().trustCertificates(Path.of("/etc/zk/ca.pem")).build())
 *         .build();
 * }</pre>
 */
public final class ZooKeeperLockOptions {
    /** Where locks live unless {@link Builder#rootPath(String)} says otherwise. */
    public static final String DEFAULT_ROOT_PATH = "/distlock";
    /**
     * How long to wait for a connection unless {@link Builder#timeouts(TimeoutOptions)} says
     * otherwise: 15 seconds, or the session timeout if that is shorter.
     */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(15);
    /** The timeouts unless set: {@link #DEFAULT_CONNECT_TIMEOUT} and the shared request timeout. */
    public static final TimeoutOptions DEFAULT_TIMEOUTS =
            new TimeoutOptions(DEFAULT_CONNECT_TIMEOUT, TimeoutOptions.DEFAULT_REQUEST_TIMEOUT);

    private static final Duration MAX_SESSION_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);
    private static final ZooKeeperLockOptions DEFAULTS = new Builder().build();

    private final String rootPath;
    private final Duration sessionTimeout;
    private final TimeoutOptions timeouts;
    private final Credentials credentials;
    private final TlsOptions tls;

    private ZooKeeperLockOptions(Builder b) {
        this.rootPath = b.rootPath;
        this.sessionTimeout = b.sessionTimeout;
        this.timeouts = b.timeouts;
        this.credentials = b.credentials;
        this.tls = b.tls;
    }

    /** The defaults: root {@link #DEFAULT_ROOT_PATH}, no credentials, no TLS. */
    public static ZooKeeperLockOptions defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised with these options. */
    public Builder mutate() {
        Builder b = new Builder();
        b.rootPath = rootPath;
        b.sessionTimeout = sessionTimeout;
        b.timeouts = timeouts;
        b.credentials = credentials;
        b.tls = tls;
        return b;
    }

    /** Absolute path under which each lock gets its parent node. */
    public String rootPath() {
        return rootPath;
    }

    /** The session timeout to request, if set; empty means the provider's lease time. */
    public Optional<Duration> sessionTimeout() {
        return Optional.ofNullable(sessionTimeout);
    }

    /** The timeouts as set, or {@link #DEFAULT_TIMEOUTS} (whose connect timeout is capped at the session timeout). */
    public TimeoutOptions timeouts() {
        return timeouts != null ? timeouts : DEFAULT_TIMEOUTS;
    }

    /** The digest credentials, if set. */
    public Optional<Credentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** TLS on the client port; {@link TlsOptions#disabled()} unless set. */
    public TlsOptions tls() {
        return tls;
    }

    /** The connect timeout used with {@code sessionTimeout}: as set, else the default capped at the session timeout. */
    Duration connectTimeout(Duration sessionTimeout) {
        if (timeouts != null) {
            return timeouts.connectTimeout();
        }
        return sessionTimeout.compareTo(DEFAULT_CONNECT_TIMEOUT) < 0 ? sessionTimeout : DEFAULT_CONNECT_TIMEOUT;
    }

    /** Never shows a password. */
    @Override
    public String toString() {
        return "ZooKeeperLockOptions{rootPath=" + rootPath + ", sessionTimeout="
                + (sessionTimeout == null ? "leaseTime" : sessionTimeout) + ", timeouts=" + timeouts()
                + ", credentials=" + credentials + ", tls=" + tls + '}';
    }

    /** Builder for {@link ZooKeeperLockOptions}; each setter checks its argument at once. */
    public static final class Builder {
        private String rootPath = DEFAULT_ROOT_PATH;
        private Duration sessionTimeout;
        private TimeoutOptions timeouts;
        private Credentials credentials;
        private TlsOptions tls = TlsOptions.disabled();

        private Builder() {}

        /**
         * Absolute ZooKeeper path under which lock parents are created: starts with {@code /}, no
         * trailing {@code /}, no empty, {@code .} or {@code ..} segment, no control characters.
         */
        public Builder rootPath(String rootPath) {
            Objects.requireNonNull(rootPath, "rootPath must not be null");
            ZkPathRules.checkPath("rootPath", rootPath);
            this.rootPath = rootPath;
            return this;
        }

        /**
         * The session timeout to request (at least 1 ms, at most {@code Integer.MAX_VALUE} ms);
         * unless set, the provider's lease time.
         */
        public Builder sessionTimeout(Duration sessionTimeout) {
            Objects.requireNonNull(sessionTimeout, "sessionTimeout must not be null");
            if (sessionTimeout.isNegative() || sessionTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("sessionTimeout must be at least 1ms (was " + sessionTimeout + ")");
            }
            if (sessionTimeout.compareTo(MAX_SESSION_TIMEOUT) > 0) {
                throw new IllegalArgumentException(
                        "sessionTimeout must be at most " + MAX_SESSION_TIMEOUT + " (was " + sessionTimeout + ")");
            }
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        /**
         * The connect timeout (see the class description); the request timeout must be {@link
         * TimeoutOptions#DEFAULT_REQUEST_TIMEOUT}.
         *
         * @throws IllegalArgumentException if the request timeout is another value
         */
        public Builder timeouts(TimeoutOptions timeouts) {
            Objects.requireNonNull(timeouts, "timeouts must not be null");
            if (!timeouts.requestTimeout().equals(TimeoutOptions.DEFAULT_REQUEST_TIMEOUT)) {
                throw new IllegalArgumentException("timeouts.requestTimeout is not supported by the ZooKeeper backend"
                        + " (was " + timeouts.requestTimeout() + "): a request without a reply fails when the client"
                        + " declares its connection lost, after two thirds of the session timeout without a word"
                        + " from the server; set sessionTimeout instead and leave requestTimeout at its default "
                        + TimeoutOptions.DEFAULT_REQUEST_TIMEOUT);
            }
            this.timeouts = timeouts;
            return this;
        }

        /**
         * Digest credentials: the provider adds them to its session and protects the nodes it
         * creates with an ACL for this identity only (others may read). See the class description
         * for what a wrong password does.
         *
         * @throws IllegalArgumentException without a user name, with a ':' in it, or with an empty
         *     password
         */
        public Builder credentials(Credentials credentials) {
            Objects.requireNonNull(credentials, "credentials must not be null");
            String user = credentials
                    .user()
                    .orElseThrow(
                            () -> new IllegalArgumentException(
                                    "credentials must name a user for ZooKeeper's digest scheme (Credentials.of(user, password))"));
            if (user.indexOf(':') >= 0) {
                throw new IllegalArgumentException("credentials user must not contain ':' (digest scheme)");
            }
            if (credentials.password().isEmpty()) {
                throw new IllegalArgumentException("credentials password must not be empty");
            }
            this.credentials = credentials;
            return this;
        }

        /**
         * TLS on the client port: the servers must serve a {@code secureClientPort} and the connect
         * string must name it. The trust comes from a PEM file of CA certificates ({@link
         * TlsOptions.Builder#trustCertificates}) or a PKCS#12 / JKS key store ({@link
         * TlsOptions.Builder#trustStore}, JKS when the file name ends with {@code .jks}); the
         * servers' certificates must chain to it and name the host connected to (host-name
         * verification is on). Settings are passed to ZooKeeper's Netty client per client, never as
         * system properties.
         *
         * @throws IllegalArgumentException for what ZooKeeper's client cannot use: the JVM's default
         *     trust (its client then verifies no host name), a ready {@code SSLContext} (it builds
         *     its own from files), or a client certificate
         */
        public Builder tls(TlsOptions tls) {
            Objects.requireNonNull(tls, "tls must not be null");
            if (tls.isEnabled()) {
                if (tls.sslContext().isPresent()) {
                    throw new IllegalArgumentException("tls sslContext is not supported by the ZooKeeper backend:"
                            + " its client builds its own TLS context; use trustCertificates or trustStore");
                }
                if (tls.clientCertificate().isPresent()) {
                    throw new IllegalArgumentException("tls clientCertificate is not supported by the ZooKeeper"
                            + " backend: its client reads a client certificate only from a key store file");
                }
                if (tls.usesDefaultTrust()) {
                    throw new IllegalArgumentException(
                            "tls needs trustCertificates or trustStore on the ZooKeeper"
                                    + " backend: with the JVM's default trust its client does not verify the server's host name");
                }
            }
            this.tls = tls;
            return this;
        }

        /** The options; every setting was checked when it was set. */
        public ZooKeeperLockOptions build() {
            return new ZooKeeperLockOptions(this);
        }
    }
}
