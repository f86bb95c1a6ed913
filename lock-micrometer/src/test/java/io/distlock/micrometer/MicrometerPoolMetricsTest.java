package io.distlock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Capabilities;
import io.distlock.ConnectionPoolMetrics;
import io.distlock.DistributedLock;
import io.distlock.LockProvider;
import io.distlock.memory.MemoryLockProvider;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class MicrometerPoolMetricsTest {

    /** A provider offering pool numbers that the test moves. */
    private static final class PooledProvider implements LockProvider {
        final AtomicInteger held = new AtomicInteger();
        final AtomicInteger active = new AtomicInteger();
        final ConnectionPoolMetrics metrics = new ConnectionPoolMetrics() {
            @Override
            public int heldLockConnections() {
                return held.get();
            }

            @Override
            public OptionalInt connectionsInUse() {
                return OptionalInt.of(active.get());
            }

            @Override
            public OptionalInt poolSize() {
                return OptionalInt.of(10);
            }

            @Override
            public OptionalInt threadsWaiting() {
                return OptionalInt.empty();
            }
        };

        @Override
        public DistributedLock lock(String name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Capabilities capabilities() {
            return Capabilities.builder().build();
        }

        @Override
        public String backend() {
            return "pooled";
        }

        @Override
        public java.util.List<io.distlock.Lease> heldLeases() {
            return java.util.List.of();
        }

        @Override
        public <T> Optional<T> unwrap(Class<T> type) {
            return type == ConnectionPoolMetrics.class ? Optional.of(type.cast(metrics)) : Optional.empty();
        }

        @Override
        public void close() {}
    }

    @Test
    void bind_providerWithPool_gaugesFollowThePool() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PooledProvider p = new PooledProvider();

        assertThat(MicrometerPoolMetrics.bind(p, registry)).isTrue();
        p.held.set(7);
        p.active.set(9);

        assertThat(registry.get("distlock.pool.connections.held")
                        .tag("backend", "pooled")
                        .gauge()
                        .value())
                .isEqualTo(7);
        assertThat(registry.get("distlock.pool.connections.active").gauge().value())
                .isEqualTo(9);
        assertThat(registry.get("distlock.pool.connections.max").gauge().value())
                .isEqualTo(10);
        assertThat(registry.get("distlock.pool.connections.pending").gauge().value())
                .isNaN();
    }

    @Test
    void bind_providerWithoutPool_registersNothing() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (MemoryLockProvider mem = MemoryLockProvider.create()) {
            assertThat(MicrometerPoolMetrics.bind(mem, registry)).isFalse();
        }
        assertThat(registry.getMeters()).isEmpty();
    }
}
