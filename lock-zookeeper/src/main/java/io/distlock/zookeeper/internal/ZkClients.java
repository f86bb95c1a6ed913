package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Credentials;
import io.distlock.TlsOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * The Curator client a provider builds for itself, and the ACL of the nodes it creates. Internal
 * API: used by {@code io.distlock.zookeeper.ZooKeeperLockProvider}.
 */
public final class ZkClients {
    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private ZkClients() {}

    /**
     * A started Curator client, connected within {@code connectTimeout}: the connect string's
     * chroot becomes Curator's namespace (created when missing, where a ZooKeeper chroot must exist
     * beforehand); digest credentials are added to the session; with TLS, the client gets a
     * per-client {@code ZKClientConfig} (no system property is read for these settings or set) and
     * the trust is checked first with one handshake ({@link TlsPreflight}), so that a server the
     * trust does not accept fails at once.
     *
     * @param credentials digest credentials, or {@code null}
     * @throws io.distlock.LockConfigurationException if the trust cannot be loaded or does not
     *     accept a server's certificate
     * @throws BackendUnavailableException if no connection was made within {@code connectTimeout}
     */
    public static CuratorFramework newClient(
            String connectString,
            Duration sessionTimeout,
            Duration connectTimeout,
            Credentials credentials,
            TlsOptions tls) {
        ZKClientConfig tlsConfig = tls.isEnabled() ? tlsClientConfig(tls) : null;
        String servers = ZkPathRules.servers(connectString);
        if (tlsConfig != null) {
            TlsPreflight.check(servers, tlsConfig, tls, connectTimeout);
        }
        int n = CLIENTS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "distlock-zookeeper-curator-" + n + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        String namespace = ZkPathRules.namespace(connectString);
        CuratorFrameworkFactory.Builder cb = CuratorFrameworkFactory.builder()
                .connectString(servers)
                .namespace(namespace)
                .sessionTimeoutMs((int) sessionTimeout.toMillis())
                .connectionTimeoutMs((int) connectTimeout.toMillis())
                .retryPolicy(new ExponentialBackoffRetry(50, 4))
                .threadFactory(factory);
        if (credentials != null) {
            cb.authorization("digest", digest(credentials).getBytes(StandardCharsets.UTF_8));
        }
        if (tlsConfig != null) {
            cb.zkClientConfig(tlsConfig);
        }
        CuratorFramework client = cb.build();
        client.start();
        try {
            if (!client.blockUntilConnected((int) connectTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                client.close();
                throw new BackendUnavailableException(
                        "could not connect to ZooKeeper within " + connectTimeout, null, ZkErrors.BACKEND, null);
            }
        } catch (InterruptedException e) {
            client.close();
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException(
                    "interrupted while connecting to ZooKeeper", null, ZkErrors.BACKEND, e);
        }
        return client;
    }

    /**
     * The ACL of every node a provider with digest {@code credentials} creates: all permissions for
     * that identity, READ for everyone.
     */
    public static List<ACL> acl(Credentials credentials) {
        try {
            Id owner = new Id("digest", DigestAuthenticationProvider.generateDigest(digest(credentials)));
            return List.of(
                    new ACL(ZooDefs.Perms.ALL, owner), new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA1 digest is not available", e);
        }
    }

    private static String digest(Credentials credentials) {
        return credentials.username() + ':' + credentials.password();
    }

    /**
     * TLS for one client: ZooKeeper's Netty client, {@code zookeeper.client.secure}, host-name
     * verification on, and the trust source (a PEM file of CA certificates, or a key store).
     */
    static ZKClientConfig tlsClientConfig(TlsOptions tls) {
        ZKClientConfig config = new ZKClientConfig();
        config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
        config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        config.setProperty("zookeeper.ssl.hostnameVerification", "true");
        // ZooKeeper 3.9 clients offer only TLSv1.3 by default; 3.8 servers default to TLSv1.2
        config.setProperty("zookeeper.ssl.enabledProtocols", "TLSv1.3,TLSv1.2");
        tls.trustCertificates().ifPresent(pem -> {
            config.setProperty("zookeeper.ssl.trustStore.location", pem.toString());
            config.setProperty("zookeeper.ssl.trustStore.type", "PEM");
        });
        tls.trustStore().ifPresent(store -> {
            config.setProperty("zookeeper.ssl.trustStore.location", store.toString());
            config.setProperty("zookeeper.ssl.trustStore.type", storeType(store));
        });
        tls.trustStorePassword().ifPresent(pw -> config.setProperty("zookeeper.ssl.trustStore.password", pw));
        return config;
    }

    /** A key store's type from its file name: JKS for {@code .jks}, otherwise PKCS#12. */
    private static String storeType(Path store) {
        return store.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12";
    }
}
