package io.distlock.spi;

import io.distlock.LockProvider;
import java.net.URI;
import java.util.Set;

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
}
