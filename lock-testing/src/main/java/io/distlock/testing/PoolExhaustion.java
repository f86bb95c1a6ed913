package io.distlock.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.ConnectionPoolMetrics;
import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.PoolExhaustedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What a backend whose held locks each keep a pooled connection must do when its pool runs out (the
 * SQL backends): a provider with 10 connections holds as many locks as it has connections for
 * them (10, or 9 where one connection allocates tokens); the next zero-wait {@code tryAcquire()}
 * fails at once — not after the pool's wait — with a {@link PoolExhaustedException} that names the
 * pool and what to change; a {@code tryAcquire(maxWait)} waits for a connection at most its wait,
 * and takes one that comes back within it; {@link ConnectionPoolMetrics} shows all of it.
 */
public final class PoolExhaustion {
    private PoolExhaustion() {}

    /**
     * {@link #check(LockProvider, String, boolean) check(provider, name, true)}: a provider that
     * keeps one of its 10 connections for tokens.
     *
     * @throws AssertionError naming the check that failed
     */
    public static void check(LockProvider provider, String name) throws Exception {
        check(provider, name, true);
    }

    /**
     * Runs the checks on {@code provider} (a pool of 10 connections, one of them for tokens if
     * {@code tokenConnection}), with lock names starting with {@code name}.
     *
     * @throws AssertionError naming the check that failed
     */
    public static void check(LockProvider provider, String name, boolean tokenConnection) throws Exception {
        ConnectionPoolMetrics pool =
                provider.unwrap(ConnectionPoolMetrics.class).orElseThrow(() -> new AssertionError("no pool metrics"));
        assertThat(pool.poolSize()).hasValue(10);
        int locks = tokenConnection ? 9 : 10;
        List<Lease> held = new ArrayList<>();
        for (int i = 0; i < locks; i++) {
            held.add(provider.lock(name + i).tryAcquire().orElseThrow());
        }
        assertThat(pool.heldLockConnections()).isEqualTo(locks);
        assertThat(pool.connectionsInUse()).hasValue(10);

        long start = System.nanoTime();
        Throwable t = catchThrowable(() -> provider.lock(name + "-10").tryAcquire());
        assertThat(millisSince(start))
                .as("a zero-wait tryAcquire on an exhausted pool")
                .isLessThan(200);
        assertThat(t)
                .isInstanceOf(PoolExhaustedException.class)
                .isNotInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("poolSize 10")
                .hasMessageContaining(locks + " hold locks")
                .hasMessageContaining("raise poolSize");
        assertThat(((PoolExhaustedException) t).poolSize()).isEqualTo(10);

        start = System.nanoTime();
        Throwable waited = catchThrowable(() -> provider.lock(name + "-10").tryAcquire(Duration.ofMillis(600)));
        assertThat(waited).isInstanceOf(PoolExhaustedException.class);
        assertThat(millisSince(start)).as("waited its 600 ms for a connection").isBetween(550L, 2000L);

        CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return provider.lock(name + "-10").tryAcquire(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().pollDelay(Duration.ofMillis(200)).until(() -> !waiter.isDone());
        assertThat(held.remove(0).release()).isTrue();
        Lease tenth = waiter.get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(tenth.release())
                .as("the connection given back within the wait was taken")
                .isTrue();
        for (Lease l : held) {
            assertThat(l.release()).isTrue();
        }
        assertThat(pool.heldLockConnections()).isZero();
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
