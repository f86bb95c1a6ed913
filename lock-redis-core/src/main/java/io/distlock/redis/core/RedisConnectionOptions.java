package io.distlock.redis.core;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import java.util.Objects;
import java.util.Optional;

/**
 * How lock-redis and lock-redlock connect to a Redis server: credentials, TLS, timeouts, pool size,
 * database and the prefix of every key and channel. The same block on both backends: {@code
 * RedisLockOptions.Builder} and {@code RedlockLockOptions.Builder} offer its setters at top level
 * (with their own defaults) and return it from {@code connection()}. Immutable; {@link #toString()}
 * never shows the password.
 *
 * <ul>
 *   <li>{@link #credentials()}: {@code AUTH user password} for an ACL user, {@code AUTH password}
 *       for the {@code default} user ({@link Credentials#password(String)}); none by default.
 *       Wrong credentials, or a user without the permissions the lock needs, make every request
 *       fail with {@link io.distlock.LockConfigurationException}, at once and without retries.
 *   <li>{@link #tls()}: {@link TlsOptions#disabled()} by default. Trust from a PEM file of CA
 *       certificates, a key store, a ready {@code SSLContext}, or the JVM's default trust store; the
 *       server's host name (or IP address) is always verified against its certificate, as HTTPS
 *       does. A client certificate is presented through an {@code SSLContext} whose key managers
 *       hold it ({@link TlsOptions.Builder#clientCertificate} PEM files are rejected). A server
 *       certificate the trust does not accept is a {@link io.distlock.LockConfigurationException}.
 *   <li>{@link #timeouts()}: {@link TimeoutOptions#connectTimeout()} is Jedis's connection timeout
 *       (TCP connect, TLS handshake and {@code AUTH} of a new connection), {@link
 *       TimeoutOptions#requestTimeout()} its socket timeout (the longest wait for one reply).
 *   <li>{@link #poolSize()}: pooled command connections (per node for Redlock).
 *   <li>{@link #database()}: the database number ({@code SELECT}); Redis Cluster has only 0.
 *   <li>{@link #keyPrefix()}: lock {@code n} lives at {@code <prefix>:{<enc>}:lock}, its fencing
 *       counter at {@code <prefix>:{<enc>}:token}, its wake-up channel is {@code
 *       <prefix>:{<enc>}:released}, with {@code <enc> = LockNames.encode(n)}. An ACL user needs the
 *       key pattern {@code ~<prefix>:*} and the channel pattern {@code &<prefix>:*}.
 * </ul>
 */
public final class RedisConnectionOptions {
    /** Default key prefix: {@code distlock}. */
    public static final String DEFAULT_KEY_PREFIX = "distlock";
    /** Longest key prefix accepted: 64 characters. */
    public static final int MAX_KEY_PREFIX_LENGTH = 64;
    /** Default number of pooled command connections: 8. */
    public static final int DEFAULT_POOL_SIZE = 8;
    /** Largest pool size accepted: 1024. */
    public static final int MAX_POOL_SIZE = 1024;

    private static final RedisConnectionOptions DEFAULTS = builder().build();

    private final Credentials credentials;
    private final TlsOptions tls;
    private final TimeoutOptions timeouts;
    private final int poolSize;
    private final int database;
    private final String keyPrefix;

    private RedisConnectionOptions(Builder b) {
        this.credentials = b.credentials;
        this.tls = b.tls;
        this.timeouts = b.timeouts;
        this.poolSize = b.poolSize;
        this.database = b.database;
        this.keyPrefix = b.keyPrefix;
    }

    /**
     * No credentials, TLS off, {@link TimeoutOptions#defaults()}, {@link #DEFAULT_POOL_SIZE}, database
     * 0, {@link #DEFAULT_KEY_PREFIX}.
     */
    public static RedisConnectionOptions defaults() {
        return DEFAULTS;
    }

    /** A builder starting from {@link #defaults()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings. */
    public Builder mutate() {
        Builder b = new Builder();
        b.credentials = credentials;
        b.tls = tls;
        b.timeouts = timeouts;
        b.poolSize = poolSize;
        b.database = database;
        b.keyPrefix = keyPrefix;
        return b;
    }

    /** The credentials, if the server requires authentication. */
    public Optional<Credentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** TLS settings ({@link TlsOptions#disabled()} by default). */
    public TlsOptions tls() {
        return tls;
    }

    /** Connect and request timeouts. */
    public TimeoutOptions timeouts() {
        return timeouts;
    }

    /** Pooled command connections. */
    public int poolSize() {
        return poolSize;
    }

    /** Database number (0 by default). */
    public int database() {
        return database;
    }

    /** Prefix of every key and channel. */
    public String keyPrefix() {
        return keyPrefix;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RedisConnectionOptions c
                && Objects.equals(credentials, c.credentials)
                && tls.equals(c.tls)
                && timeouts.equals(c.timeouts)
                && poolSize == c.poolSize
                && database == c.database
                && keyPrefix.equals(c.keyPrefix);
    }

    @Override
    public int hashCode() {
        return Objects.hash(credentials, tls, timeouts, poolSize, database, keyPrefix);
    }

    /** Names every setting; the password as {@code ****}. */
    @Override
    public String toString() {
        return "credentials=" + (credentials == null ? "none" : credentials) + ", tls=" + tls + ", timeouts="
                + timeouts + ", poolSize=" + poolSize + ", database=" + database + ", keyPrefix='" + keyPrefix
                + "'";
    }

    /** Builder for {@link RedisConnectionOptions}; every setter checks its argument at once. */
    public static final class Builder {
        private Credentials credentials;
        private TlsOptions tls = TlsOptions.disabled();
        private TimeoutOptions timeouts = TimeoutOptions.defaults();
        private int poolSize = DEFAULT_POOL_SIZE;
        private int database;
        private String keyPrefix = DEFAULT_KEY_PREFIX;

        private Builder() {}

        /**
         * Authenticates every connection with these credentials.
         *
         * @throws IllegalArgumentException if the user name contains whitespace or the password is
         *     empty (leave the credentials unset for a server without a password)
         */
        public Builder credentials(Credentials credentials) {
            Objects.requireNonNull(credentials, "credentials must not be null");
            if (credentials
                    .user()
                    .filter(u -> u.chars().anyMatch(Character::isWhitespace))
                    .isPresent()) {
                throw new IllegalArgumentException("credentials: the user name must not contain whitespace");
            }
            if (credentials.password().isEmpty()) {
                throw new IllegalArgumentException(
                        "credentials: the password must not be empty (leave credentials unset for none)");
            }
            this.credentials = credentials;
            return this;
        }

        /**
         * TLS settings.
         *
         * @throws IllegalArgumentException if they name a client certificate (present one through
         *     {@link TlsOptions.Builder#sslContext} instead)
         */
        public Builder tls(TlsOptions tls) {
            Objects.requireNonNull(tls, "tls must not be null");
            if (tls.clientCertificate().isPresent()) {
                throw new IllegalArgumentException("tls: clientCertificate is not supported by the Redis backends;"
                        + " give an sslContext whose key managers present the client certificate");
            }
            this.tls = tls;
            return this;
        }

        /** Connect and request timeouts. */
        public Builder timeouts(TimeoutOptions timeouts) {
            this.timeouts = Objects.requireNonNull(timeouts, "timeouts must not be null");
            return this;
        }

        /** @throws IllegalArgumentException unless between 1 and {@value #MAX_POOL_SIZE} */
        public Builder poolSize(int poolSize) {
            if (poolSize < 1 || poolSize > MAX_POOL_SIZE) {
                throw new IllegalArgumentException(
                        "poolSize must be between 1 and " + MAX_POOL_SIZE + " (was " + poolSize + ")");
            }
            this.poolSize = poolSize;
            return this;
        }

        /** @throws IllegalArgumentException if negative */
        public Builder database(int database) {
            this.database = ConnectionChecks.database(database);
            return this;
        }

        /**
         * @throws IllegalArgumentException unless 1 to {@value #MAX_KEY_PREFIX_LENGTH} characters
         *     from {@code [A-Za-z0-9_.:-]}, neither starting nor ending with {@code :} (braces would
         *     change the hash slot, spaces and control characters break tooling)
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = ConnectionChecks.keyPrefix(keyPrefix, MAX_KEY_PREFIX_LENGTH);
            return this;
        }

        public RedisConnectionOptions build() {
            return new RedisConnectionOptions(this);
        }
    }
}
