package io.distlock.spi;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import java.net.URI;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Opens providers from URIs for {@link io.distlock.LockProviders#open(URI)}. Backends register an
 * implementation in {@code META-INF/services/io.distlock.spi.LockProviderFactory}.
 */
public interface LockProviderFactory {

    /** URI schemes this factory handles, in lower case, for example {@code "redis"}. */
    Set<String> schemes();

    /**
     * Opens a provider for {@code uri}, whose scheme is one of {@link #schemes()}.
     *
     * @throws io.distlock.LockConfigurationException for a malformed URI or unknown parameters;
     *     the message must not contain the URI's password
     */
    LockProvider open(URI uri);

    /**
     * Opens a provider for {@code uri} whose {@link LockOptions} are the ones the URI describes,
     * passed through {@code customizer} last: the way to add what a URI cannot carry, such as a
     * {@link io.distlock.LockObserver} or a {@link io.distlock.Ticker}. Used by {@link
     * io.distlock.LockProviders#open(URI, UnaryOperator)}.
     *
     * <p>The default implementation fails: a factory supports customizers only if it overrides this
     * method. Every factory shipped with distlock does.
     *
     * @throws LockConfigurationException as {@link #open(URI)}, or if this factory does not accept a
     *     customizer
     */
    default LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        throw new LockConfigurationException(
                getClass().getName() + " does not accept a LockOptions customizer; open it with a URI alone", null);
    }

    /**
     * Applies {@code customizer} to {@code options} for implementations of {@link #open(URI,
     * UnaryOperator)}.
     *
     * @throws NullPointerException if {@code customizer} is null or returns null
     */
    static LockOptions customize(LockOptions options, UnaryOperator<LockOptions> customizer) {
        java.util.Objects.requireNonNull(customizer, "customizer must not be null");
        return java.util.Objects.requireNonNull(customizer.apply(options), "customizer must not return null");
    }
}
