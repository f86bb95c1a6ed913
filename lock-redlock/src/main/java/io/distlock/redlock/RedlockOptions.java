package io.distlock.redlock;

import io.distlock.LockOptions;
import io.distlock.redis.internal.ConnectionChecks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLSocketFactory;

/**
 * Immutable settings of a {@link RedlockLockProvider}: the lease settings shared by all backends
 * ({@link LockOptions}: lease time, renewal, clock drift factor and minimum safety margin, ticker),
 * plus what is specific to Redlock: the per-node timeout of a round, fencing on or off, what the
 * nodes persist, and connection settings applied to every node.
 *
 * <p>The validity of an acquired lock is {@code leaseTime - elapsed - drift}, with {@code drift =
 * leaseTime * clockDriftFactor + minimumSafetyMargin} taken from {@link LockOptions} (1% + 2 ms by
 * default, as in the Redlock specification).
 *
 * <pre>{@code
 * RedlockOptions options = RedlockOptions.builder()
 *         .leaseTime(Duration.ofSeconds(10))
 *         .nodeTimeout(Duration.ofMillis(50))
 *         .build();
 * }</pre>
 */
public final class RedlockOptions {
    /** Default per-node timeout of one round: {@value #DEFAULT_NODE_TIMEOUT_MILLIS} ms. */
    public static final long DEFAULT_NODE_TIMEOUT_MILLIS = 50;
    /** Default per-node timeout of one round. */
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(DEFAULT_NODE_TIMEOUT_MILLIS);
    /** Default key prefix; distinct from lock-redis's so the two never share keys by accident. */
    public static final String DEFAULT_KEY_PREFIX = "distlock-redlock";
    /** Longest accepted key prefix. */
    public static final int MAX_KEY_PREFIX_LENGTH = 64;
    /** Default number of connections (and I/O threads) per node. */
    public static final int DEFAULT_POOL_SIZE = 8;
    /** Default TCP connect timeout per node. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /** Default socket read timeout per node (a reply later than the node timeout is ignored anyway). */
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(1);
    /**
     * Default upper bound of the random delay between two tries of a waiting acquirer when it
     * cannot wait for a release message.
     */
    public static final Duration DEFAULT_MAX_RETRY_DELAY = Duration.ofMillis(50);

    private final LockOptions lockOptions;
    private final Duration nodeTimeout;
    private final boolean fencing;
    private final boolean assumePersistence;
    private final boolean allowEvenNodeCount;
    private final String keyPrefix;
    private final int poolSize;
    private final Duration connectTimeout;
    private final Duration socketTimeout;
    private final Duration maxRetryDelay;
    private final String username;
    private final String password;
    private final int database;
    private final boolean tls;
    private final Path tlsCaFile;
    private final SSLSocketFactory sslSocketFactory;

    private RedlockOptions(Builder b) {
        this.lockOptions = b.lockOptions;
        this.nodeTimeout = b.nodeTimeout;
        this.fencing = b.fencing;
        this.assumePersistence = b.assumePersistence;
        this.allowEvenNodeCount = b.allowEvenNodeCount;
        this.keyPrefix = b.keyPrefix;
        this.poolSize = b.poolSize;
        this.connectTimeout = b.connectTimeout;
        this.socketTimeout = b.socketTimeout;
        this.maxRetryDelay = b.maxRetryDelay;
        this.username = b.username;
        this.password = b.password;
        this.database = b.database;
        this.tls = b.tls;
        this.tlsCaFile = b.tlsCaFile;
        this.sslSocketFactory = b.sslSocketFactory;
    }

    /** All defaults. */
    public static RedlockOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these values, to derive a variant. */
    public Builder mutate() {
        Builder b = new Builder();
        b.lockOptions = lockOptions;
        b.nodeTimeout = nodeTimeout;
        b.fencing = fencing;
        b.assumePersistence = assumePersistence;
        b.allowEvenNodeCount = allowEvenNodeCount;
        b.keyPrefix = keyPrefix;
        b.poolSize = poolSize;
        b.connectTimeout = connectTimeout;
        b.socketTimeout = socketTimeout;
        b.maxRetryDelay = maxRetryDelay;
        b.username = username;
        b.password = password;
        b.database = database;
        b.tls = tls;
        b.tlsCaFile = tlsCaFile;
        b.sslSocketFactory = sslSocketFactory;
        return b;
    }

    /** Lease settings shared by all backends. */
    public LockOptions lockOptions() {
        return lockOptions;
    }

    /**
     * How long a round waits for each node (all nodes are asked at the same time, so this also
     * bounds a round). A node that has not answered by then counts as failed for that round. Until
     * a majority of nodes has answered once since the provider opened, rounds may also take up to
     * {@link #connectTimeout()} (cold connections); a round still ends as soon as its outcome is
     * decided.
     */
    public Duration nodeTimeout() {
        return nodeTimeout;
    }

    /**
     * Whether leases carry fencing tokens or not. Either way an acquisition takes one round while
     * the nodes' fencing counters are in step; with fencing, a second round puts them back in step
     * when they are not (a node that missed acquisitions or lost its data).
     */
    public boolean fencing() {
        return fencing;
    }

    /**
     * Whether every node persists each write before answering (AOF with {@code appendfsync
     * always}) and so keeps its counters and locks across a restart. Only then does the provider
     * declare {@code fencingSurvivesServerRestart}. It cannot check this; it believes you.
     */
    public boolean assumePersistence() {
        return assumePersistence;
    }

    /** Whether an even number of nodes is accepted (it tolerates no more failures than one less). */
    public boolean allowEvenNodeCount() {
        return allowEvenNodeCount;
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    /** Connections and I/O threads per node. */
    public int poolSize() {
        return poolSize;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration socketTimeout() {
        return socketTimeout;
    }

    /** Upper bound of the random delay a waiting acquirer sleeps between tries. */
    public Duration maxRetryDelay() {
        return maxRetryDelay;
    }

    public Optional<String> username() {
        return Optional.ofNullable(username);
    }

    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    public int database() {
        return database;
    }

    /**
     * Whether every node is reached over TLS. Each node's certificate must chain to a trusted CA
     * ({@link #tlsCaFile()}, {@link #sslSocketFactory()} or the JVM's default trust store) and name
     * the host or IP address the node is given by (verified as HTTPS does).
     */
    public boolean tls() {
        return tls;
    }

    /** PEM file of CA certificates to trust instead of the JVM's default trust store, if set. */
    public Optional<Path> tlsCaFile() {
        return Optional.ofNullable(tlsCaFile);
    }

    /** The socket factory for TLS connections, if set (host names are still verified). */
    public Optional<SSLSocketFactory> sslSocketFactory() {
        return Optional.ofNullable(sslSocketFactory);
    }

    @Override
    public String toString() {
        return "RedlockOptions{" + lockOptions + ", nodeTimeout=" + nodeTimeout + ", fencing=" + fencing
                + ", assumePersistence=" + assumePersistence + ", allowEvenNodeCount=" + allowEvenNodeCount
                + ", keyPrefix=" + keyPrefix + ", poolSize=" + poolSize + ", connectTimeout=" + connectTimeout
                + ", socketTimeout=" + socketTimeout + ", maxRetryDelay=" + maxRetryDelay + ", database="
                + database + ", username=" + (username == null ? "none" : username) + ", password="
                + (password == null ? "none" : "****") + ", tls=" + tls
                + (tlsCaFile == null ? "" : ", tlsCaFile=" + tlsCaFile)
                + (sslSocketFactory == null ? "" : ", sslSocketFactory=custom") + '}';
    }

    /** Builder for {@link RedlockOptions}; every setter rejects bad values at once. */
    public static final class Builder {
        private LockOptions lockOptions = LockOptions.defaults();
        private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
        private boolean fencing = true;
        private boolean assumePersistence;
        private boolean allowEvenNodeCount;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private int poolSize = DEFAULT_POOL_SIZE;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration socketTimeout = DEFAULT_SOCKET_TIMEOUT;
        private Duration maxRetryDelay = DEFAULT_MAX_RETRY_DELAY;
        private String username;
        private String password;
        private int database;
        private boolean tls;
        private Path tlsCaFile;
        private SSLSocketFactory sslSocketFactory;

        private Builder() {}

        /** Connect to every node over TLS; see {@link RedlockOptions#tls()}. */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /**
         * Trust the CA certificates in this PEM file; {@code null} to unset. Requires {@link
         * #tls(boolean) tls}.
         *
         * @throws IllegalArgumentException if the file is not readable
         */
        public Builder tlsCaFile(Path tlsCaFile) {
            this.tlsCaFile = ConnectionChecks.readableTlsCaFile(tlsCaFile);
            return this;
        }

        /**
         * The socket factory for TLS connections; {@code null} to unset. Requires {@link
         * #tls(boolean) tls}; excludes {@link #tlsCaFile(Path)}.
         */
        public Builder sslSocketFactory(SSLSocketFactory sslSocketFactory) {
            this.sslSocketFactory = sslSocketFactory;
            return this;
        }

        public Builder lockOptions(LockOptions lockOptions) {
            this.lockOptions = Objects.requireNonNull(lockOptions, "lockOptions must not be null");
            return this;
        }

        /** Shortcut for {@code lockOptions(lockOptions.mutate().leaseTime(leaseTime).build())}. */
        public Builder leaseTime(Duration leaseTime) {
            this.lockOptions = lockOptions.mutate().leaseTime(leaseTime).build();
            return this;
        }

        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = positive(nodeTimeout, "nodeTimeout");
            return this;
        }

        public Builder fencing(boolean fencing) {
            this.fencing = fencing;
            return this;
        }

        public Builder assumePersistence(boolean assumePersistence) {
            this.assumePersistence = assumePersistence;
            return this;
        }

        public Builder allowEvenNodeCount(boolean allow) {
            this.allowEvenNodeCount = allow;
            return this;
        }

        public Builder keyPrefix(String keyPrefix) {
            Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
            if (keyPrefix.isEmpty() || keyPrefix.length() > MAX_KEY_PREFIX_LENGTH) {
                throw new IllegalArgumentException("keyPrefix must have 1 to " + MAX_KEY_PREFIX_LENGTH
                        + " characters (was " + keyPrefix.length() + ")");
            }
            if (ConnectionChecks.invalidKeyPrefixCharAt(keyPrefix) >= 0) {
                throw new IllegalArgumentException(
                        "keyPrefix may contain only letters, digits and - _ . : (was '" + keyPrefix + "')");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        public Builder poolSize(int poolSize) {
            if (poolSize < 1 || poolSize > 256) {
                throw new IllegalArgumentException("poolSize must be between 1 and 256 (was " + poolSize + ")");
            }
            this.poolSize = poolSize;
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        public Builder socketTimeout(Duration socketTimeout) {
            this.socketTimeout = positive(socketTimeout, "socketTimeout");
            return this;
        }

        public Builder maxRetryDelay(Duration maxRetryDelay) {
            this.maxRetryDelay = positive(maxRetryDelay, "maxRetryDelay");
            return this;
        }

        public Builder username(String username) {
            this.username = Objects.requireNonNull(username, "username must not be null");
            return this;
        }

        public Builder password(String password) {
            this.password = Objects.requireNonNull(password, "password must not be null");
            return this;
        }

        public Builder database(int database) {
            this.database = ConnectionChecks.database(database);
            return this;
        }

        /**
         * @throws IllegalArgumentException if {@code nodeTimeout} is not below half the lease time
         *     (a round must leave most of the lease as validity)
         */
        public RedlockOptions build() {
            ConnectionChecks.checkTlsMaterial(tls, tlsCaFile, sslSocketFactory, "use redlocks:// or tls(true)");
            Duration lease = lockOptions.leaseTime();
            if (nodeTimeout.multipliedBy(2).compareTo(lease) >= 0) {
                throw new IllegalArgumentException("nodeTimeout must be below half the leaseTime (nodeTimeout "
                        + nodeTimeout + ", leaseTime " + lease + ")");
            }
            return new RedlockOptions(this);
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name + " must not be null");
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive (was " + d + ")");
            }
            if (d.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException(name + " must be at most 1 hour (was " + d + ")");
            }
            return d;
        }
    }
}
