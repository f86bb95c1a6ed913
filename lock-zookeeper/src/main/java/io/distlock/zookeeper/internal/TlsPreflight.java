package io.distlock.zookeeper.internal;

import io.distlock.LockConfigurationException;
import io.distlock.TlsOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.SSLContextAndOptions;
import org.apache.zookeeper.common.X509Exception;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a TLS configuration before the ZooKeeper client uses it. ZooKeeper's client only logs a
 * failed handshake and tries again until its connection timeout, which would make a trust that does
 * not accept the servers look like an outage. So, before the client starts, the same TLS context
 * (built by ZooKeeper's own {@code ClientX509Util} from the same settings) makes one handshake with
 * the servers in turn, until one completes or is refused:
 *
 * <ul>
 *   <li>the trust cannot be loaded (unreadable file, wrong store password), the server's
 *       certificate is not trusted or does not name the host, or the server refuses ours →
 *       {@link LockConfigurationException}, at once;
 *   <li>a handshake completes → the client starts;
 *   <li>no server answers (refused, timed out, not speaking TLS) → the client starts, and fails as
 *       an outage if it cannot connect either.
 * </ul>
 *
 * The whole check takes at most the connect timeout.
 */
final class TlsPreflight {
    private static final Logger log = LoggerFactory.getLogger(TlsPreflight.class);
    // TLS alerts a server sends when it does not accept the client's certificate (or its absence)
    private static final Set<String> REFUSALS =
            Set.of("bad_certificate", "certificate_required", "unknown_ca", "access_denied", "certificate_unknown");

    private TlsPreflight() {}

    /**
     * @param servers {@code host:port[,host:port...]}
     * @throws LockConfigurationException if the trust cannot be loaded or a TLS handshake fails on
     *     a certificate
     */
    static void check(String servers, ZKClientConfig config, TlsOptions tls, Duration connectTimeout) {
        SSLContextAndOptions context;
        try (ClientX509Util x509 = new ClientX509Util()) {
            context = x509.createSSLContextAndOptions(config);
        } catch (X509Exception.SSLContextException | RuntimeException e) {
            throw new LockConfigurationException(
                    "TLS trust " + tls + " could not be loaded: " + rootMessage(e), ZkErrors.BACKEND, e);
        }
        long deadline = System.nanoTime() + connectTimeout.toNanos();
        for (String server : servers.split(",")) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return;
            }
            int colon = server.lastIndexOf(':');
            String host = colon < 0 ? server : server.substring(0, colon);
            int port = colon < 0 ? 2181 : Integer.parseInt(server.substring(colon + 1));
            if (handshake(context, host, port, (int) Math.max(1, left / 1_000_000), tls)) {
                return;
            }
        }
    }

    /** One handshake: {@code true} if it completed, {@code false} if the server gave no answer. */
    private static boolean handshake(
            SSLContextAndOptions context, String host, int port, int timeoutMs, TlsOptions tls) {
        try (SSLSocket socket = context.createSSLSocket()) {
            socket.connect(new InetSocketAddress(host, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.startHandshake();
            return true;
        } catch (SSLHandshakeException e) {
            if (certificateFailure(e)) {
                throw new LockConfigurationException(
                        "TLS handshake with ZooKeeper server " + host + ":" + port + " failed on a certificate"
                                + " (trust " + tls + "): " + rootMessage(e),
                        ZkErrors.BACKEND,
                        e);
            }
            log.debug("distlock.zookeeper.tls_preflight_no_answer server={}:{}", host, port, e);
            return false;
        } catch (IOException | RuntimeException e) {
            log.debug("distlock.zookeeper.tls_preflight_no_answer server={}:{}", host, port, e);
            return false;
        }
    }

    /** Our side rejected the server's certificate, or the server rejected ours. */
    private static boolean certificateFailure(SSLHandshakeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CertificateException) {
                return true;
            }
        }
        String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        return message.contains("received fatal alert") && REFUSALS.stream().anyMatch(message::contains);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root.getMessage() + ")";
    }
}
