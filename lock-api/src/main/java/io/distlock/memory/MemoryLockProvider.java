package io.distlock.memory;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.spi.FaultHooks;
import io.distlock.spi.LockEngine;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The in-JVM provider ({@code mem://}): the reference implementation of the distlock contract, with
 * TTLs, watchdog renewal, globally monotonic fencing tokens and notification-based waiting. Use it
 * in your own unit tests in place of a real backend; the TCK uses it as its reference.
 *
 * <p>Providers built on the same {@link MemoryLockServer} behave like independent clients of one
 * server. Locks live only as long as the JVM and are not shared with other processes.
 *
 * <pre>{@code
 * MemoryLockServer server = MemoryLockServer.create();
 * try (MemoryLockProvider a = MemoryLockProvider.builder().server(server).build();
 *      MemoryLockProvider b = MemoryLockProvider.builder().server(server).build()) {
 *     Lease lease = a.lock("job").acquire();
 *     assert b.lock("job").tryAcquire().isEmpty();
 * }
 * }</pre>
 */
public final class MemoryLockProvider implements LockProvider {
    private final LockEngine engine;
    private final MemoryLockServer server;

    private MemoryLockProvider(Builder b) {
        this.server = b.server != null ? b.server : MemoryLockServer.create();
        this.engine = LockEngine.create(new MemoryDriver(server, b.replyDelay), b.options);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A provider on a new private server with default options. */
    public static MemoryLockProvider create() {
        return builder().build();
    }

    @Override
    public DistributedLock lock(String name) {
        return engine.lock(name);
    }

    @Override
    public Capabilities capabilities() {
        return engine.capabilities();
    }

    @Override
    public String backend() {
        return engine.backend();
    }

    /** The server this provider is a client of. */
    public MemoryLockServer server() {
        return server;
    }

    @Override
    public List<Lease> heldLeases() {
        return engine.heldLeases();
    }

    /**
     * Also offers {@link FaultHooks}: {@code simulateCrash()} stops renewing and disconnects without
     * releasing, so this client's locks stay on the server until their TTL runs out.
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type == FaultHooks.class) {
            return Optional.of(type.cast(engine.faultHooks(() -> {})));
        }
        return LockProvider.super.unwrap(type);
    }

    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "MemoryLockProvider{" + engine.options() + '}';
    }

    /** Builder for {@link MemoryLockProvider}. */
    public static final class Builder {
        private MemoryLockServer server;
        private LockOptions options = LockOptions.defaults();
        private Duration replyDelay = Duration.ZERO;

        private Builder() {}

        /** The server to connect to; a new private one if not set. */
        public Builder server(MemoryLockServer server) {
            this.server = Objects.requireNonNull(server, "server must not be null");
            return this;
        }

        public Builder options(LockOptions options) {
            this.options = Objects.requireNonNull(options, "options must not be null");
            return this;
        }

        /** Shortcut for {@code options(options.mutate().leaseTime(leaseTime).build())}. */
        public Builder leaseTime(Duration leaseTime) {
            this.options = options.mutate().leaseTime(leaseTime).build();
            return this;
        }

        /**
         * Simulated latency on the way back: every answer of the server reaches this provider {@code
         * delay} after the server handled the request (default zero: at once). The server's state
         * changes when it handles the request, as a real server's does, so this shows how code copes
         * with a slow network (validity is counted from before each request; a waiter whose "held"
         * answer arrives after the release still acquires).
         *
         * @throws IllegalArgumentException if {@code delay} is negative
         */
        public Builder replyDelay(Duration delay) {
            Objects.requireNonNull(delay, "replyDelay must not be null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("replyDelay must not be negative (was " + delay + ")");
            }
            this.replyDelay = delay;
            return this;
        }

        public MemoryLockProvider build() {
            return new MemoryLockProvider(this);
        }
    }
}
