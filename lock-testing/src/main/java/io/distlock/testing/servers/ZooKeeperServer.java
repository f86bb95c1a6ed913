package io.distlock.testing.servers;

import java.util.Objects;

/**
 * A standalone ZooKeeper 3.8 server in its own JVM (the Debian {@code zookeeper} jar), with {@code
 * forceSync=no} and {@code tickTime=200}. Ready when {@code srvr} answers; see {@link
 * ZooKeeperEnsemble} for three servers.
 */
public final class ZooKeeperServer {
    private ZooKeeperServer() {}

    /** Starts a standalone server and waits until it serves requests. */
    public static TestServer start() {
        return ServerProcess.startWithRetry(() -> {
            ServerProcess p = ZooKeeperEnsemble.newProcess("zookeeper", 1, Ports.free(), "");
            return p;
        });
    }

    /**
     * Starts a standalone server that serves TLS clients on {@link TlsServer#securePort()} ({@code
     * secureClientPort}, Netty connection factory, key store {@link TestCertificates#serverKeyStore()},
     * client certificates not required). Its plain {@link TestServer#port()} stays open for the
     * readiness probe and test administration; lock clients under test use the secure port.
     */
    public static TlsServer startWithTls(TestCertificates certificates) {
        Objects.requireNonNull(certificates, "certificates must not be null");
        int[] securePort = new int[1];
        ServerProcess p = ServerProcess.startWithRetry(() -> {
            securePort[0] = Ports.free();
            String config = "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n"
                    + "secureClientPort=" + securePort[0] + "\n"
                    + "secureClientPortAddress=127.0.0.1\n"
                    + "ssl.keyStore.location=" + certificates.serverKeyStore() + "\n"
                    + "ssl.keyStore.password=" + certificates.storePassword() + "\n"
                    + "ssl.keyStore.type=PKCS12\n"
                    + "ssl.trustStore.location=" + certificates.trustStore() + "\n"
                    + "ssl.trustStore.password=" + certificates.storePassword() + "\n"
                    + "ssl.trustStore.type=PKCS12\n"
                    + "ssl.clientAuth=none\n";
            return ZooKeeperEnsemble.newProcess("zookeeper-tls", 1, Ports.free(), "", config);
        });
        return new TlsServer(p, securePort[0]);
    }

    /** A server with a TLS client port besides its plain one. */
    public static final class TlsServer extends DelegatingTestServer {
        private final int securePort;

        TlsServer(TestServer delegate, int securePort) {
            super(delegate);
            this.securePort = securePort;
        }

        /** The TLS client port ({@code secureClientPort}). */
        public int securePort() {
            return securePort;
        }

        /** {@code 127.0.0.1:securePort}. */
        public String secureConnectString() {
            return host() + ":" + securePort;
        }
    }
}
