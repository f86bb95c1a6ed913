package io.distlock.etcd;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.etcd.internal.Endpoints;
import io.distlock.etcd.internal.EtcdDriver;
import io.distlock.spi.FaultHooks;
import io.distlock.spi.LockEngine;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Distributed locks on etcd ({@code etcd://host1:2379,host2:2379}): revision-ordered keys on one
 * session lease, with the key's create revision as fencing token.
 *
 * <h2>How it works</h2>
 *
 * The provider grants one etcd lease (the <em>session</em>, TTL = {@link LockOptions#leaseTime()}
 * rounded up to whole seconds) and keeps it alive with one keepalive request every {@code leaseTime
 * * renewalFraction}, however many locks it holds. An acquisition is one transaction: create {@code
 * <prefix><encoded name>/<lease>-<slot>} with the lease if absent, and read the oldest key under the
 * lock's prefix. If that is ours, we hold the lock; otherwise we watch the key created just before
 * ours for its delete: when the last key older than ours goes we hold the lock, usually without
 * another request, and only that waiter is woken. Release deletes our key (one round trip);
 * {@link #close()} revokes the session lease, which deletes every key on it.
 *
 * <h2>Guarantees and limits</h2>
 *
 * <ul>
 *   <li>Mutual exclusion holds while etcd keeps a quorum: the server grants a lock to one key at a
 *       time, linearizably.
 *   <li>Fencing: {@link Lease#fencingToken()} is our key's create revision, which strictly increases
 *       across all locks, clients and server restarts (etcd persists it). A resource accepts a
 *       write only if its token is at least the largest it has seen ({@link
 *       io.distlock.fencing.FencingGuard}). A resource that itself stores in etcd can instead guard
 *       the write natively: a transaction {@code If(createRevision(lockKey) == token)
 *       Then(put(...))}, which fails once our key is gone.
 *   <li>A lease is reported valid until {@code lastKeepaliveSent + leaseTime - safetyMargin} on this
 *       JVM's monotonic clock; the server keeps the lease at least {@code leaseTime} after receiving
 *       that keepalive. A process paused longer than that (GC, VM freeze) may resume believing it
 *       holds a lock that another client now holds: only the fencing token protects the resource
 *       then. The loss is signalled ({@link Lease#lost()}) when the server says the lease is gone,
 *       when our key is deleted by someone else, or when the validity deadline passes without a
 *       successful keepalive.
 *   <li>A leader change or the loss of a minority of members keeps held locks (etcd carries leases
 *       over and restarts their TTL on a new leader).
 *   <li>Waiters are served in the order they first asked (create revision), unless their session
 *       dies, in which case they queue again.
 *   <li>Wrong credentials, a user without permission on the key prefix and a server certificate
 *       the TLS trust does not accept fail the first request with {@link
 *       io.distlock.LockConfigurationException}, never retried; an unreachable or failing cluster
 *       is a {@link io.distlock.BackendUnavailableException}, retried within the caller's wait.
 * </ul>
 *
 * <h2>Lease times are kept by the server</h2>
 *
 * etcd keeps a time per lock ({@link Capabilities.LeaseTiming#SERVER}). A lock handle whose {@link
 * DistributedLock#withLeaseTime lease time} or {@link DistributedLock#withAutoRenew renewal} differs
 * from the provider's hangs its key on a lease of its own with TTL = that lease time (one more
 * request per acquisition); without renewal that lease is no longer kept alive once the lock is
 * held, so the server deletes the key when it runs out (the client revokes it at that moment while
 * it lives). {@link Lease#extend} and {@link Lease#releaseAfter} move the key to a new lease with
 * TTL = the new time or the delay, in one transaction that checks the key's create revision (so
 * they are owner-only and keep the fencing token); a holder that crashes keeps the lock exactly
 * that long (rounded up to etcd's whole seconds). {@code autoRenew=false} ends every lease at its
 * lease time on the server.
 *
 * <h2>Per-lock leases</h2>
 *
 * With {@link EtcdLockOptions.Builder#perLockLease(boolean) perLockLease(true)} (URI: {@code
 * perLockLease=true}) every acquisition gets its own etcd lease instead of the session's, so a lock
 * lost (revoked, expired) takes no other lock with it. Cost: one more round trip per acquisition
 * ({@code LeaseGrant} before the transaction); release revokes the lease (one round trip, it
 * deletes the key). Each such lease is kept alive like the session lease, so keepalive traffic
 * grows with the number of held locks, unlike the session's.
 *
 * <pre>{@code
 * try (EtcdLockProvider locks = EtcdLockProvider.builder()
 *         .endpoints("10.0.0.1:2379", "10.0.0.2:2379")
 *         .options(EtcdLockOptions.builder().keyPrefix("/myapp/locks/").build())
 *         .leaseTime(Duration.ofSeconds(10))
 *         .build()) {
 *     try (Lease lease = locks.lock("invoice-42").acquire()) {
 *         store.write(data, lease.fencingToken().getAsLong());
 *     }
 * }
 * }</pre>
 */
public final class EtcdLockProvider implements LockProvider {
    /** The endpoint used when none is given: {@code 127.0.0.1:2379}. */
    public static final String DEFAULT_ENDPOINT = "127.0.0.1:2379";

    private final LockEngine engine;
    private final EtcdDriver driver;
    private final EtcdLockOptions options;
    /** The endpoints with their scheme; empty for a client passed in. */
    private final List<String> endpointUris;

    private EtcdLockProvider(Builder b) {
        this.options = b.options;
        if (b.client != null) {
            this.endpointUris = List.of();
            this.driver = EtcdDriver.onClient(b.client, options, b.lockOptions);
        } else {
            List<String> endpoints = b.endpoints == null ? List.of(DEFAULT_ENDPOINT) : b.endpoints;
            this.endpointUris = Endpoints.uris(endpoints, options.tls().isEnabled());
            this.driver = EtcdDriver.connect(endpointUris, options, b.lockOptions);
        }
        this.engine = LockEngine.create(driver, b.lockOptions);
    }

    /** A builder: endpoints (or a client), etcd options, lock options. */
    public static Builder builder() {
        return new Builder();
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

    @Override
    public List<Lease> heldLeases() {
        return engine.heldLeases();
    }

    /** The etcd settings this provider runs with. */
    public EtcdLockOptions options() {
        return options;
    }

    /** The lock settings (lease time, safety margin, ...) this provider runs with. */
    public LockOptions lockOptions() {
        return engine.options();
    }

    /**
     * Also offers {@link FaultHooks}: {@code simulateCrash()} stops the keepalives and closes the
     * connection without revoking any lease, so this client's locks stay on the server until their
     * lease's TTL runs out; its leases are reported lost locally.
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type == FaultHooks.class) {
            return Optional.of(type.cast(engine.faultHooks(driver::crash)));
        }
        return LockProvider.super.unwrap(type);
    }

    /** The endpoints with their scheme ({@code http(s)://host:port}); empty for a client passed in. */
    List<String> endpointUris() {
        return endpointUris;
    }

    /** The id of the current session lease, or -1 if none is granted. */
    long sessionLeaseId() {
        return driver.currentLeaseId();
    }

    /** gRPC watch streams this provider opened (its shared one, reopened after a break); -1: none. */
    long watchStreamsOpened() {
        return driver.watchStreamsOpened();
    }

    /** Watches set up on this provider's shared watch stream; -1: none. */
    long sharedWatchesSetUp() {
        return driver.sharedWatchesSetUp();
    }

    /**
     * Releases held leases, revokes the session lease (deleting every key on it), stops the
     * session thread and closes the jetcd client if this provider created it.
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "EtcdLockProvider{" + (endpointUris.isEmpty() ? "client passed in" : "endpoints=" + endpointUris) + ", "
                + options + ", " + engine.options() + '}';
    }

    /** Builder for {@link EtcdLockProvider}. */
    public static final class Builder {
        private List<String> endpoints;
        private Client client;
        private EtcdLockOptions options = EtcdLockOptions.defaults();
        private LockOptions lockOptions = LockOptions.defaults();

        private Builder() {}

        /**
         * The cluster's endpoints, {@code host:port} or {@code http(s)://host:port} (default {@value
         * #DEFAULT_ENDPOINT}); without a scheme an endpoint is {@code https} when {@link
         * EtcdLockOptions#tls()} is on, else {@code http}. Give several members: jetcd spreads
         * requests and fails over among them.
         *
         * @throws IllegalArgumentException if empty or an endpoint is not {@code [http(s)://]host:port}
         */
        public Builder endpoints(List<String> endpoints) {
            this.endpoints = Endpoints.check(endpoints);
            return this;
        }

        /** Shortcut for {@code endpoints(List.of(endpoints))}. */
        public Builder endpoints(String... endpoints) {
            Objects.requireNonNull(endpoints, "endpoints must not be null");
            return endpoints(List.of(endpoints));
        }

        /**
         * Uses an existing jetcd client instead of building one for the {@link #endpoints}; the
         * provider does not close it. Of {@link #options(EtcdLockOptions)} only the key prefix, the
         * request timeout and {@code perLockLease} apply then (credentials, TLS and the connect
         * timeout are the client's). Requests are still bounded by the request timeout on our side;
         * give the client a deadline interceptor to bound them on the wire too. Slower under
         * contention than a client the provider builds: the provider cannot reach such a client's
         * channel, so every wait is a jetcd watcher (one gRPC stream each) and every request takes
         * jetcd's own path, instead of one shared watch stream per provider and direct gRPC calls.
         */
        public Builder client(Client client) {
            this.client = Objects.requireNonNull(client, "client must not be null");
            return this;
        }

        /** The etcd settings (default {@link EtcdLockOptions#defaults()}). */
        public Builder options(EtcdLockOptions options) {
            this.options = Objects.requireNonNull(options, "options must not be null");
            return this;
        }

        /**
         * The lease settings (default {@link LockOptions#defaults()}); {@code leaseTime} is the
         * session lease's TTL.
         */
        public Builder lockOptions(LockOptions lockOptions) {
            this.lockOptions = Objects.requireNonNull(lockOptions, "lockOptions must not be null");
            return this;
        }

        /** Shortcut for {@code lockOptions(lockOptions.mutate().leaseTime(leaseTime).build())}. */
        public Builder leaseTime(Duration leaseTime) {
            this.lockOptions = lockOptions.mutate().leaseTime(leaseTime).build();
            return this;
        }

        /**
         * The provider; it opens no connection until the first acquisition.
         *
         * @throws IllegalArgumentException if both endpoints and a client are set, or an endpoint
         *     says {@code http://} while TLS is on
         */
        public EtcdLockProvider build() {
            if (endpoints != null && client != null) {
                throw new IllegalArgumentException("set either endpoints or client, not both");
            }
            return new EtcdLockProvider(this);
        }

        @Override
        public String toString() {
            return "EtcdLockProvider.Builder{endpoints=" + endpoints + ", " + options + ", " + lockOptions + '}';
        }
    }
}
