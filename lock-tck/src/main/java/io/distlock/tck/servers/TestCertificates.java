package io.distlock.tck.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority and a server certificate it signed, for {@code 127.0.0.1} and
 * {@code localhost} (subject alternative names), generated with the {@code openssl} command in a
 * temporary directory (EC P-256 keys, valid 2 days). Also a PKCS#12 trust store holding the CA, for
 * Java clients. {@link #close()} deletes the files.
 *
 * <pre>{@code
 * try (TestCertificates certs = TestCertificates.create();
 *         EtcdServer etcd = EtcdServer.builder().tls(certs).start()) {
 *     ... trust certs.caCertificate() ...
 * }
 * }</pre>
 */
public final class TestCertificates implements AutoCloseable {
    /** The password of {@link #trustStore()}. */
    public static final String TRUST_STORE_PASSWORD = "distlock-trust";

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * Generates the CA and the server certificate.
     *
     * @throws ServerStartException if {@code openssl} is missing or fails
     */
    public static TestCertificates create() {
        Path openssl = Binaries.require("openssl", "openssl", "/usr/bin/openssl");
        Path dir = ServerDirs.create("certs");
        TestCertificates certs = new TestCertificates(dir);
        try {
            Files.writeString(
                    dir.resolve("server.ext"),
                    "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\n"
                            + "basicConstraints=CA:FALSE\n"
                            + "keyUsage=digitalSignature,keyEncipherment\n"
                            + "extendedKeyUsage=serverAuth,clientAuth\n");
            run(dir, openssl, "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "ca-ec.key");
            run(dir, openssl, "pkcs8", "-topk8", "-nocrypt", "-in", "ca-ec.key", "-out", "ca.key");
            run(
                    dir,
                    openssl,
                    "req",
                    "-x509",
                    "-new",
                    "-key",
                    "ca.key",
                    "-sha256",
                    "-days",
                    "2",
                    "-subj",
                    "/CN=distlock test CA",
                    "-out",
                    "ca.pem");
            run(dir, openssl, "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "server-ec.key");
            run(dir, openssl, "pkcs8", "-topk8", "-nocrypt", "-in", "server-ec.key", "-out", "server.key");
            run(dir, openssl, "req", "-new", "-key", "server.key", "-subj", "/CN=127.0.0.1", "-out", "server.csr");
            run(
                    dir,
                    openssl,
                    "x509",
                    "-req",
                    "-in",
                    "server.csr",
                    "-CA",
                    "ca.pem",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-days",
                    "2",
                    "-sha256",
                    "-extfile",
                    "server.ext",
                    "-out",
                    "server.pem");
            writeTrustStore(dir.resolve("ca.pem"), dir.resolve("truststore.p12"));
            return certs;
        } catch (IOException | GeneralSecurityException e) {
            certs.close();
            throw new ServerStartException("cannot generate test certificates in " + dir + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            certs.close();
            throw new ServerStartException("interrupted while generating test certificates", e);
        } catch (RuntimeException e) {
            certs.close();
            throw e;
        }
    }

    private static void run(Path dir, Path openssl, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(openssl.toString());
        cmd.addAll(List.of(args));
        Path log = dir.resolve("openssl.log");
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new ServerStartException("openssl " + args[0] + " did not finish within 30 s");
        }
        if (p.exitValue() != 0) {
            throw new ServerStartException(
                    "openssl " + String.join(" ", args) + " failed: " + SupervisedProcess.tail(log, 2000));
        }
    }

    private static void writeTrustStore(Path caPem, Path out) throws IOException, GeneralSecurityException {
        X509Certificate ca;
        try (InputStream in = Files.newInputStream(caPem)) {
            ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setCertificateEntry("distlock-test-ca", ca);
        try (OutputStream o = Files.newOutputStream(out)) {
            ks.store(o, TRUST_STORE_PASSWORD.toCharArray());
        }
    }

    /** PEM file of the CA certificate (what clients trust). */
    public Path caCertificate() {
        return dir.resolve("ca.pem");
    }

    /** PEM file of the server certificate (CN and SAN 127.0.0.1, SAN localhost and ::1). */
    public Path serverCertificate() {
        return dir.resolve("server.pem");
    }

    /** PEM file of the server's private key (PKCS#8, unencrypted). */
    public Path serverKey() {
        return dir.resolve("server.key");
    }

    /** PKCS#12 trust store with the CA certificate; password {@value #TRUST_STORE_PASSWORD}. */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /** Deletes the files. */
    @Override
    public void close() {
        ServerDirs.deleteQuietly(dir);
    }
}
