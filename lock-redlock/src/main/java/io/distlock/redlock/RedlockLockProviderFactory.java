package io.distlock.redlock;

import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redlock.internal.RedlockUris;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Opens {@code redlock://[[user]:password@]host1:port,host2:port,host3:port[?parameters]} and
 * {@code redlocks://} (TLS to every node) for {@link io.distlock.LockProviders#open(URI)}.
 * Parameters: {@code leaseTime}, {@code autoRenew}, {@code maxHoldTime}, {@code maxRenewals}
 * (common to all backends), {@code keyPrefix}, {@code poolSize}, {@code connectTimeout}, {@code
 * requestTimeout}, {@code database}, {@code tls}, {@code trustCertificates}, {@code trustStore},
 * {@code trustStorePassword} (every node), {@code nodeTimeout}, {@code fencing}, {@code
 * assumePersistence}, {@code allowEvenNodeCount}, {@code maxRetryDelay}, and {@code nodeN.username},
 * {@code nodeN.password} (N = the node's 1-based position in the list) for node N's own
 * credentials. Messages never contain a password.
 */
public final class RedlockLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("redlock", "redlocks");
    }

    @Override
    public LockProvider open(URI uri) {
        return open(uri, UnaryOperator.identity());
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        RedlockUris.Parsed parsed = RedlockUris.parse(uri);
        RedlockLockProvider.Builder provider = RedlockLockProvider.builder()
                .options(parsed.options())
                .lockOptions(LockProviderFactory.customize(parsed.lockOptions(), customizer));
        parsed.nodes().forEach(provider::node);
        try {
            return provider.build();
        } catch (IllegalArgumentException e) {
            throw new LockConfigurationException(e.getMessage() + " in " + UriParameters.redact(uri), "redlock", e);
        }
    }
}
