package io.distlock.etcd;

import io.distlock.Credentials;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Opens {@code etcd://[user:password@]host1:2379,host2:2379[/prefix/]?param=value} through {@link
 * io.distlock.LockProviders#open(URI)}. A host without a port gets 2379. Parameters:
 *
 * <ul>
 *   <li>{@code leaseTime}, {@code autoRenew}, {@code maxHoldTime}, {@code maxRenewals}: common to
 *       every backend ({@link LockOptions});
 *   <li>{@code connectTimeout}, {@code requestTimeout} ({@link TimeoutOptions});
 *   <li>{@code keyPrefix} (or the URI's path);
 *   <li>{@code user}, {@code password} (or the URI's user info);
 *   <li>{@code tls} ({@code true}: TLS with the JVM's default trust unless a trust source is given),
 *       {@code trustCertificates} (a PEM file), {@code trustStore} and {@code trustStorePassword} (a
 *       PKCS#12 or JKS store), {@code clientCertificate} and {@code clientKey} (PEM files,
 *       together: mutual TLS); each of these turns TLS on ({@link TlsOptions});
 *   <li>{@code perLockLease} ({@code true}: one etcd lease per acquisition instead of the session
 *       lease).
 * </ul>
 *
 * Unknown parameters are rejected with a {@link io.distlock.LockConfigurationException} naming them;
 * messages never contain the password.
 */
public final class EtcdLockProviderFactory implements LockProviderFactory {
    private static final int DEFAULT_PORT = 2379;

    @Override
    public Set<String> schemes() {
        return Set.of("etcd");
    }

    @Override
    public LockProvider open(URI uri) {
        return open(uri, UnaryOperator.identity());
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        UriParameters params = UriParameters.of(uri, "etcd");
        LockOptions lockOptions = LockProviderFactory.customize(params.lockOptions(LockOptions.defaults()), customizer);
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw params.error("etcd URI needs host:port[,host:port...]");
        }
        String user = null;
        String password = null;
        int at = authority.lastIndexOf('@');
        if (at >= 0) {
            String info = authority.substring(0, at);
            authority = authority.substring(at + 1);
            int colon = info.indexOf(':');
            user = UriParameters.decodeComponent(colon < 0 ? info : info.substring(0, colon));
            password = colon < 0 ? null : UriParameters.decodeComponent(info.substring(colon + 1));
        }
        if (authority.isEmpty()) {
            throw params.error("etcd URI needs host:port[,host:port...] after the user info");
        }
        user = params.string("user", user);
        password = params.string("password", password);
        List<String> endpoints = new ArrayList<>();
        for (String hp : authority.split(",")) {
            if (hp.isBlank()) {
                throw params.error("empty endpoint in the host list");
            }
            endpoints.add(hp.indexOf(':') < 0 || hp.endsWith("]") ? hp + ":" + DEFAULT_PORT : hp);
        }
        EtcdLockProvider.Builder provider = EtcdLockProvider.builder().lockOptions(lockOptions);
        EtcdLockOptions.Builder b = EtcdLockOptions.builder();
        try {
            provider.endpoints(endpoints);
            b.timeouts(timeouts(params));
            String prefix = params.string("keyPrefix", null);
            if (prefix == null && uri.getRawPath() != null && uri.getRawPath().length() > 1) {
                prefix = UriParameters.decodeComponent(uri.getRawPath());
                if (!prefix.endsWith("/")) {
                    prefix = prefix + "/";
                }
            }
            if (prefix != null) {
                b.keyPrefix(prefix);
            }
            if (user != null || password != null) {
                if (user == null || user.isEmpty()) {
                    throw new IllegalArgumentException("a password needs a user (etcd has no default user)");
                }
                b.credentials(Credentials.of(user, password == null ? "" : password));
            }
            b.perLockLease(Boolean.TRUE.equals(params.bool("perLockLease", false)));
            b.tls(tls(params));
        } catch (IllegalArgumentException e) {
            throw params.error(e.getMessage());
        }
        params.rejectUnknown();
        try {
            return provider.options(b.build()).build();
        } catch (IllegalArgumentException e) {
            throw params.error(e.getMessage());
        }
    }

    private static TimeoutOptions timeouts(UriParameters params) {
        TimeoutOptions t = TimeoutOptions.defaults();
        Duration connect = params.duration("connectTimeout", null);
        if (connect != null) {
            t = t.withConnectTimeout(connect);
        }
        Duration request = params.duration("requestTimeout", null);
        if (request != null) {
            t = t.withRequestTimeout(request);
        }
        return t;
    }

    private static TlsOptions tls(UriParameters params) {
        Boolean tls = params.bool("tls", null);
        String trustCertificates = params.string("trustCertificates", null);
        String trustStore = params.string("trustStore", null);
        String trustStorePassword = params.string("trustStorePassword", null);
        String clientCertificate = params.string("clientCertificate", null);
        String clientKey = params.string("clientKey", null);
        boolean anySource =
                trustCertificates != null || trustStore != null || clientCertificate != null || clientKey != null;
        if (!anySource) {
            return Boolean.TRUE.equals(tls) ? TlsOptions.enabled() : TlsOptions.disabled();
        }
        TlsOptions.Builder b = TlsOptions.builder().enabled(!Boolean.FALSE.equals(tls));
        if (trustCertificates != null) {
            b.trustCertificates(Path.of(trustCertificates));
        }
        if (trustStore != null) {
            b.trustStore(Path.of(trustStore), trustStorePassword);
        } else if (trustStorePassword != null) {
            throw new IllegalArgumentException("trustStorePassword needs trustStore");
        }
        if (clientCertificate == null || clientKey == null) {
            if (clientCertificate != null || clientKey != null) {
                throw new IllegalArgumentException("clientCertificate and clientKey must be given together");
            }
        } else {
            b.clientCertificate(Path.of(clientCertificate), Path.of(clientKey));
        }
        return b.build();
    }
}
