package io.distlock.etcd;

import io.distlock.LockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Opens {@code etcd://[user:password@]host1:2379,host2:2379[/prefix/]?param=value} through {@link
 * io.distlock.LockProviders#open(URI)}. Parameters: {@code leaseTime}, {@code autoRenew}, {@code
 * maxHoldTime} (common to every backend), {@code requestTimeout}, {@code keyPrefix} (or the URI's
 * path), {@code user}, {@code password}, {@code tls} ({@code true} for {@code https}), {@code
 * trustCertificate} (a PEM file; implies TLS), {@code clientCertificate} and {@code clientKey} (PEM
 * files, together: mutual TLS; imply TLS), {@code perLockLease} ({@code true}: one etcd lease
 * per acquisition instead of the session lease). Unknown parameters are rejected; messages never
 * contain the password.
 */
public final class EtcdLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("etcd");
    }

    @Override
    public LockProvider open(URI uri) {
        return open(uri, UnaryOperator.identity());
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<io.distlock.LockOptions> customizer) {
        UriParameters params = UriParameters.of(uri, "etcd");
        var lockOptions = LockProviderFactory.customize(
                params.lockOptions(io.distlock.LockOptions.defaults()
                        .mutate()
                        .leaseTime(EtcdLockProvider.DEFAULT_LEASE_TIME)
                        .build()),
                customizer);
        EtcdLockOptions.Builder b = EtcdLockOptions.builder();
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
        String pUser = params.string("user", null);
        String pPassword = params.string("password", null);
        if (pUser != null) {
            user = pUser;
        }
        if (pPassword != null) {
            password = pPassword;
        }
        boolean tls = Boolean.TRUE.equals(params.bool("tls", false));
        List<String> endpoints = new ArrayList<>();
        for (String hp : authority.split(",")) {
            if (hp.isBlank()) {
                throw params.error("empty endpoint in the host list");
            }
            endpoints.add((tls ? "https://" : "") + (hp.indexOf(':') < 0 || hp.endsWith("]") ? hp + ":2379" : hp));
        }
        try {
            b.endpoints(endpoints);
            var timeout = params.duration("requestTimeout", null);
            if (timeout != null) {
                b.requestTimeout(timeout);
            }
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
                b.credentials(user, password == null ? "" : password);
            }
            b.perLockLease(Boolean.TRUE.equals(params.bool("perLockLease", false)));
            String trust = params.string("trustCertificate", null);
            if (trust != null) {
                b.trustCertificate(Path.of(trust));
            }
            String clientCertificate = params.string("clientCertificate", null);
            String clientKey = params.string("clientKey", null);
            if (clientCertificate != null || clientKey != null) {
                b.clientCertificate(
                        clientCertificate == null ? null : Path.of(clientCertificate),
                        clientKey == null ? null : Path.of(clientKey));
            }
        } catch (IllegalArgumentException e) {
            throw params.error(e.getMessage());
        }
        params.rejectUnknown();
        return EtcdLockProvider.builder()
                .etcdOptions(b.build())
                .options(lockOptions)
                .build();
    }
}
