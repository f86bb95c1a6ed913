package io.distlock.testing.faults;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockProvider;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A client of a test fixture that reaches its server through a {@link TcpProxy}: every call goes to
 * the provider, and closing it closes the provider and then the proxy, so that no proxy thread
 * outlives the client.
 */
public final class ProxiedProvider<P extends LockProvider> implements LockProvider {
    private final P provider;
    private final TcpProxy proxy;

    public ProxiedProvider(P provider, TcpProxy proxy) {
        this.provider = Objects.requireNonNull(provider, "provider must not be null");
        this.proxy = Objects.requireNonNull(proxy, "proxy must not be null");
    }

    /** The provider behind the proxy. */
    public P provider() {
        return provider;
    }

    /** The proxy between the provider and its server. */
    public TcpProxy proxy() {
        return proxy;
    }

    @Override
    public DistributedLock lock(String name) {
        return provider.lock(name);
    }

    @Override
    public Capabilities capabilities() {
        return provider.capabilities();
    }

    @Override
    public String backend() {
        return provider.backend();
    }

    @Override
    public List<Lease> heldLeases() {
        return provider.heldLeases();
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return provider.unwrap(type);
    }

    @Override
    public void close() {
        try {
            provider.close();
        } finally {
            proxy.close();
        }
    }

    @Override
    public String toString() {
        return provider + " via " + proxy.address();
    }
}
