package io.distlock;

import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Opens a provider from a URI, so a deployment picks its backend with one setting and no code
 * change. Backends are found with {@link ServiceLoader}: put the backend's jar on the class path.
 *
 * <table>
 *   <caption>URI schemes</caption>
 *   <tr><th>scheme</th><th>module</th></tr>
 *   <tr><td>{@code mem://name}</td><td>lock-api (in-JVM)</td></tr>
 *   <tr><td>{@code redis://}, {@code rediss://}, {@code redis-sentinel://}, {@code redis-cluster://}</td><td>lock-redis</td></tr>
 *   <tr><td>{@code redlock://host1:port,host2:port,host3:port}</td><td>lock-redlock</td></tr>
 *   <tr><td>{@code zookeeper://host:2181/chroot}</td><td>lock-zookeeper</td></tr>
 *   <tr><td>{@code etcd://host:2379}</td><td>lock-etcd</td></tr>
 *   <tr><td>{@code mysql://user@host:3306/db}</td><td>lock-mysql-skiplocked</td></tr>
 *   <tr><td>{@code postgresql://user@host:5432/db}, {@code postgres://}</td><td>lock-postgresql</td></tr>
 * </table>
 *
 * Common query parameters, understood by every backend: {@code leaseTime} (for example {@code
 * 30s}, {@code 500ms}, {@code PT1M}) and {@code autoRenew} ({@code true}/{@code false}).
 */
public final class LockProviders {

    private LockProviders() {}

    /**
     * Opens a provider for {@code uri}.
     *
     * @throws LockConfigurationException if the URI is malformed, its scheme is unknown (the
     *     message lists the schemes available on the class path), or two backends claim the scheme
     */
    public static LockProvider open(String uri) {
        Objects.requireNonNull(uri, "uri must not be null");
        try {
            return open(new URI(uri.trim()));
        } catch (URISyntaxException e) {
            throw new LockConfigurationException(
                    "malformed lock provider URI: " + e.getReason() + " (" + UriParameters.redact(uri) + ")", null);
        }
    }

    /** Opens a provider for {@code uri}; see {@link #open(String)}. */
    public static LockProvider open(URI uri) {
        return factory(uri).open(uri);
    }

    /**
     * Opens a provider for {@code uri} whose {@link LockOptions} (as the URI's parameters describe
     * them) are passed through {@code customizer}: the way to add what a URI cannot carry, such as a
     * {@link LockObserver} for metrics or a {@link Ticker}. The customizer runs once, before the
     * provider is built, and may override the URI's lease settings.
     *
     * <pre>{@code
     * LockProvider provider = LockProviders.open(
     *         URI.create("redis://127.0.0.1:6379?leaseTime=10s"), o -> o.mutate().observer(observer).build());
     * }</pre>
     *
     * @throws LockConfigurationException as {@link #open(String)}, or if the backend's factory does
     *     not accept a customizer
     */
    public static LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        Objects.requireNonNull(customizer, "customizer must not be null");
        return factory(uri).open(uri, customizer);
    }

    private static LockProviderFactory factory(URI uri) {
        Objects.requireNonNull(uri, "uri must not be null");
        Map<String, LockProviderFactory> factories = factories();
        String scheme = uri.getScheme();
        if (scheme == null) {
            throw new LockConfigurationException(
                    "lock provider URI has no scheme: " + UriParameters.redact(uri) + "; available schemes: "
                            + factories.keySet(),
                    null);
        }
        LockProviderFactory factory = factories.get(scheme.toLowerCase(Locale.ROOT));
        if (factory == null) {
            throw new LockConfigurationException(
                    "no lock backend for scheme '" + scheme + "' on the class path;"
                            + " available schemes: " + factories.keySet()
                            + " (add the backend's module, for example io.distlock:lock-redis)",
                    null);
        }
        return factory;
    }

    /** The schemes available on the class path, with the factory class that handles each. */
    public static Map<String, String> availableSchemes() {
        Map<String, String> out = new TreeMap<>();
        factories().forEach((scheme, f) -> out.put(scheme, f.getClass().getName()));
        return out;
    }

    private static Map<String, LockProviderFactory> factories() {
        Map<String, LockProviderFactory> byScheme = new TreeMap<>();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = LockProviders.class.getClassLoader();
        }
        for (LockProviderFactory f : ServiceLoader.load(LockProviderFactory.class, loader)) {
            for (String s : f.schemes()) {
                String key = s.toLowerCase(Locale.ROOT);
                LockProviderFactory previous = byScheme.putIfAbsent(key, f);
                if (previous != null && !previous.getClass().equals(f.getClass())) {
                    throw new LockConfigurationException(
                            "two lock backends claim scheme '" + key + "': "
                                    + previous.getClass().getName() + " and "
                                    + f.getClass().getName()
                                    + "; remove one of them from the class path",
                            null);
                }
            }
        }
        return byScheme;
    }
}
