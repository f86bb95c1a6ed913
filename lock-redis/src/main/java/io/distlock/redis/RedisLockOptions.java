package io.distlock.redis;

import io.distlock.LockOptions;
import io.distlock.redis.internal.ConnectionChecks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLSocketFactory;

/**
 * Settings of a {@link RedisLockProvider}: the common {@link LockOptions} (lease time, renewal,
 * safety margin), the key layout, the connection pool, timeouts, credentials, TLS, and the
 * replication and persistence assumptions that decide what the provider may promise.
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
 * acquire on the promoted replica as promptly as without the queue (measured in the module README,
 * where the option was opt-in for a while because of this). What a failover does to mutual
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
    public static final String DEFAULT_KEY_PREFIX = "distlock";
    /** Longest key prefix accepted: 64 characters. */
    public static final int MAX_KEY_PREFIX_LENGTH = 64;
    /** Default number of pooled command connections: 8 (the subscriber connection comes on top). */
    public static final int DEFAULT_POOL_SIZE = 8;
    /** Default connect timeout: 2 seconds. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** Default socket (read) timeout: 2 seconds. */
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(2);
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

    private final LockOptions lockOptions;
    private final String keyPrefix;
    private final int poolSize;
    private final Duration connectTimeout;
    private final Duration socketTimeout;
    private final int requiredReplicas;
    private final Duration replicaAckTimeout;
    private final String username;
    private final String password;
    private final boolean tls;
    private final Path tlsCaFile;
    private final SSLSocketFactory sslSocketFactory;
    private final int database;
    private final boolean assumePersistence;
    private final boolean handOff;
    private final Duration counterRetention;

    private RedisLockOptions(Builder b) {
        this.lockOptions = b.lockOptions;
        this.keyPrefix = b.keyPrefix;
        this.poolSize = b.poolSize;
        this.connectTimeout = b.connectTimeout;
        this.socketTimeout = b.socketTimeout;
        this.requiredReplicas = b.requiredReplicas;
        this.replicaAckTimeout = b.replicaAckTimeout;
        this.username = b.username;
        this.password = b.password;
        this.tls = b.tls;
        this.tlsCaFile = b.tlsCaFile;
        this.sslSocketFactory = b.sslSocketFactory;
        this.database = b.database;
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
        b.lockOptions = lockOptions;
        b.keyPrefix = keyPrefix;
        b.poolSize = poolSize;
        b.connectTimeout = connectTimeout;
        b.socketTimeout = socketTimeout;
        b.requiredReplicas = requiredReplicas;
        b.replicaAckTimeout = replicaAckTimeout;
        b.username = username;
        b.password = password;
        b.tls = tls;
        b.tlsCaFile = tlsCaFile;
        b.sslSocketFactory = sslSocketFactory;
        b.database = database;
        b.assumePersistence = assumePersistence;
        b.handOff = handOff;
        b.counterRetention = counterRetention;
        return b;
    }

    /** Lease settings shared by every backend. */
    public LockOptions lockOptions() {
        return lockOptions;
    }

    /**
     * Prefix of every key and channel: lock {@code n} lives at {@code <prefix>:{<enc>}:lock}, its
     * fencing counter at {@code <prefix>:{<enc>}:token} and its wake-up channel is {@code
     * <prefix>:{<enc>}:released}, where {@code <enc> = LockNames.encode(n)}.
     */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** Number of pooled command connections (the one subscriber connection comes on top). */
    public int poolSize() {
        return poolSize;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * How long a request may wait for its reply. Keep it well below the renewal interval ({@code
     * leaseTime * renewalFraction}): renewals of all leases of a provider run on one watchdog
     * thread, so a hung renewal delays the others by up to this much (their leases are still
     * reported lost on time, by the engine's separate timer). The provider logs a warning when it
     * is not.
     */
    public Duration socketTimeout() {
        return socketTimeout;
    }

    /** Replicas that must acknowledge each acquisition and renewal; 0 for no {@code WAIT}. */
    public int requiredReplicas() {
        return requiredReplicas;
    }

    /** How long {@code WAIT} may block. */
    public Duration replicaAckTimeout() {
        return replicaAckTimeout;
    }

    /** ACL user name, if any. */
    public Optional<String> username() {
        return Optional.ofNullable(username);
    }

    /** The password, if any. Never printed by {@link #toString()}. */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /**
     * Whether connections use TLS. The server's certificate must chain to a trusted CA ({@link
     * #tlsCaFile()}, {@link #sslSocketFactory()}, or the JVM's default trust store) and name the host
     * the client connects to (host names and IP addresses are verified as HTTPS does).
     */
    public boolean tls() {
        return tls;
    }

    /**
     * A PEM file of CA certificates to trust for TLS instead of the JVM's default trust store (URI
     * parameter {@code tlsCaFile}), if set.
     */
    public Optional<Path> tlsCaFile() {
        return Optional.ofNullable(tlsCaFile);
    }

    /**
     * The socket factory for TLS connections (your own trust and key managers, e.g. for client
     * certificates), if set; host names are still verified.
     */
    public Optional<SSLSocketFactory> sslSocketFactory() {
        return Optional.ofNullable(sslSocketFactory);
    }

    /** Database number (standalone and Sentinel only; Cluster has database 0 only). */
    public int database() {
        return database;
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

    @Override
    public String toString() {
        return "RedisLockOptions{" + lockOptions + ", keyPrefix='" + keyPrefix + "', poolSize=" + poolSize
                + ", connectTimeout=" + connectTimeout + ", socketTimeout=" + socketTimeout + ", requiredReplicas="
                + requiredReplicas + ", replicaAckTimeout=" + replicaAckTimeout + ", username="
                + (username == null ? "none" : "'" + username + "'") + ", password="
                + (password == null ? "none" : "****") + ", tls=" + tls
                + (tlsCaFile == null ? "" : ", tlsCaFile=" + tlsCaFile)
                + (sslSocketFactory == null ? "" : ", sslSocketFactory=custom") + ", database=" + database
                + ", assumePersistence=" + assumePersistence + ", counterRetention=" + counterRetention + ", handOff="
                + handOff + '}';
    }

    /** Builder for {@link RedisLockOptions}; every setter checks its argument at once. */
    public static final class Builder {
        private LockOptions lockOptions = LockOptions.defaults();
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private int poolSize = DEFAULT_POOL_SIZE;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration socketTimeout = DEFAULT_SOCKET_TIMEOUT;
        private int requiredReplicas = DEFAULT_REQUIRED_REPLICAS;
        private Duration replicaAckTimeout = DEFAULT_REPLICA_ACK_TIMEOUT;
        private String username;
        private String password;
        private boolean tls;
        private Path tlsCaFile;
        private SSLSocketFactory sslSocketFactory;
        private int database;
        private boolean assumePersistence;
        private boolean handOff = true;
        private Duration counterRetention = DEFAULT_COUNTER_RETENTION;

        private Builder() {}

        public Builder lockOptions(LockOptions lockOptions) {
            this.lockOptions = Objects.requireNonNull(lockOptions, "lockOptions must not be null");
            return this;
        }

        /** Shortcut for {@code lockOptions(lockOptions().mutate().leaseTime(leaseTime).build())}. */
        public Builder leaseTime(Duration leaseTime) {
            this.lockOptions = lockOptions.mutate().leaseTime(leaseTime).build();
            return this;
        }

        /**
         * @throws IllegalArgumentException unless 1 to {@value #MAX_KEY_PREFIX_LENGTH} characters
         *     from {@code [A-Za-z0-9_.:-]}, neither starting nor ending with {@code :} (braces would
         *     change the hash slot, spaces and control characters break tooling)
         */
        public Builder keyPrefix(String keyPrefix) {
            Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
            if (keyPrefix.isEmpty() || keyPrefix.length() > MAX_KEY_PREFIX_LENGTH) {
                throw new IllegalArgumentException("keyPrefix must be 1 to " + MAX_KEY_PREFIX_LENGTH
                        + " characters long (was " + keyPrefix.length() + ")");
            }
            int bad = ConnectionChecks.invalidKeyPrefixCharAt(keyPrefix);
            if (bad >= 0) {
                throw new IllegalArgumentException(String.format(
                        "keyPrefix may contain only A-Z, a-z, 0-9, '_', '-', '.' and ':' (found U+%04X at index %d)",
                        (int) keyPrefix.charAt(bad), bad));
            }
            if (keyPrefix.startsWith(":") || keyPrefix.endsWith(":")) {
                throw new IllegalArgumentException(
                        "keyPrefix must not start or end with ':' (was '" + keyPrefix + "')");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** @throws IllegalArgumentException unless between 1 and 1024 */
        public Builder poolSize(int poolSize) {
            if (poolSize < 1 || poolSize > 1024) {
                throw new IllegalArgumentException("poolSize must be between 1 and 1024 (was " + poolSize + ")");
            }
            this.poolSize = poolSize;
            return this;
        }

        /** @throws IllegalArgumentException unless between 1 ms and 10 minutes */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = timeout("connectTimeout", connectTimeout);
            return this;
        }

        /** @throws IllegalArgumentException unless between 1 ms and 10 minutes */
        public Builder socketTimeout(Duration socketTimeout) {
            this.socketTimeout = timeout("socketTimeout", socketTimeout);
            return this;
        }

        private static Duration timeout(String what, Duration d) {
            Objects.requireNonNull(d, what + " must not be null");
            if (d.compareTo(Duration.ofMillis(1)) < 0 || d.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException(what + " must be between 1ms and 10 minutes (was " + d + ")");
            }
            return d;
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
         *     requires it to be shorter than the socket timeout
         */
        public Builder replicaAckTimeout(Duration replicaAckTimeout) {
            this.replicaAckTimeout = timeout("replicaAckTimeout", replicaAckTimeout);
            return this;
        }

        /** ACL user name; {@code null} for the default user. */
        public Builder username(String username) {
            if (username != null && (username.isEmpty() || username.chars().anyMatch(Character::isWhitespace))) {
                throw new IllegalArgumentException("username must not be empty or contain whitespace");
            }
            this.username = username;
            return this;
        }

        /** Password; {@code null} for none. Never printed. */
        public Builder password(String password) {
            if (password != null && password.isEmpty()) {
                throw new IllegalArgumentException("password must not be empty (use null for no password)");
            }
            this.password = password;
            return this;
        }

        /** Use TLS ({@code rediss://}); see {@link RedisLockOptions#tls()}. */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /**
         * Trust the CA certificates in this PEM file (instead of the JVM's default trust store);
         * {@code null} to unset. Requires {@link #tls(boolean) tls}.
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

        /** @throws IllegalArgumentException if negative */
        public Builder database(int database) {
            this.database = ConnectionChecks.database(database);
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
         *     replicaAckTimeout} is not shorter than {@code socketTimeout} (the reply to {@code WAIT}
         *     would time out the socket first)
         */
        public RedisLockOptions build() {
            ConnectionChecks.checkTlsMaterial(tls, tlsCaFile, sslSocketFactory, "use rediss:// or tls(true)");
            if (requiredReplicas > 0 && replicaAckTimeout.compareTo(socketTimeout) >= 0) {
                throw new IllegalArgumentException("replicaAckTimeout " + replicaAckTimeout
                        + " must be shorter than socketTimeout " + socketTimeout + " when requiredReplicas > 0");
            }
            return new RedisLockOptions(this);
        }
    }
}
