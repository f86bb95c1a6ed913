package io.distlock.mysql;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Settings of a {@link MySqlLockProvider}: the lock table, whether to create the schema at start-up,
 * and how the provider's own connection pool connects (credentials, TLS, timeouts, size). The lease
 * settings are the provider builder's {@code lockOptions}. Immutable; build with {@link #builder()},
 * derive with {@link #mutate()}.
 *
 * <p>Credentials, TLS, timeouts, {@code poolSize} and {@code poolWaitTimeout} apply to the pool the
 * provider opens from a {@code jdbcUrl}; with a caller's {@code DataSource} the caller's pool
 * decides them (setting credentials or TLS together with a {@code DataSource} is rejected).
 *
 * <p>Pool sizing: every held lock keeps one connection (its open transaction) for the life of its
 * lease, every thread waiting in {@code acquire}/{@code tryAcquire(maxWait)} keeps one while it
 * waits, each {@code claimRows} call keeps one for its transaction, and the provider keeps one for
 * fencing tokens. A released lock connection may be kept for the next acquisition for up to 200 ms
 * (given back at once when the pool runs out). Size the pool at least {@code (locks held at once) +
 * (concurrent waiters) + (concurrent claims) + 1}. When every connection is in use, {@code
 * tryAcquire()} fails at once with a {@link io.distlock.PoolExhaustedException}, {@code
 * tryAcquire(maxWait)} after waiting at most {@code maxWait} for a connection, {@code acquire()} after
 * {@link #poolWaitTimeout()}; {@code unwrap(ConnectionPoolMetrics.class)} of the provider shows how
 * close it is.
 *
 * <p>Lease time: the server drops a holder that stops heartbeating after the lock connection's
 * session {@code wait_timeout}, which is the lease time rounded <em>up</em> to whole seconds (at least
 * one second). Leases shorter than {@link #RECOMMENDED_MIN_LEASE_TIME} are accepted, but the server
 * then keeps a paused holder's lock for up to a whole second.
 *
 * <pre>{@code
 * MySqlLockOptions options = MySqlLockOptions.builder()
 *         .credentials(Credentials.of("distlock_app", System.getenv("DB_PASSWORD")))
 *         .tls(TlsOptions.builder().trustStore(Path.of("/etc/ssl/db-ca.p12"), storePassword).build())
 *         .poolSize(20)
 *         .build();
 * }</pre>
 */
public final class MySqlLockOptions {

    /** Default lock table: {@code distlock_locks} (tokens in {@code distlock_locks_token}). */
    public static final String DEFAULT_TABLE = "distlock_locks";
    /** Default size of the provider's own pool: 10 connections. */
    public static final int DEFAULT_POOL_SIZE = 10;
    /** Default time to wait for a free connection of the provider's own pool: 5 seconds. */
    public static final Duration DEFAULT_POOL_WAIT_TIMEOUT = Duration.ofSeconds(5);
    /** Shortest {@link #poolWaitTimeout()} accepted: 250 ms (HikariCP's minimum). */
    public static final Duration MIN_POOL_WAIT_TIMEOUT = Duration.ofMillis(250);
    /** Below this lease time the server-side expiry (whole seconds) is coarser than the lease. */
    public static final Duration RECOMMENDED_MIN_LEASE_TIME = Duration.ofSeconds(2);
    /** The suffix of the token table's name. */
    public static final String TOKEN_TABLE_SUFFIX = "_token";

    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,57}");
    private static final MySqlLockOptions DEFAULTS = builder().build();

    private final String table;
    private final boolean createSchema;
    private final int poolSize;
    private final Duration poolWaitTimeout;
    private final Credentials credentials;
    private final TlsOptions tls;
    private final TimeoutOptions timeouts;

    private MySqlLockOptions(Builder b) {
        this.table = b.table;
        this.createSchema = b.createSchema;
        this.poolSize = b.poolSize;
        this.poolWaitTimeout = b.poolWaitTimeout;
        this.credentials = b.credentials;
        this.tls = b.tls;
        this.timeouts = b.timeouts;
    }

    /** Every setting at its default. */
    public static MySqlLockOptions defaults() {
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
        b.credentials = credentials;
        b.tls = tls;
        b.timeouts = timeouts;
        return b;
    }

    /** The lock table (default {@link #DEFAULT_TABLE}). */
    public String table() {
        return table;
    }

    /** The token table: {@code table() + "_token"}. */
    public String tokenTable() {
        return table + TOKEN_TABLE_SUFFIX;
    }

    /** Whether the provider creates both tables at start-up if they are missing (default false). */
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

    /** The MySQL user and password of the provider's own pool; empty: the JDBC URL's, if any. */
    public Optional<Credentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** TLS of the provider's own pool (default {@link TlsOptions#disabled()}). */
    public TlsOptions tls() {
        return tls;
    }

    /**
     * Network timeouts of the provider's own pool (default {@link TimeoutOptions#defaults()}). The
     * connect timeout is Connector/J's {@code connectTimeout}. The request timeout bounds the
     * provider's own short statements (the heartbeat, the fencing token, restoring a released
     * connection), never longer than the renewal interval; it is not Connector/J's {@code
     * socketTimeout}, because a lock connection waits on row locks by design and runs your own
     * statements ({@code connection(Lease)}, {@code claimRows}), which it must not cut off.
     */
    public TimeoutOptions timeouts() {
        return timeouts;
    }

    /** Names every setting; never a password. */
    @Override
    public String toString() {
        return "MySqlLockOptions{table=" + table + ", createSchema=" + createSchema + ", poolSize=" + poolSize
                + ", poolWaitTimeout=" + poolWaitTimeout + ", credentials=" + credentials + ", tls=" + tls
                + ", timeouts=" + timeouts + '}';
    }

    /** Builder for {@link MySqlLockOptions}; every setter checks its argument at once. */
    public static final class Builder {
        private String table = DEFAULT_TABLE;
        private boolean createSchema;
        private int poolSize = DEFAULT_POOL_SIZE;
        private Duration poolWaitTimeout = DEFAULT_POOL_WAIT_TIMEOUT;
        private Credentials credentials;
        private TlsOptions tls = TlsOptions.disabled();
        private TimeoutOptions timeouts = TimeoutOptions.defaults();

        private Builder() {}

        /**
         * The lock table; the token table is {@code table + "_token"}.
         *
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

        /**
         * Whether to create both tables at start-up if they are missing (needs {@code CREATE}; a user
         * without it is fine if an administrator created them).
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
         * The MySQL user and password; shown nowhere (not in {@code toString()}, messages or logs).
         *
         * @throws IllegalArgumentException if {@code credentials} has no user name (MySQL has no
         *     default user)
         */
        public Builder credentials(Credentials credentials) {
            Objects.requireNonNull(credentials, "credentials must not be null");
            if (credentials.user().isEmpty()) {
                throw new IllegalArgumentException(
                        "credentials must name a user: MySQL has no default user (use Credentials.of(user, password))");
            }
            this.credentials = credentials;
            return this;
        }

        /**
         * TLS: on means {@code sslMode=VERIFY_IDENTITY} (the server's certificate must be signed by a
         * trusted CA and name the host) with the trust from a key store ({@link
         * TlsOptions.Builder#trustStore}) or the JVM's default trust. Off (the default) adds no TLS
         * setting: the JDBC URL decides.
         *
         * @throws IllegalArgumentException for a trust source or client certificate Connector/J
         *     cannot use: PEM files ({@code trustCertificates}, {@code clientCertificate}) and an
         *     {@code SSLContext}
         */
        public Builder tls(TlsOptions tls) {
            Objects.requireNonNull(tls, "tls must not be null");
            if (tls.trustCertificates().isPresent()) {
                throw new IllegalArgumentException("tls.trustCertificates (a PEM file) is not supported by the"
                        + " MySQL backend: Connector/J reads trust from a key store; import the CA with"
                        + " 'keytool -importcert -file ca.pem -keystore ca.p12 -storetype PKCS12' and use"
                        + " trustStore");
            }
            if (tls.sslContext().isPresent()) {
                throw new IllegalArgumentException("tls.sslContext is not supported by the MySQL backend:"
                        + " Connector/J builds its own TLS context; use trustStore");
            }
            if (tls.clientCertificate().isPresent()) {
                throw new IllegalArgumentException("tls.clientCertificate (PEM files) is not supported by the"
                        + " MySQL backend: Connector/J reads a client certificate from a key store only");
            }
            this.tls = tls;
            return this;
        }

        /** Connect and request timeouts; see {@link MySqlLockOptions#timeouts()} for where each applies. */
        public Builder timeouts(TimeoutOptions timeouts) {
            this.timeouts = Objects.requireNonNull(timeouts, "timeouts must not be null");
            return this;
        }

        public MySqlLockOptions build() {
            return new MySqlLockOptions(this);
        }
    }
}
