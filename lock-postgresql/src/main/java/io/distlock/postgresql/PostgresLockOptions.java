package io.distlock.postgresql;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * Settings of a {@link PostgresLockProvider}: the lock table (and its token sequence), whether to
 * create them at start-up, and how the provider's own connection pool connects (credentials, TLS,
 * timeouts, size). The lease settings are the provider builder's {@code lockOptions}. Immutable;
 * build with {@link #builder()}, derive with {@link #mutate()}.
 *
 * <p>Credentials, TLS, timeouts, {@code poolSize} and {@code poolWaitTimeout} apply to the pool the
 * provider opens from a {@code jdbcUrl}; with a caller's {@code DataSource} the caller's pool
 * decides them (setting credentials or TLS together with a {@code DataSource} is rejected).
 *
 * <p>Pool sizing: every held lock keeps one connection (its open transaction) for the life of its
 * lease, every thread waiting in {@code acquire}/{@code tryAcquire(maxWait)} keeps one while it
 * waits, and each {@code claimRows} call keeps one for its transaction (fencing tokens need none:
 * the lock's own statement draws them). Size the pool at least {@code (locks held at once) +
 * (concurrent waiters) + (concurrent claims)}, and the server's {@code max_connections} for every
 * provider's pool. When every connection is in use, {@code tryAcquire()} fails at once with a {@link
 * io.distlock.PoolExhaustedException}, {@code tryAcquire(maxWait)} after waiting at most {@code maxWait}
 * for a connection, {@code acquire()} after {@link #poolWaitTimeout()}; {@code
 * unwrap(ConnectionPoolMetrics.class)} of the provider shows how close it is.
 *
 * <pre>{@code
 * PostgresLockOptions options = PostgresLockOptions.builder()
 *         .credentials(Credentials.of("distlock_app", System.getenv("DB_PASSWORD")))
 *         .tls(TlsOptions.builder().trustCertificates(Path.of("/etc/ssl/db-ca.pem")).build())
 *         .poolSize(20)
 *         .build();
 * }</pre>
 */
public final class PostgresLockOptions {

    /** Default lock table: {@code distlock_locks} (tokens from the sequence {@code distlock_locks_token}). */
    public static final String DEFAULT_TABLE = "distlock_locks";
    /** Default size of the provider's own pool: 10 connections. */
    public static final int DEFAULT_POOL_SIZE = 10;
    /** Default time to wait for a free connection of the provider's own pool: 5 seconds. */
    public static final Duration DEFAULT_POOL_WAIT_TIMEOUT = Duration.ofSeconds(5);
    /** Shortest {@link #poolWaitTimeout()} accepted: 250 ms (HikariCP's minimum). */
    public static final Duration MIN_POOL_WAIT_TIMEOUT = Duration.ofMillis(250);
    /** The suffix of the token sequence's name. */
    public static final String TOKEN_SEQUENCE_SUFFIX = "_token";

    private static final Pattern TABLE = Pattern.compile("[a-z_][a-z0-9_]{0,56}");
    private static final PostgresLockOptions DEFAULTS = builder().build();

    private final String table;
    private final boolean createSchema;
    private final int poolSize;
    private final Duration poolWaitTimeout;
    private final int prepareThreshold;
    private final Credentials credentials;
    private final TlsOptions tls;
    private final TimeoutOptions timeouts;

    private PostgresLockOptions(Builder b) {
        this.table = b.table;
        this.createSchema = b.createSchema;
        this.poolSize = b.poolSize;
        this.poolWaitTimeout = b.poolWaitTimeout;
        this.prepareThreshold = b.prepareThreshold;
        this.credentials = b.credentials;
        this.tls = b.tls;
        this.timeouts = b.timeouts;
    }

    /** Every setting at its default. */
    public static PostgresLockOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings. */
    public Builder mutate() {
        Builder b = new Builder();
        b.table = table;
        b.createSchema = createSchema;
        b.poolSize = poolSize;
        b.poolWaitTimeout = poolWaitTimeout;
        b.prepareThreshold = prepareThreshold;
        b.credentials = credentials;
        b.tls = tls;
        b.timeouts = timeouts;
        return b;
    }

    /** The lock table (default {@link #DEFAULT_TABLE}), in the connection's {@code search_path}. */
    public String table() {
        return table;
    }

    /** The sequence fencing tokens come from: {@code table() + "_token"}. */
    public String tokenSequence() {
        return table + TOKEN_SEQUENCE_SUFFIX;
    }

    /** Whether the provider creates the table and the sequence at start-up if missing (default false). */
    public boolean createSchema() {
        return createSchema;
    }

    /** Maximum size of the pool the provider opens itself (default {@link #DEFAULT_POOL_SIZE}). */
    public int poolSize() {
        return poolSize;
    }

    /**
     * How long a claim, {@code withLockedConnection}'s own connection and an acquisition without a wait
     * of its own ({@code acquire()}) wait for a free connection of the provider's own pool (default
     * {@link #DEFAULT_POOL_WAIT_TIMEOUT}); {@code tryAcquire(maxWait)} waits at most {@code maxWait},
     * {@code tryAcquire()} not at all. A refused login ends the wait at once.
     */
    public Duration poolWaitTimeout() {
        return poolWaitTimeout;
    }

    /**
     * The driver's {@code prepareThreshold} for the provider's own pool: after how many runs of a
     * statement on one connection the driver prepares it on the server under a name; {@code 0} never
     * does, which a connection pooler in transaction mode needs (PgBouncer before 1.21: the named
     * statements stay on one server connection while the session moves on). Empty (the default):
     * the driver's own default (5), or the JDBC URL's.
     */
    public OptionalInt prepareThreshold() {
        return prepareThreshold < 0 ? OptionalInt.empty() : OptionalInt.of(prepareThreshold);
    }

    /** The PostgreSQL role and password of the provider's own pool; empty: the JDBC URL's, if any. */
    public Optional<Credentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** TLS of the provider's own pool (default {@link TlsOptions#disabled()}). */
    public TlsOptions tls() {
        return tls;
    }

    /**
     * Network timeouts of the provider's own pool (default {@link TimeoutOptions#defaults()}). The
     * connect timeout is the driver's {@code connectTimeout} and {@code loginTimeout} (whole seconds,
     * rounded up). The request timeout bounds the provider's own short statements (the heartbeat,
     * the fencing token, an extension), never longer than the renewal interval; it is not the
     * driver's {@code socketTimeout}, because a lock connection waits on row locks by design and runs
     * your own statements ({@code connection(Lease)}, {@code claimRows}), which it must not cut off.
     */
    public TimeoutOptions timeouts() {
        return timeouts;
    }

    /** Names every setting; never a password. */
    @Override
    public String toString() {
        return "PostgresLockOptions{table=" + table + ", createSchema=" + createSchema + ", poolSize=" + poolSize
                + ", poolWaitTimeout=" + poolWaitTimeout + ", prepareThreshold=" + prepareThreshold()
                + ", credentials=" + credentials + ", tls=" + tls
                + ", timeouts=" + timeouts + '}';
    }

    /** Builder for {@link PostgresLockOptions}; every setter checks its argument at once. */
    public static final class Builder {
        private String table = DEFAULT_TABLE;
        private boolean createSchema;
        private int poolSize = DEFAULT_POOL_SIZE;
        private Duration poolWaitTimeout = DEFAULT_POOL_WAIT_TIMEOUT;
        private int prepareThreshold = -1;
        private Credentials credentials;
        private TlsOptions tls = TlsOptions.disabled();
        private TimeoutOptions timeouts = TimeoutOptions.defaults();

        private Builder() {}

        /**
         * The lock table; the token sequence is {@code table + "_token"}. Lower case only: the
         * statements name it unquoted, and PostgreSQL folds unquoted names to lower case.
         *
         * @throws IllegalArgumentException unless the name matches {@code [a-z_][a-z0-9_]{0,56}}
         *     (so that {@code <table>_token} is a valid identifier of at most 63 characters)
         */
        public Builder table(String table) {
            Objects.requireNonNull(table, "table must not be null");
            if (!TABLE.matcher(table).matches()) {
                throw new IllegalArgumentException("table must match [a-z_][a-z0-9_]{0,56} (was '" + table + "')");
            }
            this.table = table;
            return this;
        }

        /**
         * Whether to create the table and the sequence at start-up if they are missing (needs {@code
         * CREATE} on the schema; a role without it is fine if an administrator created them).
         */
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

        /**
         * The driver's {@code prepareThreshold} ({@link PostgresLockOptions#prepareThreshold()}):
         * {@code 0} behind a connection pooler in transaction mode such as PgBouncer before 1.21.
         *
         * @throws IllegalArgumentException if {@code prepareThreshold} is negative
         */
        public Builder prepareThreshold(int prepareThreshold) {
            if (prepareThreshold < 0) {
                throw new IllegalArgumentException("prepareThreshold must be at least 0 (0: never prepare statements"
                        + " on the server) (was " + prepareThreshold + ")");
            }
            this.prepareThreshold = prepareThreshold;
            return this;
        }

        /** @throws IllegalArgumentException unless at least {@link #MIN_POOL_WAIT_TIMEOUT} */
        public Builder poolWaitTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "poolWaitTimeout must not be null");
            if (timeout.compareTo(MIN_POOL_WAIT_TIMEOUT) < 0) {
                throw new IllegalArgumentException("poolWaitTimeout must be at least 250ms (was " + timeout + ")");
            }
            this.poolWaitTimeout = timeout;
            return this;
        }

        /**
         * The role and password (SCRAM or md5, as the server's {@code pg_hba.conf} asks); shown
         * nowhere (not in {@code toString()}, messages or logs).
         *
         * @throws IllegalArgumentException if {@code credentials} has no user name
         */
        public Builder credentials(Credentials credentials) {
            Objects.requireNonNull(credentials, "credentials must not be null");
            if (credentials.user().isEmpty()) {
                throw new IllegalArgumentException(
                        "credentials must name a role: PostgreSQL logs in as a role (use Credentials.of(user, password))");
            }
            this.credentials = credentials;
            return this;
        }

        /**
         * TLS: on means {@code sslmode=verify-full} (the server's certificate must be signed by a
         * trusted CA and name the host) with the trust from PEM certificates ({@code
         * trustCertificates}, the driver's {@code sslrootcert}), a key store ({@code trustStore}), an
         * {@code SSLContext} (which may also present a client certificate) or the JVM's default
         * trust. Off (the default) adds no TLS setting: the JDBC URL decides (the driver's default is
         * {@code sslmode=prefer}, TLS without verification when the server offers it).
         *
         * @throws IllegalArgumentException for a PEM client certificate ({@code clientCertificate}):
         *     present a client certificate through an {@code SSLContext} (its key managers) instead
         */
        public Builder tls(TlsOptions tls) {
            Objects.requireNonNull(tls, "tls must not be null");
            if (tls.clientCertificate().isPresent()) {
                throw new IllegalArgumentException("tls.clientCertificate (PEM files) is not supported by the"
                        + " PostgreSQL backend: present a client certificate through tls.sslContext (its key"
                        + " managers)");
            }
            this.tls = tls;
            return this;
        }

        /** Connect and request timeouts; see {@link PostgresLockOptions#timeouts()} for where each applies. */
        public Builder timeouts(TimeoutOptions timeouts) {
            this.timeouts = Objects.requireNonNull(timeouts, "timeouts must not be null");
            return this;
        }

        public PostgresLockOptions build() {
            return new PostgresLockOptions(this);
        }
    }
}
