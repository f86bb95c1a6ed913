package io.distlock.etcd;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Connection and key-layout settings of the etcd backend. Immutable; build with {@link
 * #builder()}, derive with {@link #mutate()}. Every setter checks its argument at once and names
 * the rule it breaks. The password is never printed ({@link #toString()} masks it).
 *
 * <p>Lease timing (the session TTL) is not set here but through {@link io.distlock.LockOptions#leaseTime()}:
 * the provider's one session lease is granted with that time rounded up to whole seconds (etcd
 * TTLs are whole seconds, and the server may raise a TTL to its minimum, about 1.5 × the election
 * timeout), kept alive every {@code leaseTime * renewalFraction}, and the client believes a lock
 * valid only until {@code lastKeepaliveSent + leaseTime - safetyMargin}.
 */
public final class EtcdLockOptions {

    /** Default endpoint: {@code 127.0.0.1:2379}. */
    public static final String DEFAULT_ENDPOINT = "127.0.0.1:2379";
    /** Default key prefix: {@code /distlock/}. */
    public static final String DEFAULT_KEY_PREFIX = "/distlock/";
    /** Default deadline of one etcd request: 5 seconds. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private static final Pattern ENDPOINT =
            Pattern.compile("(?:(https?)://)?(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9_.-]+):(\\d{1,5})");
    private static final Pattern PREFIX = Pattern.compile("/[\\x21-\\x7E&&[^*?\\[\\]\\\\]]*/");
    private static final EtcdLockOptions DEFAULTS = builder().build();

    private final List<String> endpoints;
    private final String keyPrefix;
    private final Duration requestTimeout;
    private final String user;
    private final String password;
    private final Path trustCertificate;
    private final Path clientCertificate;
    private final Path clientKey;
    private final boolean perLockLease;

    private EtcdLockOptions(Builder b) {
        this.endpoints = List.copyOf(b.endpoints.isEmpty() ? List.of(DEFAULT_ENDPOINT) : b.endpoints);
        this.keyPrefix = b.keyPrefix;
        this.requestTimeout = b.requestTimeout;
        this.user = b.user;
        this.password = b.password;
        this.trustCertificate = b.trustCertificate;
        this.clientCertificate = b.clientCertificate;
        this.clientKey = b.clientKey;
        this.perLockLease = b.perLockLease;
    }

    /** The default options: {@value #DEFAULT_ENDPOINT}, prefix {@value #DEFAULT_KEY_PREFIX}, 5 s requests. */
    public static EtcdLockOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder initialised with these options. */
    public Builder mutate() {
        Builder b = new Builder();
        b.endpoints.addAll(endpoints);
        b.keyPrefix = keyPrefix;
        b.requestTimeout = requestTimeout;
        b.user = user;
        b.password = password;
        b.trustCertificate = trustCertificate;
        b.clientCertificate = clientCertificate;
        b.clientKey = clientKey;
        b.perLockLease = perLockLease;
        return b;
    }

    /** Endpoints as {@code host:port} or {@code http(s)://host:port}. */
    public List<String> endpoints() {
        return endpoints;
    }

    /** The prefix under which every lock's keys live; starts and ends with {@code /}. */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** Deadline of each etcd request (the keepalive and watch streams are bounded by the lease instead). */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    public Optional<String> user() {
        return Optional.ofNullable(user);
    }

    /** The password, for the client builder only; never logged. */
    public Optional<String> password() {
        return Optional.ofNullable(password);
    }

    /** PEM file of the CA that signed the servers' certificates; when set, connections use TLS. */
    public Optional<Path> trustCertificate() {
        return Optional.ofNullable(trustCertificate);
    }

    /**
     * PEM file of the client certificate presented to the servers (mutual TLS, etcd's {@code
     * --client-cert-auth}); set together with {@link #clientKey()}.
     */
    public Optional<Path> clientCertificate() {
        return Optional.ofNullable(clientCertificate);
    }

    /** PEM file (PKCS#8, unencrypted) of the private key of {@link #clientCertificate()}. */
    public Optional<Path> clientKey() {
        return Optional.ofNullable(clientKey);
    }

    /**
     * Whether TLS is used (a trust certificate or a client certificate is set, or an endpoint says
     * {@code https://}).
     */
    public boolean tls() {
        return trustCertificate != null
                || clientCertificate != null
                || endpoints.stream().anyMatch(e -> e.startsWith("https://"));
    }

    /**
     * Whether each acquisition gets its own etcd lease rather than the provider's session lease
     * (default {@code false}); see {@link Builder#perLockLease(boolean)}.
     */
    public boolean perLockLease() {
        return perLockLease;
    }

    /** The endpoints as URIs with scheme ({@code https} when {@link #tls()}). */
    public List<String> endpointUris() {
        List<String> out = new ArrayList<>();
        for (String e : endpoints) {
            if (e.startsWith("http://") || e.startsWith("https://")) {
                out.add(e);
            } else {
                out.add((tls() ? "https://" : "http://") + e);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "EtcdLockOptions{endpoints=" + endpoints + ", keyPrefix='" + keyPrefix + "', requestTimeout="
                + requestTimeout + ", user=" + user + ", password=" + (password == null ? "none" : "****")
                + ", trustCertificate=" + trustCertificate + ", clientCertificate=" + clientCertificate
                + ", clientKey=" + clientKey + ", perLockLease=" + perLockLease + '}';
    }

    /** Builder for {@link EtcdLockOptions}. */
    public static final class Builder {
        private final List<String> endpoints = new ArrayList<>();
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private String user;
        private String password;
        private Path trustCertificate;
        private Path clientCertificate;
        private Path clientKey;
        private boolean perLockLease;

        private Builder() {}

        /**
         * Replaces the endpoints.
         *
         * @throws IllegalArgumentException if empty or an endpoint is not {@code [http(s)://]host:port}
         */
        public Builder endpoints(List<String> endpoints) {
            Objects.requireNonNull(endpoints, "endpoints must not be null");
            if (endpoints.isEmpty()) {
                throw new IllegalArgumentException("endpoints must not be empty");
            }
            List<String> checked = new ArrayList<>();
            for (String e : endpoints) {
                checked.add(checkEndpoint(e));
            }
            this.endpoints.clear();
            this.endpoints.addAll(checked);
            return this;
        }

        /** Shortcut for {@code endpoints(List.of(endpoints))}. */
        public Builder endpoints(String... endpoints) {
            Objects.requireNonNull(endpoints, "endpoints must not be null");
            return endpoints(List.of(endpoints));
        }

        private static String checkEndpoint(String e) {
            if (e == null) {
                throw new IllegalArgumentException("endpoint must not be null");
            }
            String s = e.trim();
            var m = ENDPOINT.matcher(s);
            if (!m.matches()) {
                throw new IllegalArgumentException(
                        "endpoint must be host:port or http(s)://host:port (was '" + e + "')");
            }
            int port = Integer.parseInt(m.group(3));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("endpoint port must be 1..65535 (was '" + e + "')");
            }
            return s;
        }

        /**
         * @throws IllegalArgumentException unless the prefix starts and ends with {@code /} and
         *     contains only printable ASCII without whitespace, {@code *?[]\}
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

        /** @throws IllegalArgumentException unless between 10 ms and 10 minutes */
        public Builder requestTimeout(Duration requestTimeout) {
            Objects.requireNonNull(requestTimeout, "requestTimeout must not be null");
            if (requestTimeout.compareTo(Duration.ofMillis(10)) < 0
                    || requestTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException(
                        "requestTimeout must be between 10ms and 10 minutes (was " + requestTimeout + ")");
            }
            this.requestTimeout = requestTimeout;
            return this;
        }

        /**
         * etcd user and password (both or neither).
         *
         * @throws IllegalArgumentException if the user is empty or exactly one of them is null
         */
        public Builder credentials(String user, String password) {
            if ((user == null) != (password == null)) {
                throw new IllegalArgumentException("user and password must be given together");
            }
            if (user != null && user.isEmpty()) {
                throw new IllegalArgumentException("user must not be empty");
            }
            this.user = user;
            this.password = password;
            return this;
        }

        /**
         * PEM file of the CA that signs the servers' certificates; turns TLS on.
         *
         * @throws IllegalArgumentException if the file is not readable
         */
        public Builder trustCertificate(Path pem) {
            if (pem != null && !Files.isReadable(pem)) {
                throw new IllegalArgumentException("trustCertificate must be a readable file (was " + pem + ")");
            }
            this.trustCertificate = pem;
            return this;
        }

        /**
         * The client certificate and its private key, both PEM files, for servers that require one
         * (mutual TLS: etcd's {@code --client-cert-auth}); turns TLS on. etcd then also takes the
         * certificate's common name as the user when no {@link #credentials} are set. The key must
         * be PKCS#8 and not encrypted ({@code openssl pkcs8 -topk8 -nocrypt} converts one). The
         * servers' certificates are checked against {@link #trustCertificate} if set, else against
         * the JVM's trusted CAs. {@code null} for both: no client certificate.
         *
         * @throws IllegalArgumentException if only one of the two is given, or a file is not readable
         */
        public Builder clientCertificate(Path certificatePem, Path privateKeyPem) {
            if ((certificatePem == null) != (privateKeyPem == null)) {
                throw new IllegalArgumentException(
                        "clientCertificate and its private key must be given together (was certificate "
                                + certificatePem + ", key " + privateKeyPem + ")");
            }
            if (certificatePem != null && !Files.isReadable(certificatePem)) {
                throw new IllegalArgumentException(
                        "clientCertificate must be a readable file (was " + certificatePem + ")");
            }
            if (privateKeyPem != null && !Files.isReadable(privateKeyPem)) {
                throw new IllegalArgumentException("clientKey must be a readable file (was " + privateKeyPem + ")");
            }
            this.clientCertificate = certificatePem;
            this.clientKey = privateKeyPem;
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
         * the session lease when a process holds many locks.
         */
        public Builder perLockLease(boolean perLockLease) {
            this.perLockLease = perLockLease;
            return this;
        }

        public EtcdLockOptions build() {
            return new EtcdLockOptions(this);
        }
    }
}
