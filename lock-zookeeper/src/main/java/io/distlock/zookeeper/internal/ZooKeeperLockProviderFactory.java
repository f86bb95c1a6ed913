package io.distlock.zookeeper.internal;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import io.distlock.zookeeper.ZooKeeperLockOptions;
import io.distlock.zookeeper.ZooKeeperLockProvider;
import java.net.URI;
import java.time.Duration;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * {@code zookeeper://host1:2181,host2:2181/chroot?sessionTimeout=10s&connectionTimeout=5s&
 * rootPath=/distlock&leaseTime=30s}. Digest credentials go in the user info ({@code
 * zookeeper://user:password@host:2181}). {@link URI} does not parse a comma-separated authority as
 * server-based, so the authority is read from the raw string. Registered through {@link
 * java.util.ServiceLoader}.
 */
public final class ZooKeeperLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("zookeeper");
    }

    @Override
    public LockProvider open(URI uri) {
        return ZooKeeperLockProvider.builder().options(parse(uri)).build();
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        ZooKeeperLockOptions options = parse(uri);
        options = options.mutate()
                .lockOptions(LockProviderFactory.customize(options.lockOptions(), customizer))
                .build();
        return ZooKeeperLockProvider.builder().options(options).build();
    }

    /** The options a URI describes. */
    public static ZooKeeperLockOptions parse(URI uri) {
        UriParameters params = UriParameters.of(uri, ZkDriver.BACKEND);
        String authority = uri.getRawAuthority();
        if (authority == null || authority.isEmpty()) {
            throw params.error("zookeeper URI must name at least one host:port");
        }
        ZooKeeperLockOptions.Builder b = ZooKeeperLockOptions.builder();
        int at = authority.lastIndexOf('@');
        try {
            if (at >= 0) {
                String userInfo =
                        java.net.URLDecoder.decode(authority.substring(0, at), java.nio.charset.StandardCharsets.UTF_8);
                authority = authority.substring(at + 1);
                int colon = userInfo.indexOf(':');
                if (colon < 0) {
                    throw params.error("zookeeper URI user info must be user:password");
                }
                b.digestCredentials(userInfo.substring(0, colon), userInfo.substring(colon + 1));
            }
            String path = uri.getRawPath();
            String connect = authority + (path == null || path.isEmpty() || path.equals("/") ? "" : path);
            b.connectString(connect);
            LockOptions lockOptions = params.lockOptions(LockOptions.defaults());
            b.lockOptions(lockOptions);
            Duration session = params.duration("sessionTimeout", null);
            if (session != null) {
                b.sessionTimeout(session);
            }
            Duration connection = params.duration("connectionTimeout", null);
            if (connection != null) {
                b.connectionTimeout(connection);
            }
            b.rootPath(params.string("rootPath", ZooKeeperLockOptions.DEFAULT_ROOT_PATH));
            Boolean tls = params.bool("tls", null);
            if (tls != null) {
                b.tls(tls);
            }
            String trustStore = params.string("tlsTrustStore", null);
            String trustStorePassword = params.string("tlsTrustStorePassword", null);
            if (trustStore != null) {
                b.tlsTrustStore(java.nio.file.Path.of(trustStore), trustStorePassword);
            } else if (trustStorePassword != null) {
                throw params.error("tlsTrustStorePassword needs tlsTrustStore");
            }
        } catch (io.distlock.LockConfigurationException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw params.error(e.getMessage());
        }
        params.rejectUnknown();
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw params.error(e.getMessage());
        }
    }
}
