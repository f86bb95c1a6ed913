package io.distlock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;

/**
 * How a backend client speaks TLS, the same block on every backend: whether TLS is on, which
 * certificate authorities it trusts, and (where the backend supports it) the client certificate it
 * presents. The server's host name is always verified against its certificate. Immutable; build with
 * {@link #builder()}.
 *
 * <p>Trust comes from exactly one source: a PEM file of CA certificates ({@link
 * Builder#trustCertificates(Path)}), a key store ({@link Builder#trustStore(Path, String)}), a
 * ready {@link SSLContext} ({@link Builder#sslContext(SSLContext)}), or, with none of them, the
 * JVM's default trust store. A backend that cannot use a given source rejects it when its options
 * are built, naming the option. A certificate the server presents that the trust does not accept is
 * a {@link LockConfigurationException}, never an outage.
 *
 * <pre>{@code
 * TlsOptions tls = TlsOptions.builder().trustCertificates(Path.of("/etc/ssl/redis-ca.pem")).build();
 * }</pre>
 */
public final class TlsOptions {
    private static final TlsOptions DISABLED = new TlsOptions(new Builder().enabled(false));
    private static final TlsOptions SYSTEM_TRUST = new TlsOptions(new Builder());

    private final boolean enabled;
    private final Path trustCertificates;
    private final Path trustStore;
    private final String trustStorePassword;
    private final SSLContext sslContext;
    private final Path clientCertificate;
    private final Path clientKey;

    private TlsOptions(Builder b) {
        this.enabled = b.enabled;
        this.trustCertificates = b.trustCertificates;
        this.trustStore = b.trustStore;
        this.trustStorePassword = b.trustStorePassword;
        this.sslContext = b.sslContext;
        this.clientCertificate = b.clientCertificate;
        this.clientKey = b.clientKey;
    }

    /** Plain connections (the default of every backend). */
    public static TlsOptions disabled() {
        return DISABLED;
    }

    /** TLS trusting the JVM's default certificate authorities. */
    public static TlsOptions enabled() {
        return SYSTEM_TRUST;
    }

    /** A builder for TLS on (call {@code enabled(false)} for off). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these settings. */
    public Builder mutate() {
        Builder b = new Builder();
        b.enabled = enabled;
        b.trustCertificates = trustCertificates;
        b.trustStore = trustStore;
        b.trustStorePassword = trustStorePassword;
        b.sslContext = sslContext;
        b.clientCertificate = clientCertificate;
        b.clientKey = clientKey;
        return b;
    }

    /** Whether connections use TLS. */
    public boolean isEnabled() {
        return enabled;
    }

    /** A PEM file of the certificate authorities to trust. */
    public Optional<Path> trustCertificates() {
        return Optional.ofNullable(trustCertificates);
    }

    /** A key store (PKCS#12 or JKS) of the certificate authorities to trust. */
    public Optional<Path> trustStore() {
        return Optional.ofNullable(trustStore);
    }

    /** The password of {@link #trustStore()}, if it has one. */
    public Optional<String> trustStorePassword() {
        return Optional.ofNullable(trustStorePassword);
    }

    /** A ready TLS context that decides trust (and client certificates) itself. */
    public Optional<SSLContext> sslContext() {
        return Optional.ofNullable(sslContext);
    }

    /** The PEM certificate chain this client presents (mutual TLS). */
    public Optional<Path> clientCertificate() {
        return Optional.ofNullable(clientCertificate);
    }

    /** The PEM private key of {@link #clientCertificate()}. */
    public Optional<Path> clientKey() {
        return Optional.ofNullable(clientKey);
    }

    /** Whether the JVM's default trust store decides (no trust source set). */
    public boolean usesDefaultTrust() {
        return trustCertificates == null && trustStore == null && sslContext == null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TlsOptions t
                && enabled == t.enabled
                && Objects.equals(trustCertificates, t.trustCertificates)
                && Objects.equals(trustStore, t.trustStore)
                && Objects.equals(trustStorePassword, t.trustStorePassword)
                && Objects.equals(sslContext, t.sslContext)
                && Objects.equals(clientCertificate, t.clientCertificate)
                && Objects.equals(clientKey, t.clientKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, trustCertificates, trustStore, sslContext, clientCertificate, clientKey);
    }

    /** Names the trust source and client certificate files; never a password. */
    @Override
    public String toString() {
        if (!enabled) {
            return "TlsOptions{disabled}";
        }
        StringBuilder sb = new StringBuilder("TlsOptions{trust=");
        if (trustCertificates != null) {
            sb.append(trustCertificates);
        } else if (trustStore != null) {
            sb.append("store ").append(trustStore);
        } else if (sslContext != null) {
            sb.append("sslContext");
        } else {
            sb.append("default");
        }
        if (clientCertificate != null) {
            sb.append(", clientCertificate=").append(clientCertificate);
        }
        return sb.append('}').toString();
    }

    /** Builder for {@link TlsOptions}; TLS is on unless {@link #enabled(boolean) enabled(false)}. */
    public static final class Builder {
        private boolean enabled = true;
        private Path trustCertificates;
        private Path trustStore;
        private String trustStorePassword;
        private SSLContext sslContext;
        private Path clientCertificate;
        private Path clientKey;

        private Builder() {}

        /** Turns TLS on (the builder's default) or off. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /**
         * Trusts the CA certificates in a PEM file.
         *
         * @throws IllegalArgumentException if the file is not readable, or another trust source is set
         */
        public Builder trustCertificates(Path pemFile) {
            Objects.requireNonNull(pemFile, "trustCertificates must not be null");
            requireReadable("trustCertificates", pemFile);
            onlyOneTrustSource("trustCertificates", trustStore != null || sslContext != null);
            this.trustCertificates = pemFile;
            return this;
        }

        /**
         * Trusts the CA certificates in a key store (PKCS#12 or JKS).
         *
         * @param password the store's password, or {@code null} if it has none
         * @throws IllegalArgumentException if the file is not readable, or another trust source is set
         */
        public Builder trustStore(Path keyStore, String password) {
            Objects.requireNonNull(keyStore, "trustStore must not be null");
            requireReadable("trustStore", keyStore);
            onlyOneTrustSource("trustStore", trustCertificates != null || sslContext != null);
            this.trustStore = keyStore;
            this.trustStorePassword = password;
            return this;
        }

        /**
         * Uses a ready TLS context (its trust managers decide; its key managers supply a client
         * certificate if any).
         *
         * @throws IllegalArgumentException if another trust source is set
         */
        public Builder sslContext(SSLContext sslContext) {
            Objects.requireNonNull(sslContext, "sslContext must not be null");
            onlyOneTrustSource("sslContext", trustCertificates != null || trustStore != null);
            this.sslContext = sslContext;
            return this;
        }

        /**
         * Presents a client certificate (mutual TLS) from PEM files.
         *
         * @throws IllegalArgumentException if either file is not readable
         */
        public Builder clientCertificate(Path certificatePem, Path privateKeyPem) {
            Objects.requireNonNull(certificatePem, "clientCertificate must not be null");
            Objects.requireNonNull(privateKeyPem, "clientKey must not be null");
            requireReadable("clientCertificate", certificatePem);
            requireReadable("clientKey", privateKeyPem);
            this.clientCertificate = certificatePem;
            this.clientKey = privateKeyPem;
            return this;
        }

        /**
         * @throws IllegalArgumentException if TLS is off but a trust source or client certificate is set
         */
        public TlsOptions build() {
            if (!enabled
                    && (trustCertificates != null
                            || trustStore != null
                            || sslContext != null
                            || clientCertificate != null)) {
                throw new IllegalArgumentException(
                        "TLS trust or client certificate set while TLS is disabled: remove them or enable TLS");
            }
            return new TlsOptions(this);
        }

        private static void requireReadable(String option, Path file) {
            if (!Files.isReadable(file)) {
                throw new IllegalArgumentException(option + " must be a readable file (was " + file + ")");
            }
        }

        private static void onlyOneTrustSource(String option, boolean otherSet) {
            if (otherSet) {
                throw new IllegalArgumentException(
                        option + ": only one trust source may be set (trustCertificates, trustStore or sslContext)");
            }
        }
    }
}
