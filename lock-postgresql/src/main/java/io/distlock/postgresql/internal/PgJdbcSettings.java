package io.distlock.postgresql.internal;

import io.distlock.TlsOptions;
import io.distlock.postgresql.PostgresLockOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Internal: the PostgreSQL JDBC driver's properties of the pool a provider opens itself, from its
 * options.
 *
 * <ul>
 *   <li>{@link io.distlock.TimeoutOptions#connectTimeout()} → {@code connectTimeout} and {@code
 *       loginTimeout} (whole seconds, rounded up; the login includes TLS and SCRAM). The request
 *       timeout is not the driver's {@code socketTimeout}: a lock connection blocks on row locks by
 *       design and runs the caller's own statements.
 *   <li>{@code tcpKeepAlive=true}: the client notices a server host that vanished while it holds a
 *       lock at its next heartbeat anyway; keepalive also ends sockets nobody writes to.
 *   <li>{@link PostgresLockOptions#prepareThreshold()}, when set → {@code prepareThreshold} (a
 *       parameter of the JDBC URL still wins, as for every driver property).
 *   <li>{@link TlsOptions}: on → {@code sslmode=verify-full} (the CA and the host name are checked)
 *       with PEM trust as {@code sslrootcert}, or a TLS context of the provider's own ({@link
 *       ContextSocketFactory}) built from a trust store or given as an {@code SSLContext}, or the
 *       JVM's default trust ({@code DefaultJavaSSLFactory}). Off → no TLS property: the JDBC URL
 *       decides.
 * </ul>
 */
public final class PgJdbcSettings {
    /** JDBC URL parameters that configure TLS, which {@link TlsOptions} must not contradict. */
    private static final List<String> TLS_URL_PARAMETERS =
            List.of("ssl", "sslmode", "sslrootcert", "sslfactory", "sslcert", "sslkey", "sslpassword");

    private PgJdbcSettings() {}

    /**
     * The driver properties for {@code options}; a TLS context of the provider's own is registered
     * under {@code tlsContextId} (see {@link #tlsContext}).
     */
    static Properties properties(PostgresLockOptions options, String tlsContextId) {
        Properties p = new Properties();
        long connectSeconds = Math.max(1, (options.timeouts().connectTimeout().toMillis() + 999) / 1000);
        p.setProperty("connectTimeout", Long.toString(connectSeconds));
        p.setProperty("loginTimeout", Long.toString(connectSeconds));
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("ApplicationName", "distlock");
        options.prepareThreshold().ifPresent(n -> p.setProperty("prepareThreshold", Integer.toString(n)));
        TlsOptions tls = options.tls();
        if (tls.isEnabled()) {
            p.setProperty("sslmode", "verify-full");
            if (tls.trustCertificates().isPresent()) {
                p.setProperty("sslrootcert", tls.trustCertificates().get().toString());
            } else if (tlsContextId != null) {
                p.setProperty("sslfactory", ContextSocketFactory.class.getName());
                p.setProperty(ContextSocketFactory.PROPERTY, tlsContextId);
            } else {
                p.setProperty("sslfactory", "org.postgresql.ssl.DefaultJavaSSLFactory");
            }
        }
        return p;
    }

    /**
     * The TLS context the provider must build and register itself: a caller's {@code SSLContext}, or
     * one trusting a key store's CAs; {@code null} when the driver builds its own (PEM trust, the
     * JVM's default trust) or TLS is off.
     *
     * @throws IllegalArgumentException if the trust store cannot be read
     */
    static SSLContext tlsContext(TlsOptions tls) {
        if (!tls.isEnabled()) {
            return null;
        }
        if (tls.sslContext().isPresent()) {
            return tls.sslContext().get();
        }
        if (tls.trustStore().isEmpty()) {
            return null;
        }
        Path store = tls.trustStore().get();
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance(keyStoreType(store));
            ks.load(in, tls.trustStorePassword().map(String::toCharArray).orElse(null));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            // the message names the file, never the password
            throw new IllegalArgumentException(
                    "tls.trustStore " + store + " cannot be read as a key store: " + e.getMessage(), e);
        }
    }

    /** PKCS12 for {@code .p12} and {@code .pfx} files, JKS otherwise (the JDK's JKS type also reads PKCS#12). */
    private static String keyStoreType(Path store) {
        String lower = store.getFileName().toString().toLowerCase(Locale.ROOT);
        return lower.endsWith(".p12") || lower.endsWith(".pfx") ? "PKCS12" : "JKS";
    }

    /**
     * @throws IllegalArgumentException if {@code jdbcUrl} sets TLS parameters while {@code tls} is on
     */
    static void rejectTlsInUrl(String jdbcUrl, TlsOptions tls) {
        int q = jdbcUrl.indexOf('?');
        if (!tls.isEnabled() || q < 0) {
            return;
        }
        for (String pair : jdbcUrl.substring(q + 1).split("&")) {
            String key = pair.split("=", 2)[0];
            if (TLS_URL_PARAMETERS.contains(key.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("jdbcUrl sets TLS parameter '" + key
                        + "' while options.tls is on: configure TLS in one place (PostgresLockOptions.tls)");
            }
        }
    }
}
