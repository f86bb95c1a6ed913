package io.distlock.redis;

import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.internal.RedisUris;
import io.distlock.spi.LockProviderFactory;
import java.net.URI;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Opens {@code redis://}, {@code rediss://}, {@code redis-sentinel://}, {@code rediss-sentinel://}
 * and {@code redis-cluster://}
 * URIs for {@link io.distlock.LockProviders#open(URI)} (see {@code RedisLockProvider} for the forms).
 */
public final class RedisLockProviderFactory implements LockProviderFactory {

    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel", "redis-cluster");
    }

    @Override
    public LockProvider open(URI uri) {
        return open(uri, UnaryOperator.identity());
    }

    @Override
    public LockProvider open(URI uri, UnaryOperator<LockOptions> customizer) {
        RedisUris.Parsed parsed = RedisUris.parse(uri);
        return RedisLockProvider.builder()
                .topology(parsed.topology())
                .options(parsed.options())
                .lockOptions(LockProviderFactory.customize(parsed.lockOptions(), customizer))
                .build();
    }
}
