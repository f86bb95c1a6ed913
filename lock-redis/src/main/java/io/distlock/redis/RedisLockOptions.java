package io.distlock.redis;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.redis.core.RedisConnectionOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of a {@link RedisLockProvider}: how it connects (credentials, TLS, timeouts, pool size,
 * database, key prefix: the {@link RedisConnectionOptions} block lock-redlock shares), and the
 * replication, hand-off and persistence settings that decide what the provider may promise. The
 * lease settings are the provider builder's {@code lockOptions(LockOptions)}.
 *
 * <pre>{@code
 * RedisLockOptions options = RedisLockOptions.builder()
 *         .credentials(Credentials.of("locks", System.getenv("REDIS_PASSWORD")))
 *         .tls(TlsOptions.builder().trustCertificates(Path.of("/etc/ssl/redis-ca.pem")).build())
 *         .timeouts(TimeoutOptions.of(Duration.ofMillis(500)))
 *         .build();
 * }</pre>
 *
 * <p>Immutable. Build with {@link #builder()}, start from {@link #defaults()}, derive with {@link
 * #mutate()}. Every setter checks its argument at once and names the rule it breaks.
 *
 * <h2>Replication ({@link #requiredReplicas()})</h2>
 *
 * With {@code requiredReplicas = n > 0} every acquisition and every renewal is followed, on the
 * same connection and in the same pipeline, by {@code WAIT n replicaAckTimeout}. If fewer than
 * {@code n} replicas acknowledge, an acquisition is undone (owner-only delete) and reported as a
 * {@link io.distlock.BackendUnavailableException}; a renewal does not extend the lease's validity
 * (the lease is reported lost when its validity runs out). {@code WAIT} is a second command: it is
 * pipelined, so it costs no extra client round trip, but the reply waits for the replicas'
 * acknowledgement (about one more round trip between master and replica). {@code WAIT} narrows,
 * but does not close, the failover window: Redis may still promote a replica that had not
 * acknowledged (see the module README).
 *
 * <h2>Hand-off ({@link #handOff()})</h2>
 *
 * On by default ({@code handOff(false)} or {@code ?handOff=false} switches it off). On: a thread
 * that waits for a lock joins the lock's FIFO queue on the server (in the
 * same script call as its failed try), and a release hands the lock directly to the first queued
 * waiter whose queue entry has not expired (it becomes the owner in the release script, with a new
 * fencing token) and tells it by a pub/sub message, so the waiter needs no request of its own. A
 * waiter that does not get the message (connection reset) finds the lock already its own on its
 * next try, at the latest when the previous holder's TTL would have run out. Waiters are served in
 * the order they joined; a newcomer does not overtake a live queued waiter. A granted waiter's
 * lease is counted from a lower bound of the grant's time derived from the server's {@code TIME}
 * (assumes the server's clock is not stepped while the waiter waits; slewing is allowed, 1 % drift
 * is allowed for). Off, or with {@code requiredReplicas > 0} (a hand-off is not followed by {@code
 * WAIT}), waiters are woken and acquire with their own request, in no particular order.
 *
 * <p>After a Sentinel failover the promoted replica may hold queue entries from before it (of
 * waiters served or gone on the old master while replication lagged). A provider that lost its
 * connection to the old master and then finds another master passes over such entries for a while
 * (those not refreshed since the connection was lost), and its waiters re-register at once, so they
 * acquire on the promoted replica as promptly as without the queue. What a failover does to mutual
 * exclusion is unchanged ({@code MAY_GRANT_TWICE}).
 *
 * <h2>Persistence ({@link #assumePersistence()})</h2>
 *
 * Tell the provider whether the server keeps its data across a restart (AOF with {@code appendfsync
 * always} or {@code everysec}). Only then does {@link io.distlock.Capabilities#fencingSurvivesServerRestart()}
 * report {@code true}. The provider cannot check this; it is your statement about the deployment.
 */
public final class RedisLockOptions {

    /** Default key prefix: {@code distlock}. */
    public static final String DEFAULT_KEY_PREFIX = RedisConnectionOptions.DEFAULT_KEY_PREFIX;
    /** Default number of pooled command connections: 8 (the subscriber connection comes on top). */
    public static final int DEFAULT_POOL_SIZE = RedisConnectionOptions.DEFAULT_POOL_SIZE;
    /** Default timeouts: {@link TimeoutOptions#defaults()} (2 s to connect, 2 s per request). */
    public static final TimeoutOptions DEFAULT_TIMEOUTS = TimeoutOptions.defaults();
    /** Default number of replicas that must acknowledge an acquisition: 0 (no {@code WAIT}). */
    public static final int DEFAULT_REQUIRED_REPLICAS = 0;
    /** Default time {@code WAIT} may take: 200 ms. */
    public static final Duration DEFAULT_REPLICA_ACK_TIMEOUT = Duration.ofMillis(200);
    /**
     * Default minimum time a lock's fencing counter key is kept after the lock's last acquisition:
     * 7 days (see {@link #counterRetention()}).
     */
    public static final Duration DEFAULT_COUNTER_RETENTION = Duration.ofDays(7);
    /** Smallest counter retention accepted: 1 minute. */
    public static final Duration MIN_COUNTER_RETENTION = Duration.ofMinutes(1);

    private static final RedisLockOptions DEFAULTS = builder().build();

    private final RedisConnectionOptions connection;
    private final int requiredReplicas;
    private final Duration replicaAckTimeout;
    private final boolean assumePersistence;
    private final boolean handOff;
    private final Duration counterRetention;

    private RedisLockOptions(Builder b, RedisConnectionOptions connection) {
        this.connection = connection;
        this.requiredReplicas = b.requiredReplicas;
        this.replicaAckTimeout = b.replicaAckTimeout;
        this.assumePersistence = b.assumePersistence;
        this.handOff = b.handOff;
        this.counterRetention = b.counterRetention;
    }

    /** The default options. */
    public static RedisLockOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised with these options. */
    public Builder mutate() {
        Builder b = new Builder();
        b.connection = connection.mutate();
        b.requiredReplicas = requiredReplicas;
        b.replicaAckTimeout = replicaAckTimeout;
        b.assumePersistence = assumePersistence;
        b.handOff = handOff;
        b.counterRetention = counterRetention;
        return b;
    }

    /**
     * How the provider connects: credentials, TLS, timeouts, pool size, database and key prefix (the
     * block the accessors below read from).
     */
    public RedisConnectionOptions connection() {
        return connection;
    }

    /** The credentials ({@code AUTH}), if the server requires them. */
    public Optional<Credentials> credentials() {
        return connection.credentials();
    }

    /**
     * TLS settings ({@link TlsOptions#disabled()} by default; {@code rediss://} turns it on). The
     * server's certificate must chain to the trusted CAs and name the host the client connects to
     * (host names and IP addresses are verified as HTTPS does).
     */
    public TlsOptions tls() {
        return connection.tls();
    }

    /**
     * Connect timeout (Jedis's connection timeout) and request timeout (its socket timeout: how long
     * a request may wait for its reply). Keep the request timeout well below the renewal interval
     * ({@code leaseTime * renewalFraction}): renewals of all leases of a provider run on one
     * watchdog thread, so a hung renewal delays the others by up to this much (their leases are
     * still reported lost on time, by the engine's separate timer). The provider logs a warning when
     * it is not.
     */
    public TimeoutOptions timeouts() {
        return connection.timeouts();
    }

    /** Number of pooled command connections (the one subscriber connection comes on top). */
    public int poolSize() {
        return connection.poolSize();
    }

    /** Database number (standalone and Sentinel only; Cluster has database 0 only). */
    public int database() {
        return connection.database();
    }

    /**
     * Prefix of every key and channel: lock {@code n} lives at {@code <prefix>:{<enc>}:lock}, its
     * fencing counter at {@code <prefix>:{<enc>}:token} and its wake-up channel is {@code
     * <prefix>:{<enc>}:released}, where {@code <enc> = LockNames.encode(n)}.
     */
    public String keyPrefix() {
        return connection.keyPrefix();
    }

    /** Replicas that must acknowledge each acquisition and renewal; 0 for no {@code WAIT}. */
    public int requiredReplicas() {
        return requiredReplicas;
    }

    /** How long {@code WAIT} may block. */
    public Duration replicaAckTimeout() {
        return replicaAckTimeout;
    }

    /** Whether the deployment keeps data across a server restart (AOF); see the class javadoc. */
    public boolean assumePersistence() {
        return assumePersistence;
    }

    /**
     * Whether waiters queue on the server and a release hands the lock to the first of them (default
     * {@code true}; ignored when {@code requiredReplicas > 0}). See the class javadoc.
     */
    public boolean handOff() {
        return handOff;
    }

    /**
     * How long a lock's fencing counter key survives after the lock's last acquisition: each
     * acquisition sets its TTL to {@code max(counterRetention, 10 * leaseTime)}. Counter keys of
     * locks that are no longer used therefore disappear; they never accumulate.
     *
     * <p>Tokens stay increasing even when a counter key has disappeared, because each token is
     * {@code max(previous + 1, server time in microseconds)}: a lock unused for longer than the
     * retention restarts from the server's clock, which is past every token it issued before — as
     * long as the server's wall clock has not been set back by more than the time that passed.
     */
    public Duration counterRetention() {
        return counterRetention;
    }

    /** Names every setting; the password as {@code ****}. */
    @Override
    public String toString() {
        return "RedisLockOptions{" + connection + ", requiredReplicas=" + requiredReplicas + ", replicaAckTimeout="
                + replicaAckTimeout + ", assumePersistence=" + assumePersistence + ", counterRetention="
                + counterRetention + ", handOff=" + handOff + '}';
    }

    /** Builder for {@link RedisLockOptions}; every setter checks its argument at once. */
    public static final class Builder {
        private RedisConnectionOptions.Builder connection = RedisConnectionOptions.builder();
        private int requiredReplicas = DEFAULT_REQUIRED_REPLICAS;
        private Duration replicaAckTimeout = DEFAULT_REPLICA_ACK_TIMEOUT;
        private boolean assumePersistence;
        private boolean handOff = true;
        private Duration counterRetention = DEFAULT_COUNTER_RETENTION;

        private Builder() {}

        /**
         * Replaces every connection setting (credentials, TLS, timeouts, pool size, database, key
         * prefix) with {@code connection}'s; start from {@code defaults().connection().mutate()}.
         */
        public Builder connection(RedisConnectionOptions connection) {
            this.connection = Objects.requireNonNull(connection, "connection must not be null")
                    .mutate();
            return this;
        }

        /**
         * Authenticates with these credentials: an ACL user and its password, or {@link
         * Credentials#password(String)} for the {@code default} user. Never printed.
         *
         * @throws IllegalArgumentException if the user name contains whitespace or the password is
         *     empty
         */
        public Builder credentials(Credentials credentials) {
            connection.credentials(credentials);
            return this;
        }

        /**
         * TLS settings; see {@link RedisLockOptions#tls()}.
         *
         * @throws IllegalArgumentException if they name a client certificate file (present one
         *     through {@code TlsOptions.Builder.sslContext} instead)
         */
        public Builder tls(TlsOptions tls) {
            connection.tls(tls);
            return this;
        }

        /** Connect and request timeouts; see {@link RedisLockOptions#timeouts()}. */
        public Builder timeouts(TimeoutOptions timeouts) {
            connection.timeouts(timeouts);
            return this;
        }

        /** @throws IllegalArgumentException unless between 1 and 1024 */
        public Builder poolSize(int poolSize) {
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
         *     neither starting nor ending with {@code :} (braces would change the hash slot, spaces
         *     and control characters break tooling)
         */
        public Builder keyPrefix(String keyPrefix) {
            connection.keyPrefix(keyPrefix);
            return this;
        }

        /** @throws IllegalArgumentException unless between 0 and 100 */
        public Builder requiredReplicas(int requiredReplicas) {
            if (requiredReplicas < 0 || requiredReplicas > 100) {
                throw new IllegalArgumentException(
                        "requiredReplicas must be between 0 and 100 (was " + requiredReplicas + ")");
            }
            this.requiredReplicas = requiredReplicas;
            return this;
        }

        /**
         * @throws IllegalArgumentException unless between 1 ms and 10 minutes; {@link #build()} also
         *     requires it to be shorter than the request timeout
         */
        public Builder replicaAckTimeout(Duration replicaAckTimeout) {
            Objects.requireNonNull(replicaAckTimeout, "replicaAckTimeout must not be null");
            if (replicaAckTimeout.compareTo(Duration.ofMillis(1)) < 0
                    || replicaAckTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException(
                        "replicaAckTimeout must be between 1ms and 10 minutes (was " + replicaAckTimeout + ")");
            }
            this.replicaAckTimeout = replicaAckTimeout;
            return this;
        }

        /** Declares that the server persists data across restarts (AOF); see the class javadoc. */
        public Builder assumePersistence(boolean assumePersistence) {
            this.assumePersistence = assumePersistence;
            return this;
        }

        /** Whether a release hands the lock to the first queued waiter (default true); see the class javadoc. */
        public Builder handOff(boolean handOff) {
            this.handOff = handOff;
            return this;
        }

        /** @throws IllegalArgumentException if shorter than {@link #MIN_COUNTER_RETENTION} */
        public Builder counterRetention(Duration counterRetention) {
            Objects.requireNonNull(counterRetention, "counterRetention must not be null");
            if (counterRetention.compareTo(MIN_COUNTER_RETENTION) < 0) {
                throw new IllegalArgumentException("counterRetention must be at least " + MIN_COUNTER_RETENTION
                        + " (was " + counterRetention + ")");
            }
            this.counterRetention = counterRetention;
            return this;
        }

        /**
         * @throws IllegalArgumentException if {@code requiredReplicas > 0} and {@code
         *     replicaAckTimeout} is not shorter than the request timeout (the reply to {@code WAIT}
         *     would time out the request first)
         */
        public RedisLockOptions build() {
            RedisConnectionOptions built = connection.build();
            Duration requestTimeout = built.timeouts().requestTimeout();
            if (requiredReplicas > 0 && replicaAckTimeout.compareTo(requestTimeout) >= 0) {
                throw new IllegalArgumentException("replicaAckTimeout " + replicaAckTimeout
                        + " must be shorter than the requestTimeout " + requestTimeout + " when requiredReplicas > 0");
            }
            return new RedisLockOptions(this, built);
        }
    }
}
