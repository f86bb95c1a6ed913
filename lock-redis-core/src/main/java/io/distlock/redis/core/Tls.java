package io.distlock.redis.core;

import io.distlock.TlsOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import redis.clients.jedis.DefaultJedisClientConfig;

/**
 * Turns {@link TlsOptions} into Jedis settings: a socket factory that trusts what the options name
 * (a PEM file of CA certificates, a key store, a ready {@link SSLContext}, or the JVM's default
 * trust store), and SSL parameters that verify the server's host name.
 */
public final class Tls {
    private Tls() {}

    /**
     * Switches {@code config} to TLS as {@code tls} says, with {@linkplain #verifyingHostName()
     * host-name verification}; leaves it alone if TLS is off.
     *
     * @throws IllegalArgumentException if the trust file or store cannot be read, naming the option
     *     and the file (never a password)
     */
    public static DefaultJedisClientConfig.Builder configure(DefaultJedisClientConfig.Builder config, TlsOptions tls) {
        if (!tls.isEnabled()) {
            return config;
        }
        return config.ssl(true).sslSocketFactory(socketFactory(tls)).sslParameters(verifyingHostName());
    }

    /** The socket factory for {@code tls}'s trust source. */
    static SSLSocketFactory socketFactory(TlsOptions tls) {
        if (tls.sslContext().isPresent()) {
            return tls.sslContext().get().getSocketFactory();
        }
        if (tls.trustCertificates().isPresent()) {
            return trusting(pemCertificates(tls.trustCertificates().get()));
        }
        if (tls.trustStore().isPresent()) {
            return trusting(
                    keyStore(tls.trustStore().get(), tls.trustStorePassword().orElse(null)));
        }
        return (SSLSocketFactory) SSLSocketFactory.getDefault();
    }

    /** A key store holding exactly the X.509 certificates of the PEM file {@code pem}. */
    private static KeyStore pemCertificates(Path pem) {
        try (InputStream in = Files.newInputStream(pem)) {
            Collection<? extends Certificate> certs =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certs.isEmpty()) {
                throw new IllegalArgumentException(
                        "trustCertificates must hold at least one PEM certificate (none in '" + pem + "')");
            }
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            int i = 0;
            for (Certificate c : certs) {
                trust.setCertificateEntry("ca-" + i++, c);
            }
            return trust;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "trustCertificates '" + pem + "' must be a readable PEM file of CA certificates: " + e.getMessage(),
                    e);
        }
    }

    /** The key store {@code file} (PKCS#12 or JKS, recognised by its content). */
    private static KeyStore keyStore(Path file, String password) {
        try {
            return KeyStore.getInstance(file.toFile(), password == null ? null : password.toCharArray());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "trustStore '" + file + "' must be a readable key store (PKCS#12 or JKS) with the given password: "
                            + e.getMessage(),
                    e);
        }
    }

    private static SSLSocketFactory trusting(KeyStore trust) {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the TLS trust could not be set up: " + e.getMessage(), e);
        }
    }

    /**
     * SSL parameters that make the handshake verify the server's host name (or IP address) against
     * its certificate, as HTTPS does. Plain JSSE sockets do not check it unless asked.
     */
    public static SSLParameters verifyingHostName() {
        SSLParameters p = new SSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        return p;
    }
}
