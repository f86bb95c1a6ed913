package io.distlock.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import redis.clients.jedis.DefaultJedisClientConfig;

/**
 * TLS settings shared by lock-redis and lock-redlock: a socket factory that trusts the CA
 * certificates of a PEM file, and SSL parameters that verify the server's host name.
 */
public final class Tls {
    private Tls() {}

    /**
     * The socket factory to use: {@code given} if not null, else one trusting only the certificates
     * in {@code caFile} if not null, else the JVM's default trust store.
     *
     * @throws IllegalArgumentException if {@code caFile} cannot be read or holds no certificate
     */
    public static SSLSocketFactory socketFactory(SSLSocketFactory given, Path caFile) {
        if (given != null) {
            return given;
        }
        if (caFile == null) {
            return (SSLSocketFactory) SSLSocketFactory.getDefault();
        }
        return trusting(caFile);
    }

    /**
     * A factory whose trust store holds exactly the X.509 certificates of the PEM file {@code
     * caFile}.
     *
     * @throws IllegalArgumentException if the file cannot be read or holds no certificate
     */
    public static SSLSocketFactory trusting(Path caFile) {
        Objects.requireNonNull(caFile, "tlsCaFile must not be null");
        try (InputStream in = Files.newInputStream(caFile)) {
            Collection<? extends Certificate> certs =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certs.isEmpty()) {
                throw new IllegalArgumentException(
                        "tlsCaFile must hold at least one PEM certificate (none in '" + caFile + "')");
            }
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            int i = 0;
            for (Certificate c : certs) {
                trust.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx.getSocketFactory();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "tlsCaFile '" + caFile + "' must be a readable PEM file of CA certificates: " + e.getMessage(), e);
        }
    }

    /**
     * Switches {@code config} to TLS with the socket factory {@link #socketFactory(SSLSocketFactory,
     * Path) socketFactory(given, caFile)} and {@linkplain #verifyingHostName() host-name
     * verification}.
     *
     * @throws IllegalArgumentException if {@code caFile} cannot be read or holds no certificate
     */
    public static DefaultJedisClientConfig.Builder enable(
            DefaultJedisClientConfig.Builder config, SSLSocketFactory given, Path caFile) {
        return config.ssl(true).sslSocketFactory(socketFactory(given, caFile)).sslParameters(verifyingHostName());
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
