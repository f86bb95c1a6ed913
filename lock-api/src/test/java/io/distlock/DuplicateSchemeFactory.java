package io.distlock;

import io.distlock.spi.LockProviderFactory;
import java.net.URI;
import java.util.Set;

/** A second factory for {@code mem}, registered only by {@link LockProvidersDuplicateSchemeTest}. */
public final class DuplicateSchemeFactory implements LockProviderFactory {
    @Override
    public Set<String> schemes() {
        return Set.of("mem");
    }

    @Override
    public LockProvider open(URI uri) {
        throw new UnsupportedOperationException("never opened");
    }
}
