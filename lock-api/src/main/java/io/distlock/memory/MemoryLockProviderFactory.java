package io.distlock.memory;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.LockProviderFactory;
import io.distlock.spi.UriParameters;
import java.net.URI;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * {@code mem://name?leaseTime=30s}: a client of the JVM-wide {@link MemoryLockServer} called
 * {@code name} ({@code default} when omitted). Registered through {@link java.util.ServiceLoader}.
 */
public final class MemoryLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("mem");
    }

    @Override
    public LockProvider open(URI uri) {
        return open(uri, UnaryOperator.identity());
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        UriParameters params = UriParameters.of(uri, "mem");
        LockOptions options = LockProviderFactory.customize(params.lockOptions(LockOptions.defaults()), customizer);
        params.rejectUnknown();
        String name = uri.getAuthority();
        if (name == null || name.isEmpty()) {
            name = "default";
        }
        return MemoryLockProvider.builder()
                .server(MemoryLockServer.named(name))
                .options(options)
                .build();
    }
}
