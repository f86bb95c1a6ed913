package io.distlock.micrometer;

import io.distlock.ConnectionPoolMetrics;
import io.distlock.LockProvider;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * Gauges of a provider's connection pool, for backends whose locks each keep a pooled connection
 * (the SQL backends, which offer {@link ConnectionPoolMetrics}), tagged with {@code backend}:
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>meter</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code distlock.pool.connections.held}</td><td>gauge</td><td>connections holding a lock</td></tr>
 *   <tr><td>{@code distlock.pool.connections.active}</td><td>gauge</td>
 *       <td>connections borrowed (held locks, waiters, claims, tokens)</td></tr>
 *   <tr><td>{@code distlock.pool.connections.max}</td><td>gauge</td><td>the pool's size</td></tr>
 *   <tr><td>{@code distlock.pool.connections.pending}</td><td>gauge</td>
 *       <td>threads waiting for a connection</td></tr>
 * </table>
 *
 * When {@code active} reaches {@code max}, a {@code tryAcquire()} fails with {@link
 * io.distlock.PoolExhaustedException} at once: alert on {@code active / max} before it does.
 *
 * <pre>{@code
 * MicrometerPoolMetrics.bind(provider, registry); // false (nothing bound) for backends without a pool
 * }</pre>
 */
public final class MicrometerPoolMetrics {
    private MicrometerPoolMetrics() {}

    /**
     * Registers the gauges of {@code provider}'s pool in {@code registry}, if the provider offers
     * {@link ConnectionPoolMetrics}. A value the pool does not report reads as {@code NaN}.
     *
     * @return whether gauges were registered
     */
    public static boolean bind(LockProvider provider, MeterRegistry registry) {
        Objects.requireNonNull(provider, "provider must not be null");
        Objects.requireNonNull(registry, "registry must not be null");
        return provider.unwrap(ConnectionPoolMetrics.class)
                .map(pool -> {
                    Tags tags = Tags.of("backend", provider.backend());
                    Gauge.builder("distlock.pool.connections.held", pool, p -> p.heldLockConnections())
                            .description("pooled connections that hold a lock")
                            .tags(tags)
                            .register(registry);
                    gauge(registry, tags, pool, "active", "pooled connections borrowed", p -> p.connectionsInUse());
                    gauge(registry, tags, pool, "max", "the pool's size", p -> p.poolSize());
                    gauge(registry, tags, pool, "pending", "threads waiting for a connection", p -> p.threadsWaiting());
                    return true;
                })
                .orElse(false);
    }

    private static void gauge(
            MeterRegistry registry,
            Tags tags,
            ConnectionPoolMetrics pool,
            String name,
            String description,
            Function<ConnectionPoolMetrics, OptionalInt> value) {
        Gauge.builder("distlock.pool.connections." + name, pool, p -> {
                    OptionalInt v = value.apply(p);
                    return v.isPresent() ? v.getAsInt() : Double.NaN;
                })
                .description(description)
                .tags(tags)
                .register(registry);
    }
}
