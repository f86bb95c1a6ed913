package io.distlock.mysql;

import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Settings of a {@link MySqlLockProvider}: the lock table, whether to create the schema at start-up,
 * the size of the connection pool the provider opens itself, and the common {@link LockOptions}.
 * Immutable; build with {@link #builder()}, derive with {@link #mutate()}.
 *
 * <p>Pool sizing: every held lock keeps one connection (its open transaction) for the life of its
 * lease, and every thread waiting in {@code acquire}/{@code tryAcquire(maxWait)} keeps one while it
 * waits, each {@code claimRows} call keeps one for its transaction, and the provider keeps one for
 * fencing tokens. A released lock connection may be kept for the next acquisition for up to 200
 * ms (given back within 50 ms when someone waits for the pool). Size the pool at least {@code (locks
 * held at once) + (concurrent waiters) + (concurrent claims) + 1}; when the pool
 * is exhausted an acquisition fails after {@link #connectionTimeout()} with a {@link
 * io.distlock.BackendUnavailableException}.
 *
 * <p>Lease time: the server drops a holder that stops heartbeating after the lock connection's
 * session {@code wait_timeout}, which is the lease time rounded <em>up</em> to whole seconds (at least
 * one second). Leases shorter than {@link #RECOMMENDED_MIN_LEASE_TIME} are accepted, but the server
 * then keeps a paused holder's lock for up to a whole second.
 */
public final class MySqlLockOptions {

    /** Default lock table: {@code distlock_locks} (tokens in {@code distlock_locks_token}). */
    public static final String DEFAULT_TABLE = "distlock_locks";
    /** Default size of the provider's own pool: 10 connections. */
    public static final int DEFAULT_POOL_SIZE = 10;
    /** Default time to wait for a pooled connection: 5 seconds. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);
    /** Below this lease time the server-side expiry (whole seconds) is coarser than the lease. */
    public static final Duration RECOMMENDED_MIN_LEASE_TIME = Duration.ofSeconds(2);
    /** The suffix of the token table's name. */
    public static final String TOKEN_TABLE_SUFFIX = "_token";

    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,57}");
    private static final MySqlLockOptions DEFAULTS = builder().build();

    private final String table;
    private final boolean createSchema;
    private final int poolSize;
    private final Duration connectionTimeout;
    private final LockOptions lockOptions;

    private MySqlLockOptions(Builder b) {
        this.table = b.table;
        this.createSchema = b.createSchema;
        this.poolSize = b.poolSize;
        this.connectionTimeout = b.connectionTimeout;
        this.lockOptions = b.lockOptions;
    }

    public static MySqlLockOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder mutate() {
        Builder b = new Builder();
        b.table = table;
        b.createSchema = createSchema;
        b.poolSize = poolSize;
        b.connectionTimeout = connectionTimeout;
        b.lockOptions = lockOptions;
        return b;
    }

    /** The lock table. */
    public String table() {
        return table;
    }

    /** The token table: {@code table() + "_token"}. */
    public String tokenTable() {
        return table + TOKEN_TABLE_SUFFIX;
    }

    /** Whether the provider creates both tables at start-up if they are missing. */
    public boolean createSchema() {
        return createSchema;
    }

    /** Maximum size of the pool the provider opens itself (ignored with a caller's DataSource). */
    public int poolSize() {
        return poolSize;
    }

    /** How long to wait for a connection from the provider's own pool. */
    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    /** Lease settings. */
    public LockOptions lockOptions() {
        return lockOptions;
    }

    /**
     * The session {@code wait_timeout} set on a lock connection while it holds a lock: the lease
     * time rounded up to whole seconds, at least 1.
     */
    public long waitTimeoutSeconds() {
        long millis = lockOptions.leaseTime().toMillis();
        return Math.max(1, (millis + 999) / 1000);
    }

    @Override
    public String toString() {
        return "MySqlLockOptions{table=" + table + ", createSchema=" + createSchema + ", poolSize=" + poolSize
                + ", connectionTimeout=" + connectionTimeout + ", " + lockOptions + '}';
    }

    /** Builder for {@link MySqlLockOptions}; every setter checks its argument at once. */
    public static final class Builder {
        private String table = DEFAULT_TABLE;
        private boolean createSchema;
        private int poolSize = DEFAULT_POOL_SIZE;
        private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
        private LockOptions lockOptions = LockOptions.defaults();

        private Builder() {}

        /**
         * @throws IllegalArgumentException unless the name matches {@code [A-Za-z_][A-Za-z0-9_]{0,57}}
         *     (so that {@code <table>_token} is a valid identifier of at most 64 characters)
         */
        public Builder table(String table) {
            Objects.requireNonNull(table, "table must not be null");
            if (!TABLE.matcher(table).matches()) {
                throw new IllegalArgumentException(
                        "table must match [A-Za-z_][A-Za-z0-9_]{0,57} (was '" + table + "')");
            }
            this.table = table;
            return this;
        }

        public Builder createSchema(boolean createSchema) {
            this.createSchema = createSchema;
            return this;
        }

        /** @throws IllegalArgumentException unless {@code 1 <= poolSize <= 10000} */
        public Builder poolSize(int poolSize) {
            if (poolSize < 1 || poolSize > 10_000) {
                throw new IllegalArgumentException("poolSize must be between 1 and 10000 (was " + poolSize + ")");
            }
            this.poolSize = poolSize;
            return this;
        }

        /** @throws IllegalArgumentException unless at least 250 ms (HikariCP's minimum) */
        public Builder connectionTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "connectionTimeout must not be null");
            if (timeout.compareTo(Duration.ofMillis(250)) < 0) {
                throw new IllegalArgumentException("connectionTimeout must be at least 250ms (was " + timeout + ")");
            }
            this.connectionTimeout = timeout;
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

        public MySqlLockOptions build() {
            return new MySqlLockOptions(this);
        }
    }
}
