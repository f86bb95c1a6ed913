package io.distlock.testing.faults;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A client whose replies arrive late: it reaches each of its servers through its own {@link
 * TcpProxy} with latency on the way back ({@link TcpProxy.Direction#DOWNSTREAM}), so every request
 * reaches the server at once and its answer arrives {@code delay} after the server sent it. What the
 * TCK's {@code TckFixture.newClientWithReplyDelay} needs; the proxies close with the client.
 *
 * <pre>{@code
 * LockProvider slow = SlowReplies.open(List.of(redis.host() + ":" + redis.port()), Duration.ofMillis(300),
 *         addresses -> RedisLockProvider.builder().standalone(addresses.get(0)).build());
 * }</pre>
 */
public final class SlowReplies {
    private SlowReplies() {}

    /**
     * Starts one proxy per {@code host:port} target with {@code delay} downstream and opens the client
     * with {@code open}, given the proxies' addresses ({@code 127.0.0.1:port}, in the targets' order).
     *
     * @return the client; closing it closes the proxies too
     */
    public static LockProvider open(List<String> targets, Duration delay, Function<List<String>, LockProvider> open) {
        Objects.requireNonNull(open, "open must not be null");
        List<TcpProxy> proxies = new ArrayList<>();
        try {
            List<String> addresses = new ArrayList<>();
            for (String target : targets) {
                int colon = target.lastIndexOf(':');
                TcpProxy proxy =
                        TcpProxy.start(target.substring(0, colon), Integer.parseInt(target.substring(colon + 1)));
                proxies.add(proxy);
                proxy.setLatency(TcpProxy.Direction.DOWNSTREAM, delay);
                addresses.add(proxy.address());
            }
            return new Proxied(Objects.requireNonNull(open.apply(addresses), "open returned null"), proxies);
        } catch (RuntimeException | Error e) {
            proxies.forEach(TcpProxy::close);
            throw e;
        }
    }

    /** The client, closing its proxies after itself. */
    private static final class Proxied implements LockProvider {
        private final LockProvider provider;
        private final List<TcpProxy> proxies;

        Proxied(LockProvider provider, List<TcpProxy> proxies) {
            this.provider = provider;
            this.proxies = proxies;
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
                proxies.forEach(TcpProxy::close);
            }
        }

        @Override
        public String toString() {
            return provider + " (replies through " + proxies.size() + " slow prox" + (proxies.size() == 1 ? "y" : "ies")
                    + ")";
        }
    }
}
