package io.distlock.testing.servers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A single-member etcd 3.4 on free loopback ports (client and peer), with {@code
 * --unsafe-no-fsync}: a {@link #kill()} may lose the last writes, which test speed accepts. In
 * docker mode ({@link ServerMode}) it runs in a container of image {@code distlock.image.etcd} with
 * host networking.
 *
 * <pre>{@code
 * try (EtcdServer etcd = EtcdServer.start()) {
 *     LockProviders.open(etcd.uri());
 * }
 * }</pre>
 */
public final class EtcdServer extends DelegatingTestServer {

    private final boolean tls;

    private EtcdServer(TestServer delegate) {
        this(delegate, false);
    }

    private EtcdServer(TestServer delegate, boolean tls) {
        super(delegate);
        this.tls = tls;
    }

    /** A builder for a member with options (TLS); {@link #start()} is {@code builder().start()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options of a single member. */
    public static final class Builder {
        private TestCertificates tls;
        private boolean clientCertAuth;

        private Builder() {}

        /**
         * Serves clients over TLS only ({@code https}), with {@code certs}' server certificate and key
         * ({@code --cert-file}, {@code --key-file}); clients trust {@link TestCertificates#caCertificate()}.
         * Readiness is probed on a plain-HTTP metrics port ({@code --listen-metrics-urls}). Always a
         * local process (also in docker mode); {@link #put}/{@link #get} do not work then.
         */
        public Builder tls(TestCertificates certs) {
            this.tls = certs;
            return this;
        }

        /**
         * With {@link #tls}: clients must also present a certificate signed by the test CA (mutual
         * TLS, {@code --client-cert-auth}); {@link TestCertificates#serverCertificate()} and {@link
         * TestCertificates#serverKey()} serve as one (the certificate allows client authentication).
         */
        public Builder clientCertAuth(boolean required) {
            this.clientCertAuth = required;
            return this;
        }

        /** Starts the member and waits until it is healthy. */
        public EtcdServer start() {
            if (tls == null) {
                return EtcdServer.start();
            }
            TestCertificates certs = tls;
            boolean mutual = clientCertAuth;
            return new EtcdServer(
                    ServerProcess.startWithRetry(() -> {
                        EtcdCluster.Member m = EtcdCluster.member("etcd", "default", Ports.free(), Ports.free());
                        return m.newProcess(
                                m.name() + "=" + m.peerUrl(),
                                "distlock-" + m.dir().getFileName(),
                                "new",
                                certs,
                                Ports.free(),
                                mutual);
                    }),
                    true);
        }
    }

    /** Starts a member and waits until {@code /health} reports true. */
    public static EtcdServer start() {
        if (ServerMode.useDocker()) {
            return new EtcdServer(DockerServers.etcd());
        }
        return new EtcdServer(ServerProcess.startWithRetry(() -> {
            EtcdCluster.Member m = EtcdCluster.member("etcd", "default", Ports.free(), Ports.free());
            return m.newProcess(
                    m.name() + "=" + m.peerUrl(), "distlock-" + m.dir().getFileName());
        }));
    }

    /** {@code http://127.0.0.1:port}, or {@code https://127.0.0.1:port} with TLS. */
    public String endpoint() {
        return (tls ? "https://" : "http://") + address();
    }

    /** Whether clients must connect with TLS. */
    public boolean tls() {
        return tls;
    }

    /** {@code etcd://127.0.0.1:port}. */
    public String uri() {
        return "etcd://" + address();
    }

    /** Puts {@code key} = {@code value} through the HTTP JSON gateway. */
    public void put(String key, String value) throws IOException {
        Probes.httpPost(
                host(), port(), "/v3/kv/put", "{\"key\":\"" + b64(key) + "\",\"value\":\"" + b64(value) + "\"}");
    }

    /** The value of {@code key} read through the HTTP JSON gateway, or null. */
    public String get(String key) throws IOException {
        String body = Probes.httpPost(host(), port(), "/v3/kv/range", "{\"key\":\"" + b64(key) + "\"}");
        String value = Probes.jsonField(body, "value");
        return value == null ? null : new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
