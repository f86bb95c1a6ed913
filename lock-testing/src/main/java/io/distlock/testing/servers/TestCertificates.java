package io.distlock.testing.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away certificate authority and one server certificate signed by it, made with the {@code
 * openssl} command line tool (EC P-256 keys, valid for two days) in a temporary directory, for TLS
 * tests against real servers.
 *
 * <p>The server certificate names {@code 127.0.0.1}, {@code ::1} and {@code localhost} (subject
 * alternative names), so a client that verifies host names accepts it on loopback. Both PEM files
 * (for Redis, etcd, MariaDB) and PKCS#12 key and trust stores (for Java servers such as ZooKeeper)
 * are written.
 *
 * <pre>{@code
 * try (TestCertificates certs = TestCertificates.generate();
 *         RedisServer redis = RedisServer.builder().tls(certs).start()) {
 *     // trust certs.caCertificate() in the client
 * }
 * }</pre>
 *
 * {@link #close()} deletes the directory; a directory left by a killed JVM is removed by the next
 * run, like server directories.
 */
public final class TestCertificates implements AutoCloseable {
    /** The password of the PKCS#12 key and trust stores (also {@link #storePassword()}). */
    public static final String STORE_PASSWORD = "distlock-test-store";

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * Generates a CA and a server certificate.
     *
     * @throws ServerStartException if {@code openssl} is missing or fails
     */
    public static TestCertificates generate() {
        Path dir = ServerDirs.create("certs");
        TestCertificates c = new TestCertificates(dir);
        try {
            Files.writeString(
                    dir.resolve("server.ext"),
                    "basicConstraints=CA:FALSE\n"
                            + "keyUsage=critical,digitalSignature,keyEncipherment\n"
                            + "extendedKeyUsage=serverAuth,clientAuth\n"
                            + "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\n",
                    StandardCharsets.US_ASCII);
            openssl(
                    dir,
                    "req",
                    "-x509",
                    "-new",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:prime256v1",
                    "-nodes",
                    "-keyout",
                    "ca.key",
                    "-out",
                    "ca.pem",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=distlock-test-ca",
                    "-addext",
                    "basicConstraints=critical,CA:TRUE",
                    "-addext",
                    "keyUsage=critical,keyCertSign,cRLSign");
            openssl(
                    dir,
                    "req",
                    "-new",
                    "-newkey",
                    "ec",
                    "-pkeyopt",
                    "ec_paramgen_curve:prime256v1",
                    "-nodes",
                    "-keyout",
                    "server.key",
                    "-out",
                    "server.csr",
                    "-subj",
                    "/CN=localhost");
            openssl(
                    dir,
                    "x509",
                    "-req",
                    "-in",
                    "server.csr",
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-out",
                    "server.pem",
                    "-days",
                    "2",
                    "-extfile",
                    "server.ext");
            X509Certificate ca = certificate(dir.resolve("ca.pem"));
            X509Certificate server = certificate(dir.resolve("server.pem"));
            PrivateKey key = privateKey(dir.resolve("server.key"));
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(null, null);
            keyStore.setKeyEntry("server", key, STORE_PASSWORD.toCharArray(), new Certificate[] {server, ca});
            store(keyStore, dir.resolve("server.p12"));
            store(trustStoreOf(ca), dir.resolve("trust.p12"));
            return c;
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            c.close();
            throw new ServerStartException("cannot generate test certificates with openssl: " + e, e);
        }
    }

    private static void openssl(Path dir, String... args) throws IOException {
        Path binary = Binaries.require("openssl", "openssl", "/usr/bin/openssl");
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile())
                .start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("openssl " + args[0] + " did not finish within 30 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running openssl", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("openssl " + String.join(" ", args) + " exited with " + p.exitValue() + ": "
                    + Files.readString(dir.resolve("openssl.log")));
        }
    }

    private static X509Certificate certificate(Path pem) throws IOException, GeneralSecurityException {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
        String text = Files.readString(pem, StandardCharsets.US_ASCII);
        String base64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("EC")
                .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }

    private static KeyStore trustStoreOf(X509Certificate ca) throws IOException, GeneralSecurityException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("distlock-test-ca", ca);
        return trust;
    }

    private static void store(KeyStore ks, Path file) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(file)) {
            ks.store(out, STORE_PASSWORD.toCharArray());
        }
    }

    /** The directory holding every file. */
    public Path dir() {
        return dir;
    }

    /** The CA certificate (PEM): what a client must trust. */
    public Path caCertificate() {
        return dir.resolve("ca.pem");
    }

    /** The server certificate (PEM), signed by the CA. */
    public Path serverCertificate() {
        return dir.resolve("server.pem");
    }

    /** The server's private key (PEM, PKCS#8, unencrypted). */
    public Path serverKey() {
        return dir.resolve("server.key");
    }

    /** PKCS#12 key store with the server key and its chain (server, CA); password {@link #storePassword()}. */
    public Path serverKeyStore() {
        return dir.resolve("server.p12");
    }

    /** PKCS#12 trust store with the CA certificate; password {@link #storePassword()}. */
    public Path trustStore() {
        return dir.resolve("trust.p12");
    }

    /** Password of both PKCS#12 stores. */
    public String storePassword() {
        return STORE_PASSWORD;
    }

    /** A client-side SSL socket factory that trusts only this CA (TLS 1.2/1.3, JDK defaults). */
    public SSLSocketFactory clientSocketFactory() {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trustStoreOf(certificate(caCertificate())));
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx.getSocketFactory();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build an SSL context for " + caCertificate() + ": " + e, e);
        }
    }

    /** The CA certificate in PEM form. */
    public String caCertificatePem() {
        try {
            return Files.readString(caCertificate(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + caCertificate(), e);
        }
    }

    /** Deletes the directory (idempotent). */
    @Override
    public void close() {
        ServerDirs.deleteQuietly(dir);
    }

    @Override
    public String toString() {
        return "TestCertificates{" + dir + '}';
    }
}
