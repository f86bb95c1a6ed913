package io.distlock.etcd;

import io.distlock.Credentials;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Connection and key-layout settings of the etcd backend: credentials, TLS, timeouts, the key
 * prefix and whether each lock gets its own etcd lease. Where the servers are is not set here but
 * on {@link EtcdLockProvider.Builder#endpoints(String...)}; lease timing (the session TTL) neither,
 * but through {@link io.distlock.LockOptions#leaseTime()}: the provider's one session lease is
 * granted with that time rounded up to whole seconds (etcd TTLs are whole seconds, and the server
 * may raise a TTL to its minimum, about 1.5 × the election timeout), kept alive every {@code
 * leaseTime * renewalFraction}, and the client believes a lock valid only until {@code
 * lastKeepaliveSent + leaseTime - safetyMargin}.
 *
 * <p>Immutable; build with {@link #builder()}, derive with {@link #mutate()}. Every setter checks
 * its argument at once and names the rule it breaks. {@link #toString()} never shows the password.
 *
 * <pre>{@code
 * EtcdLockOptions options = EtcdLockOptions.builder()
 *         .keyPrefix("/myapp/locks/")
 *         .credentials(Credentials.of("locker", secret))
 *         .tls(TlsOptions.builder().trustCertificates(Path.of("ca.pem")).build())
 *         .build();
 * }</pre>
 */
public final class EtcdLockOptions {

    /** Default key prefix: {@code /distlock/}. */
    public static final String DEFAULT_KEY_PREFIX = "/distlock/";
    /** Shortest request or connect timeout accepted: 10 ms. */
    public static final Duration MIN_TIMEOUT = Duration.ofMillis(10);

    private static final Pattern PREFIX = Pattern.compile("/[\\x21-\\x7E&&[^*?\\[\\]\\\\]]*/");
    private static final EtcdLockOptions DEFAULTS = builder().build();

    private final String keyPrefix;
    private final Credentials credentials;
    private final TlsOptions tls;
    private final TimeoutOptions timeouts;
    private final boolean perLockLease;

    private EtcdLockOptions(Builder b) {
        this.keyPrefix = b.keyPrefix;
        this.credentials = b.credentials;
        this.tls = b.tls;
        this.timeouts = b.timeouts;
        this.perLockLease = b.perLockLease;
    }

    /**
     * The defaults: prefix {@value #DEFAULT_KEY_PREFIX}, no credentials, no TLS, {@link
     * TimeoutOptions#defaults()}, the session lease.
     */
    public static EtcdLockOptions defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised with these options. */
    public Builder mutate() {
        Builder b = new Builder();
        b.keyPrefix = keyPrefix;
        b.credentials = credentials;
        b.tls = tls;
        b.timeouts = timeouts;
        b.perLockLease = perLockLease;
        return b;
    }

    /** The prefix under which every lock's keys live; starts and ends with {@code /}. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** The etcd user and password, if the servers authenticate. */
    public Optional<Credentials> credentials() {
        return Optional.ofNullable(credentials);
    }

    /** How connections use TLS; {@link TlsOptions#disabled()} by default. */
    public TlsOptions tls() {
        return tls;
    }

    /** Connect and request timeouts; {@link TimeoutOptions#defaults()} by default. */
    public TimeoutOptions timeouts() {
        return timeouts;
    }

    /**
     * Whether each acquisition gets its own etcd lease rather than the provider's session lease
     * (default {@code false}); see {@link Builder#perLockLease(boolean)}.
     */
    public boolean perLockLease() {
        return perLockLease;
    }

    /** Names every setting; the password as {@code ****}. */
    @Override
    public String toString() {
        return "EtcdLockOptions{keyPrefix='" + keyPrefix + "', credentials="
                + (credentials == null ? "none" : credentials) + ", tls=" + tls + ", timeouts=" + timeouts
                + ", perLockLease=" + perLockLease + '}';
    }

    /** Builder for {@link EtcdLockOptions}. */
    public static final class Builder {
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Credentials credentials;
        private TlsOptions tls = TlsOptions.disabled();
        private TimeoutOptions timeouts = TimeoutOptions.defaults();
        private boolean perLockLease;

        private Builder() {}

        /**
         * The prefix under which every lock's keys live (default {@value #DEFAULT_KEY_PREFIX}); an
         * etcd user needs a role with readwrite permission on the range {@code [prefix, prefix end)}.
         *
         * @throws IllegalArgumentException unless the prefix starts and ends with {@code /}, is at
         *     most 128 characters and contains only printable ASCII without whitespace or {@code *?[]\}
         */
        public Builder keyPrefix(String keyPrefix) {
            Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
            if (keyPrefix.length() > 128 || !PREFIX.matcher(keyPrefix).matches()) {
                throw new IllegalArgumentException("keyPrefix must start and end with '/', be at most 128"
                        + " characters and contain only printable ASCII without whitespace or *?[]\\ (was '"
                        + keyPrefix + "')");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * The etcd user and password (etcd's {@code Authenticate}); {@code null} for none (the
         * default). Wrong credentials fail the first request with a {@link
         * io.distlock.LockConfigurationException}, never retried.
         *
         * @throws IllegalArgumentException if the credentials have no user name (etcd has no
         *     default user)
         */
        public Builder credentials(Credentials credentials) {
            if (credentials != null && credentials.user().isEmpty()) {
                throw new IllegalArgumentException("credentials must name an etcd user (etcd has no default user)");
            }
            this.credentials = credentials;
            return this;
        }

        /**
         * How connections use TLS (default {@link TlsOptions#disabled()}); TLS on makes every
         * endpoint without a scheme {@code https}. Trust comes from a PEM file of CA certificates
         * ({@code trustCertificates}), a PKCS#12 or JKS trust store ({@code trustStore}), or the
         * JVM's default trust store. A client certificate (mutual TLS, etcd's {@code
         * --client-cert-auth}) is a PEM certificate chain and a PEM private key in PKCS#8, not
         * encrypted ({@code openssl pkcs8 -topk8 -nocrypt} converts one); etcd then takes the
         * certificate's common name as the user when no {@link #credentials} are set. A server
         * certificate the trust does not accept fails the first request with a {@link
         * io.distlock.LockConfigurationException}.
         *
         * @throws IllegalArgumentException if {@code tls} uses an {@code sslContext}: jetcd's gRPC
         *     transport needs a Netty {@code SslContext} it builds itself, with HTTP/2 negotiation
         */
        public Builder tls(TlsOptions tls) {
            Objects.requireNonNull(tls, "tls must not be null");
            if (tls.sslContext().isPresent()) {
                throw new IllegalArgumentException("tls: sslContext is not supported by the etcd backend (jetcd's gRPC"
                        + " transport builds its own Netty SslContext); use trustCertificates or trustStore, and"
                        + " clientCertificate");
            }
            this.tls = tls;
            return this;
        }

        /**
         * Connect and request timeouts (default {@link TimeoutOptions#defaults()}). The connect
         * timeout bounds opening a TCP connection to a member (the TLS handshake and authentication
         * count towards the first request); the request timeout bounds each etcd request, jetcd's
         * retries of it included (keepalives and watches are bounded by the lease instead).
         *
         * @throws IllegalArgumentException if a timeout is shorter than {@link #MIN_TIMEOUT}
         */
        public Builder timeouts(TimeoutOptions timeouts) {
            Objects.requireNonNull(timeouts, "timeouts must not be null");
            if (timeouts.connectTimeout().compareTo(MIN_TIMEOUT) < 0) {
                throw new IllegalArgumentException(
                        "connectTimeout must be at least 10ms (was " + timeouts.connectTimeout() + ")");
            }
            if (timeouts.requestTimeout().compareTo(MIN_TIMEOUT) < 0) {
                throw new IllegalArgumentException(
                        "requestTimeout must be at least 10ms (was " + timeouts.requestTimeout() + ")");
            }
            this.timeouts = timeouts;
            return this;
        }

        /**
         * One etcd lease per acquisition instead of the provider's shared session lease (default
         * {@code false}). A lock whose lease is revoked or expires is then lost alone; with the
         * session lease, every lock of the provider goes with it. Costs one more round trip per
         * acquisition (the lease grant; release stays one round trip: it revokes the lease, which
         * deletes the key), and one keepalive request per held lock every {@code leaseTime *
         * renewalFraction} (the session's costs one, however many locks are held). Validity and
         * loss work as with the session lease. Thousands of leases strain etcd and jetcd; prefer
         * the session lease when a process holds many locks. (A lock handle whose lease time or
         * renewal differs from the provider's gets a lease of its own whatever this says: the server
         * keeps that lock's time.)
         */
        public Builder perLockLease(boolean perLockLease) {
            this.perLockLease = perLockLease;
            return this;
        }

        /** The options; every setting was checked when it was set. */
        public EtcdLockOptions build() {
            return new EtcdLockOptions(this);
        }
    }
}
