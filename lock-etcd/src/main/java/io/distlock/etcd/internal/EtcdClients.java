package io.distlock.etcd.internal;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.TlsOptions;
import io.distlock.etcd.EtcdLockOptions;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the jetcd client of a provider from its endpoints and {@link EtcdLockOptions}. How the
 * options map to jetcd:
 *
 * <ul>
 *   <li>{@code timeouts.connectTimeout} → jetcd's {@code connectTimeout}: the TCP connect timeout of
 *       its gRPC (Netty) channel. The TLS handshake and authentication that follow are part of the
 *       first request, bounded by the request timeout.
 *   <li>{@code timeouts.requestTimeout} → a deadline on every unary gRPC call ({@link ChannelTap}),
 *       jetcd's {@code retryMaxDuration}, and a retry backoff that fits inside it.
 *   <li>{@code credentials} → jetcd's user and password (etcd's {@code Authenticate}; jetcd keeps
 *       and refreshes the token).
 *   <li>{@code tls} → a Netty {@code SslContext}: trust from the PEM file or the key store (the
 *       JVM's default trust without either), the PEM client certificate and key if set.
 * </ul>
 *
 * Internal.
 */
final class EtcdClients {
    /** gRPC's HTTP/2 frame logger: at DEBUG it writes every frame in hex. */
    static final String GRPC_FRAME_LOGGER = "io.grpc.netty.NettyClientHandler";

    private static final Logger log = LoggerFactory.getLogger(EtcdClients.class);

    private EtcdClients() {}

    /**
     * The client for {@code endpointUris} ({@code http(s)://host:port}, all of one scheme; {@code
     * https}: TLS), its calls going through {@code tap}.
     */
    static Client build(List<String> endpointUris, EtcdLockOptions o, ChannelTap tap) {
        Duration requestTimeout = o.timeouts().requestTimeout();
        ClientBuilder cb = Client.builder()
                .endpoints(endpointUris.toArray(new String[0]))
                .connectTimeout(o.timeouts().connectTimeout())
                .retryMaxDuration(requestTimeout)
                // jetcd's default backoff (500 ms to 2.5 s) must fit inside retryMaxDuration, or every
                // request fails with "maxDuration must be > the delay" for timeouts under 500 ms
                .retryChronoUnit(ChronoUnit.MILLIS)
                .retryDelay(retryDelayMillis(requestTimeout))
                .retryMaxDelay(retryMaxDelayMillis(requestTimeout))
                // fail fast (and retry) while no connection is ready, instead of waiting silently until
                // the deadline: the caller then sees why (refused, TLS handshake failed, ...)
                .waitForReady(false)
                .interceptor(tap); // a deadline on every unary call; the shared watch stream's channel
        if (o.credentials().isPresent()) {
            Credentials c = o.credentials().get();
            cb.user(ByteSequence.from(c.user().orElseThrow(), StandardCharsets.UTF_8));
            cb.password(ByteSequence.from(c.password(), StandardCharsets.UTF_8));
            warnIfGrpcFramesAreLogged();
            List<String> clear = credentialsInClear(endpointUris, o);
            if (!clear.isEmpty()) {
                log.warn(
                        "distlock.etcd.credentials_in_clear endpoints={}: the etcd user and password go to"
                                + " these endpoints without TLS; use https endpoints (tls)",
                        clear);
            }
        }
        TlsOptions tls = o.tls();
        if (endpointUris.stream().anyMatch(u -> u.startsWith("https://"))) {
            try {
                cb.sslContext(ssl -> configure(ssl, tls));
            } catch (SSLException | IllegalArgumentException e) {
                throw new LockConfigurationException(
                        "cannot use " + tls + ": " + e.getMessage(), EtcdDriver.BACKEND, e);
            }
        }
        return cb.build();
    }

    private static void configure(SslContextBuilder ssl, TlsOptions tls) {
        if (tls.trustCertificates().isPresent()) {
            ssl.trustManager(tls.trustCertificates().get().toFile());
        } else if (tls.trustStore().isPresent()) {
            ssl.trustManager(trustStore(tls));
        }
        if (tls.clientCertificate().isPresent()) {
            ssl.keyManager(
                    tls.clientCertificate().get().toFile(),
                    tls.clientKey().orElseThrow().toFile());
        }
    }

    private static TrustManagerFactory trustStore(TlsOptions tls) {
        char[] password = tls.trustStorePassword().map(String::toCharArray).orElse(null);
        try (InputStream in = Files.newInputStream(tls.trustStore().get())) {
            // PKCS12 or JKS: the JDK's default key store type reads both
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(in, password);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            return tmf;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "cannot read trustStore " + tls.trustStore().get() + " (wrong password, or not a PKCS#12"
                            + " or JKS store): " + e.getMessage(),
                    e);
        }
    }

    /** A fifth of the request timeout, at least 1 ms, at most jetcd's default of 500 ms. */
    static long retryDelayMillis(Duration requestTimeout) {
        return Math.max(1, Math.min(500, requestTimeout.toMillis() / 5));
    }

    /** Half the request timeout, at most jetcd's default of 2.5 s, always above the first delay. */
    static long retryMaxDelayMillis(Duration requestTimeout) {
        return Math.max(retryDelayMillis(requestTimeout) + 1, Math.min(2_500, requestTimeout.toMillis() / 2));
    }

    /**
     * gRPC (grpc-netty) logs every HTTP/2 frame in hex on {@link #GRPC_FRAME_LOGGER} at DEBUG,
     * including jetcd's {@code Authenticate} request, which carries the user name and password, and
     * the {@code token} header of every later call. Nothing in SLF4J lets a library turn a logger
     * off, so warn (without any secret) when that logger is enabled.
     */
    private static void warnIfGrpcFramesAreLogged() {
        boolean slf4j = LoggerFactory.getLogger(GRPC_FRAME_LOGGER).isDebugEnabled();
        boolean jul = java.util.logging.Logger.getLogger(GRPC_FRAME_LOGGER).isLoggable(java.util.logging.Level.FINE);
        if (slf4j || jul) {
            log.warn(
                    "distlock.etcd.grpc_frames_logged logger={}: at DEBUG gRPC writes every HTTP/2 frame in hex,"
                            + " including the etcd password (Authenticate request) and the auth token; set that"
                            + " logger to INFO or above",
                    GRPC_FRAME_LOGGER);
        }
    }

    /**
     * The endpoints that would receive credentials in clear: plain {@code http} to a host that is
     * not a loopback address ({@code localhost} or a literal loopback IP; other names are not
     * resolved and count as remote). Empty when no credentials are set.
     */
    static List<String> credentialsInClear(List<String> endpointUris, EtcdLockOptions o) {
        if (o.credentials().isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String uri : endpointUris) {
            URI u = URI.create(uri);
            if (!"https".equals(u.getScheme()) && (u.getHost() == null || !isLoopback(u.getHost()))) {
                out.add(uri);
            }
        }
        return out;
    }

    private static boolean isLoopback(String host) {
        if (host.equalsIgnoreCase("localhost")) {
            return true;
        }
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (!literal.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
            return false; // a name: not resolved here
        }
        try {
            return InetAddress.getByName(literal).isLoopbackAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
