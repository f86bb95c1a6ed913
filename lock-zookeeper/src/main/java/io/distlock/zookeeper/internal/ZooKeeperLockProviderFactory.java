package io.distlock.zookeeper.internal;

import io.distlock.Credentials;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.TimeoutOptions;
import io.distlock.TlsOptions;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import io.distlock.zookeeper.ZooKeeperLockOptions;
import io.distlock.zookeeper.ZooKeeperLockProvider;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * {@code zookeeper://[user:password@]host1:2181,host2:2181[/chroot][?parameters]}. The user info
 * becomes digest credentials, the chroot Curator's namespace. Parameters: the common lease settings
 * ({@code leaseTime}, {@code autoRenew}, {@code maxHoldTime}, {@code maxRenewals}); {@code
 * sessionTimeout} and {@code rootPath}; {@code connectTimeout} and {@code requestTimeout} (which
 * must keep its default, see {@link ZooKeeperLockOptions}); TLS with {@code trustCertificates} (a
 * PEM file) or {@code trustStore} + {@code trustStorePassword} ({@code tls=true} is implied by
 * either, {@code tls=false} turns TLS off). {@link URI} does not parse a comma-separated authority
 * as server-based, so the authority is read from the raw string. Registered through {@link
 * java.util.ServiceLoader}.
 */
public final class ZooKeeperLockProviderFactory implements LockProviderFactory {

    /**
     * What a URI describes.
     *
     * @param connectString {@code host:port[,host:port...][/chroot]}
     */
    public record Parsed(String connectString, ZooKeeperLockOptions options, LockOptions lockOptions) {
        /** A provider builder with these settings. */
        public ZooKeeperLockProvider.Builder builder() {
            return ZooKeeperLockProvider.builder()
                    .connectString(connectString)
                    .options(options)
                    .lockOptions(lockOptions);
        }
    }

    @Override
    public Set<String> schemes() {
        return Set.of("zookeeper");
    }

    @Override
    public LockProvider open(URI uri) {
        return parse(uri).builder().build();
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        Parsed parsed = parse(uri);
        return parsed.builder()
                .lockOptions(LockProviderFactory.customize(parsed.lockOptions(), customizer))
                .build();
    }

    /** The settings a URI describes. */
    public static Parsed parse(URI uri) {
        UriParameters params = UriParameters.of(uri, ZkErrors.BACKEND);
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw params.error("zookeeper URI must name at least one host:port");
        }
        ZooKeeperLockOptions.Builder b = ZooKeeperLockOptions.builder();
        String connect;
        LockOptions lockOptions;
        int at = authority.lastIndexOf('@');
        try {
            if (at >= 0) {
                String userInfo = UriParameters.decodeComponent(authority.substring(0, at));
                authority = authority.substring(at + 1);
                int colon = userInfo.indexOf(':');
                if (colon < 0) {
                    throw params.error("zookeeper URI user info must be user:password");
                }
                String password = userInfo.substring(colon + 1);
                if (password.isEmpty()) {
                    throw params.error("zookeeper URI user info needs a password (digest password must not be empty)");
                }
                b.credentials(Credentials.of(userInfo.substring(0, colon), password));
            }
            String path = uri.getRawPath();
            connect = ZkPathRules.checkConnectString(
                    authority + (path == null || path.isEmpty() || path.equals("/") ? "" : path));
            lockOptions = params.lockOptions(LockOptions.defaults());
            Duration session = params.duration("sessionTimeout", null);
            if (session != null) {
                b.sessionTimeout(session);
            }
            b.rootPath(params.string("rootPath", ZooKeeperLockOptions.DEFAULT_ROOT_PATH));
            timeouts(params, b);
            tls(params, b);
        } catch (LockConfigurationException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw params.error(e.getMessage());
        }
        params.rejectUnknown();
        return new Parsed(connect, b.build(), lockOptions);
    }

    private static void timeouts(UriParameters params, ZooKeeperLockOptions.Builder b) {
        Duration connect = params.duration("connectTimeout", null);
        Duration request = params.duration("requestTimeout", null);
        if (connect != null || request != null) {
            TimeoutOptions t = ZooKeeperLockOptions.DEFAULT_TIMEOUTS;
            b.timeouts(new TimeoutOptions(
                    connect != null ? connect : t.connectTimeout(), request != null ? request : t.requestTimeout()));
        }
    }

    private static void tls(UriParameters params, ZooKeeperLockOptions.Builder b) {
        Boolean on = params.bool("tls", null);
        String pem = params.string("trustCertificates", null);
        String store = params.string("trustStore", null);
        String storePassword = params.string("trustStorePassword", null);
        String certificate = params.string("clientCertificate", null);
        String key = params.string("clientKey", null);
        if (storePassword != null && store == null) {
            throw params.error("trustStorePassword needs trustStore");
        }
        if ((certificate == null) != (key == null)) {
            throw params.error("clientCertificate and clientKey go together");
        }
        boolean anyTls = pem != null || store != null || certificate != null;
        if (Boolean.FALSE.equals(on) && anyTls) {
            throw params.error("tls=false with trustCertificates, trustStore or clientCertificate: remove one of them");
        }
        if (!Boolean.TRUE.equals(on) && !anyTls) {
            return;
        }
        TlsOptions.Builder t = TlsOptions.builder();
        if (pem != null) {
            t.trustCertificates(Path.of(pem));
        }
        if (store != null) {
            t.trustStore(Path.of(store), storePassword);
        }
        if (certificate != null) {
            t.clientCertificate(Path.of(certificate), Path.of(key));
        }
        b.tls(t.build());
    }
}
