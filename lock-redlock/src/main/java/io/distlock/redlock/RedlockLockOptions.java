package io.distlock.redlock;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.redis.core.RedisConnectionOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable settings of a {@link RedlockLockProvider}: what is specific to Redlock (the per-node
 * timeout of a round, fencing on or off, what the nodes persist, the retry delay of a waiter that
 * cannot wait for a release message), and how every node is connected to (credentials, TLS,
 * timeouts, pool size, database, key prefix: the {@link RedisConnectionOptions} block lock-redis
 * shares). The lease settings (lease time, renewal, clock drift factor and minimum safety margin)
 * are the provider builder's {@code lockOptions(LockOptions)}.
 *
 * <p>The validity of an acquired lock is {@code leaseTime - elapsed - drift}, with {@code drift =
 * leaseTime * clockDriftFactor + minimumSafetyMargin} taken from {@link io.distlock.LockOptions}
 * (1% + 2 ms by default, as in the Redlock specification).
 *
 * <pre>{@code
 * RedlockLockOptions options = RedlockLockOptions.builder()
 *         .nodeTimeout(Duration.ofMillis(50))
 *         .credentials(Credentials.of("locks", System.getenv("REDIS_PASSWORD")))
 *         .build();
 * }</pre>
 */
public final class RedlockLockOptions {
    /** Default per-node timeout of one round: {@value #DEFAULT_NODE_TIMEOUT_MILLIS} ms. */
    public static final long DEFAULT_NODE_TIMEOUT_MILLIS = 50;
    /** Default per-node timeout of one round. */
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(DEFAULT_NODE_TIMEOUT_MILLIS);
    /** Default key prefix; distinct from lock-redis's so the two never share keys by accident. */
    public static final String DEFAULT_KEY_PREFIX = "distlock-redlock";
    /** Default number of connections (and I/O threads) per node: 8. */
    public static final int DEFAULT_POOL_SIZE = RedisConnectionOptions.DEFAULT_POOL_SIZE;
    /**
     * Largest pool size accepted: 256 per node (each node runs up to twice as many I/O threads, for
     * rounds and for releases).
     */
    public static final int MAX_POOL_SIZE = 256;
    /**
     * Default timeouts per node: 1 s to connect, 1 s per request. Shorter than the other backends'
     * {@link TimeoutOptions#defaults()}: a round waits for a node at most {@link #nodeTimeout()}, so a
     * later reply is of no use, and the connect timeout bounds the first round on cold connections.
     */
    public static final TimeoutOptions DEFAULT_TIMEOUTS = TimeoutOptions.of(Duration.ofSeconds(1));
    /**
     * Default upper bound of the random delay between two tries of a waiting acquirer when it
     * cannot wait for a release message.
     */
    public static final Duration DEFAULT_MAX_RETRY_DELAY = Duration.ofMillis(50);

    private static final RedlockLockOptions DEFAULTS = builder().build();

    private final RedisConnectionOptions connection;
    private final Duration nodeTimeout;
    private final boolean fencing;
    private final boolean assumePersistence;
    private final boolean allowEvenNodeCount;
    private final Duration maxRetryDelay;

    private RedlockLockOptions(Builder b, RedisConnectionOptions connection) {
        this.connection = connection;
        this.nodeTimeout = b.nodeTimeout;
        this.fencing = b.fencing;
        this.assumePersistence = b.assumePersistence;
        this.allowEvenNodeCount = b.allowEvenNodeCount;
        this.maxRetryDelay = b.maxRetryDelay;
    }

    /** All defaults. */
    public static RedlockLockOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these values, to derive a variant. */
    public Builder mutate() {
        Builder b = new Builder();
        b.connection = connection.mutate();
        b.nodeTimeout = nodeTimeout;
        b.fencing = fencing;
        b.assumePersistence = assumePersistence;
        b.allowEvenNodeCount = allowEvenNodeCount;
        b.maxRetryDelay = maxRetryDelay;
        return b;
    }

    /**
     * How every node is connected to: credentials, TLS, timeouts, pool size, database and key prefix
     * (the block the accessors below read from).
     */
    public RedisConnectionOptions connection() {
        return connection;
    }

    /**
     * The credentials of every node ({@code AUTH}), if they require them; a node added with {@code
     * node(host, port, Credentials)} uses its own instead.
     */
    public Optional<Credentials> credentials() {
        return connection.credentials();
    }

    /**
     * TLS settings for every node ({@link TlsOptions#disabled()} by default; {@code redlocks://}
     * turns it on). Each node's certificate must chain to the trusted CAs and name the host or IP
     * address the node is given by (verified as HTTPS does).
     */
    public TlsOptions tls() {
        return connection.tls();
    }

    /**
     * Connect timeout (Jedis's connection timeout; until a majority of nodes has answered once, a
     * round may also take this long) and request timeout (Jedis's socket timeout; it also caps how
     * long a release waits for its round), per node; {@link #DEFAULT_TIMEOUTS} by default.
     */
    public TimeoutOptions timeouts() {
        return connection.timeouts();
    }

    /** Connections and I/O threads per node. */
    public int poolSize() {
        return connection.poolSize();
    }

    /** Database number on every node. */
    public int database() {
        return connection.database();
    }

    /**
     * Prefix of every key and channel, on every node: lock {@code n} lives at {@code
     * <prefix>:{<enc>}:lock}, its fencing counter at {@code <prefix>:{<enc>}:token}, its wake-up
     * queue at {@code <prefix>:{<enc>}:queue} and {@code <prefix>:{<enc>}:waiters}; a provider's
     * waiters are woken on {@code <prefix>:{<enc>}:released:<provider id>}, and a release with nobody
     * queued publishes on {@code <prefix>:{<enc>}:released}; {@code <enc> = LockNames.encode(n)}.
     */
    public String keyPrefix() {
        return connection.keyPrefix();
    }

    /**
     * How long a round waits for each node (all nodes are asked at the same time, so this also
     * bounds a round). A node that has not answered by then counts as failed for that round. Until
     * a majority of nodes has answered once since the provider opened, rounds may also take up to
     * the connect timeout (cold connections); a round still ends as soon as its outcome is decided.
     * Must be below half the lease time (checked when the provider is built).
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

    /** Upper bound of the random delay a waiting acquirer sleeps between tries. */
    public Duration maxRetryDelay() {
        return maxRetryDelay;
    }

    /** Names every setting; the password as {@code ****}. */
    @Override
    public String toString() {
        return "RedlockLockOptions{nodeTimeout=" + nodeTimeout + ", fencing=" + fencing + ", assumePersistence="
                + assumePersistence + ", allowEvenNodeCount=" + allowEvenNodeCount + ", maxRetryDelay="
                + maxRetryDelay + ", " + connection + '}';
    }

    /** Builder for {@link RedlockLockOptions}; every setter rejects bad values at once. */
    public static final class Builder {
        private RedisConnectionOptions.Builder connection = RedisConnectionOptions.builder()
                .keyPrefix(DEFAULT_KEY_PREFIX)
                .poolSize(DEFAULT_POOL_SIZE)
                .timeouts(DEFAULT_TIMEOUTS);
        private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
        private boolean fencing = true;
        private boolean assumePersistence;
        private boolean allowEvenNodeCount;
        private Duration maxRetryDelay = DEFAULT_MAX_RETRY_DELAY;

        private Builder() {}

        /**
         * Replaces every connection setting (credentials, TLS, timeouts, pool size, database, key
         * prefix) with {@code connection}'s; start from {@code defaults().connection().mutate()} to
         * keep Redlock's defaults.
         *
         * @throws IllegalArgumentException if its pool size is above {@link #MAX_POOL_SIZE}
         */
        public Builder connection(RedisConnectionOptions connection) {
            Objects.requireNonNull(connection, "connection must not be null");
            checkPoolSize(connection.poolSize());
            this.connection = connection.mutate();
            return this;
        }

        /**
         * Authenticates with these credentials on every node (a node added with its own credentials
         * uses those): an ACL user and its password, or {@link Credentials#password(String)} for the
         * {@code default} user. Never printed.
         *
         * @throws IllegalArgumentException if the user name contains whitespace or the password is
         *     empty
         */
        public Builder credentials(Credentials credentials) {
            connection.credentials(credentials);
            return this;
        }

        /**
         * TLS settings for every node; see {@link RedlockLockOptions#tls()}.
         *
         * @throws IllegalArgumentException if they name a client certificate file (present one
         *     through {@code TlsOptions.Builder.sslContext} instead)
         */
        public Builder tls(TlsOptions tls) {
            connection.tls(tls);
            return this;
        }

        /** Connect and request timeouts per node; see {@link RedlockLockOptions#timeouts()}. */
        public Builder timeouts(TimeoutOptions timeouts) {
            connection.timeouts(timeouts);
            return this;
        }

        /** @throws IllegalArgumentException unless between 1 and {@value #MAX_POOL_SIZE} */
        public Builder poolSize(int poolSize) {
            checkPoolSize(poolSize);
            connection.poolSize(poolSize);
            return this;
        }

        /** @throws IllegalArgumentException if negative */
        public Builder database(int database) {
            connection.database(database);
            return this;
        }

        /**
         * @throws IllegalArgumentException unless 1 to 64 characters from {@code [A-Za-z0-9_.:-]},
         *     neither starting nor ending with {@code :}
         */
        public Builder keyPrefix(String keyPrefix) {
            connection.keyPrefix(keyPrefix);
            return this;
        }

        /** @throws IllegalArgumentException unless positive and at most 1 hour */
        public Builder nodeTimeout(Duration nodeTimeout) {
            this.nodeTimeout = positive(nodeTimeout, "nodeTimeout");
            return this;
        }

        /** Whether leases carry fencing tokens (default true); see {@link RedlockLockOptions#fencing()}. */
        public Builder fencing(boolean fencing) {
            this.fencing = fencing;
            return this;
        }

        /** Declares that every node persists each write; see {@link RedlockLockOptions#assumePersistence()}. */
        public Builder assumePersistence(boolean assumePersistence) {
            this.assumePersistence = assumePersistence;
            return this;
        }

        /** Accepts an even number of nodes (default false). */
        public Builder allowEvenNodeCount(boolean allow) {
            this.allowEvenNodeCount = allow;
            return this;
        }

        /** @throws IllegalArgumentException unless positive and at most 1 hour */
        public Builder maxRetryDelay(Duration maxRetryDelay) {
            this.maxRetryDelay = positive(maxRetryDelay, "maxRetryDelay");
            return this;
        }

        public RedlockLockOptions build() {
            return new RedlockLockOptions(this, connection.build());
        }

        private static void checkPoolSize(int poolSize) {
            if (poolSize < 1 || poolSize > MAX_POOL_SIZE) {
                throw new IllegalArgumentException(
                        "poolSize must be between 1 and " + MAX_POOL_SIZE + " (was " + poolSize + ")");
            }
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
