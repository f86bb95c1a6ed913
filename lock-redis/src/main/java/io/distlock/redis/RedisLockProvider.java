package io.distlock.redis;

import io.distlock.Capabilities;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.internal.RedisDriver;
import io.distlock.redis.internal.RedisInternals;
import io.distlock.redis.internal.Topology;
import io.distlock.spi.FaultHooks;
import io.distlock.spi.LockEngine;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import redis.clients.jedis.UnifiedJedis;

/**
 * Locks on a single Redis deployment: one standalone server, a Sentinel-monitored master, or a
 * Redis Cluster ({@code redis://}, {@code rediss://}, {@code redis-sentinel://}, {@code
 * redis-cluster://}).
 *
 * <h2>Algorithm</h2>
 *
 * <ul>
 *   <li>Acquire: one Lua script (EVALSHA, EVAL on NOSCRIPT) does {@code SET lock owner NX PX
 *       leaseTime}; on success it raises the lock's fencing counter and returns the token, on
 *       failure it returns the holder's remaining TTL, which bounds how long a waiter sleeps. The
 *       owner value is 128 random bits.
 *   <li>Release: one script deletes the key only if it still holds our owner value and publishes
 *       on the lock's channel to wake waiters. Releasing a lease that was lost changes nothing.
 *   <li>Renewal: the engine's watchdog extends the TTL with a compare-and-{@code PEXPIRE} script;
 *       a renewal that finds another owner or no key marks the lease lost.
 *   <li>Lease control ({@link io.distlock.Capabilities.LeaseTiming#SERVER}: the server keeps each
 *       lock's time): a handle's own lease time ({@link DistributedLock#withLeaseTime}) is the key's
 *       TTL; {@link Lease#extend} is the same compare-and-{@code PEXPIRE} with the new lease time,
 *       which later renewals keep; {@link Lease#releaseAfter} sets the TTL to the delay instead of
 *       deleting the key (owner-only, no hand-off) and tells the waiters, which retry once and then
 *       sleep until the key expires. A holder that crashes after {@code releaseAfter} still keeps
 *       the lock for the delay.
 *   <li>Waiting: one subscriber connection per provider (thread {@code
 *       distlock-redis-subscriber-N}) serves every waiting thread of every lock name. A waiter
 *       subscribes to the lock's channel, retries once, then sleeps until a release message, the
 *       holder's TTL or its own deadline, whichever comes first.
 *   <li>Hand-off ({@link RedisLockOptions#handOff()}, default on): a waiter's failed try also
 *       queues it on the server (FIFO, in the lock's hash slot, with a deadline after which the
 *       entry is skipped); the release script makes the first live queued waiter the owner, with a
 *       new token, and publishes a grant that the subscriber routes to that waiter, which then
 *       holds the lock without a request of its own. A lost grant message is made up for by the
 *       waiter's next try (at the latest when the previous holder's TTL would have run out), which
 *       finds the lock already its own. A granted lease's validity counts from a lower bound of
 *       the grant's time computed from the server's {@code TIME}: it assumes the server's clock is
 *       not stepped (slewing is fine) between the waiter's last try and the grant.
 * </ul>
 *
 * <h2>Guarantees and their limits</h2>
 *
 * <ul>
 *   <li>Mutual exclusion holds while the server that holds the key keeps it: a single server that
 *       does not restart, or a replicated deployment that does not fail over.
 *   <li><b>Failover:</b> replication is asynchronous. A master that dies right after granting a
 *       lock may be replaced by a replica that never saw the key, and the lock is granted again
 *       ({@link Capabilities.Failover#MAY_GRANT_TWICE}). {@link RedisLockOptions#requiredReplicas()}
 *       makes every acquisition wait for replica acknowledgement (or fail), which closes this
 *       window as long as Sentinel promotes a replica that acknowledged; Redis does not promise
 *       that, so the capability stays {@code MAY_GRANT_TWICE}. Use the fencing token.
 *   <li><b>Pauses:</b> a holder paused (GC, SIGSTOP) past its lease loses the lock on the server
 *       without knowing it until it resumes; its lease reports invalid once the client-side
 *       validity deadline has passed. Writes must be fenced with the token.
 *   <li><b>Fencing:</b> tokens strictly increase per lock: {@code max(counter + 1, server time in
 *       µs)}. The counter key ({@code <prefix>:{name}:token}) is the only thing that outlives a
 *       lock; it expires after {@link RedisLockOptions#counterRetention()} without acquisitions, so
 *       unused locks leave nothing behind. The waiter queue keys ({@code <prefix>:{name}:queue},
 *       {@code :waiters}) are deleted when they empty and expire 1 s after the last deadline
 *       registered in them. Because of the server-time floor, a new token is larger
 *       than every earlier one even after the counter expired or was lost in a restart without
 *       persistence — provided the server's wall clock was not set back. {@link
 *       Capabilities#fencingSurvivesServerRestart()} is reported only if you declare persistence
 *       ({@link RedisLockOptions#assumePersistence()}).
 *   <li>Not promised FIFO (queued waiters are served in the order they queued, but a waiter
 *       queues at its second try and loses its place if it misses its deadline), not reentrant
 *       (wrap with {@link io.distlock.ReentrantLockProvider}).
 * </ul>
 *
 * <h2>Errors</h2>
 *
 * Wrong credentials ({@code WRONGPASS}, {@code NOAUTH}), a missing ACL permission ({@code NOPERM})
 * and a server certificate the TLS trust does not accept are {@link
 * io.distlock.LockConfigurationException}s, thrown by the first request (or by {@code build()}
 * where opening the client already asks the servers: Sentinel, Cluster) and never retried. A server
 * that cannot be reached or answers too late is a {@link io.distlock.BackendUnavailableException},
 * which {@code tryAcquire(maxWait)} retries until its wait runs out.
 *
 * <pre>{@code
 * try (RedisLockProvider locks = RedisLockProvider.builder()
 *         .standalone("127.0.0.1", 6379)
 *         .options(RedisLockOptions.builder().credentials(Credentials.password(secret)).build())
 *         .leaseTime(Duration.ofSeconds(10))
 *         .build()) {
 *     try (Lease lease = locks.lock("invoice-42").acquire()) {
 *         long token = lease.fencingToken().getAsLong();
 *         // ... write with the token, then lease.checkValid()
 *     }
 * }
 * }</pre>
 */
public final class RedisLockProvider implements LockProvider {
    private static final Logger log = LoggerFactory.getLogger(RedisLockProvider.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    private final LockEngine engine;
    private final RedisDriver driver;
    private final String description;

    private RedisLockProvider(Builder b) {
        UnifiedJedis client;
        boolean owns;
        if (b.client != null) {
            client = b.client;
            owns = false;
            description = "client=" + client.getClass().getSimpleName();
        } else {
            client = b.topology.connect(b.options.connection());
            owns = true;
            description = b.topology + ", tls=" + b.options.tls().isEnabled()
                    + b.options.credentials().map(c -> ", " + c).orElse("");
        }
        try {
            this.driver = RedisDriver.create(client, owns, b.options, b.lockOptions);
        } catch (RuntimeException e) {
            if (owns) {
                try {
                    client.close();
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
        this.engine = LockEngine.create(driver, b.lockOptions);
        LockOptions lo = b.lockOptions;
        long renewEvery = (long) (lo.leaseTime().toNanos() * lo.renewalFraction());
        Duration requestTimeout = b.options.timeouts().requestTimeout();
        if (b.client == null && lo.autoRenew() && requestTimeout.toNanos() >= renewEvery) {
            // renewals share one watchdog thread: one hung renewal delays the others by up to this
            log.atLevel(WARNED.getAndSet(true) ? Level.DEBUG : Level.WARN)
                    .log(
                            "distlock.redis.request_timeout_exceeds_renewal_interval requestTimeout={} renewalInterval={}",
                            requestTimeout,
                            Duration.ofNanos(renewEvery));
        }
    }

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

    /**
     * Also offers {@link FaultHooks}: {@code simulateCrash()} stops renewing and disconnects without
     * releasing, so this client's locks stay on the server until their TTL runs out, and its leases
     * are reported lost locally.
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type == FaultHooks.class) {
            return Optional.of(type.cast(engine.faultHooks(() -> {})));
        }
        if (type == RedisInternals.class) {
            return Optional.of(type.cast(driver));
        }
        return LockProvider.super.unwrap(type);
    }

    /** Releases held leases, stops the subscriber and the engine's threads, closes owned connections. */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "RedisLockProvider{" + description + ", " + engine.options() + '}';
    }

    /**
     * Builder for {@link RedisLockProvider}: choose exactly one of the address methods ({@link
     * #standalone}, {@link #sentinel}, {@link #cluster}, {@link #client}), then the backend's {@link
     * #options(RedisLockOptions)} and the common {@link #lockOptions(LockOptions)}.
     */
    public static final class Builder {
        private Topology topology;
        private UnifiedJedis client;
        private RedisLockOptions options = RedisLockOptions.defaults();
        private LockOptions lockOptions = LockOptions.defaults();

        private Builder() {}

        /** One standalone server. */
        public Builder standalone(String host, int port) {
            return topology(Topology.standalone(host, port));
        }

        /** A master monitored by Sentinel; {@code sentinels} as {@code host:port}. */
        public Builder sentinel(String masterName, List<String> sentinels) {
            return topology(Topology.sentinel(masterName, sentinels));
        }

        /** A Redis Cluster; {@code nodes} as {@code host:port}, one or more seed nodes. */
        public Builder cluster(List<String> nodes) {
            return topology(Topology.cluster(nodes));
        }

        /**
         * An existing Jedis client ({@code RedisClient}, {@code RedisSentinelClient}, {@code
         * RedisClusterClient} or another {@link UnifiedJedis}). The provider uses one of its pooled
         * connections for the subscriber and does not close the client. The connection settings of
         * {@link RedisLockOptions} (credentials, TLS, timeouts, pool size, database) are then the
         * client's; the key prefix and the request timeout (the longest wait for a subscription's
         * confirmation) still apply.
         */
        public Builder client(UnifiedJedis client) {
            Objects.requireNonNull(client, "client must not be null");
            if (topology != null) {
                throw new IllegalStateException(
                        "a server address was already set; use either client(...) or an address");
            }
            this.client = client;
            return this;
        }

        Builder topology(Topology topology) {
            if (client != null) {
                throw new IllegalStateException("a client was already set; use either client(...) or an address");
            }
            this.topology = topology;
            return this;
        }

        /** The Redis settings ({@link RedisLockOptions#defaults()} if not set). */
        public Builder options(RedisLockOptions options) {
            this.options = Objects.requireNonNull(options, "options must not be null");
            return this;
        }

        /** The lease settings shared by every backend ({@link LockOptions#defaults()} if not set). */
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
         * Opens the provider: a connection pool for the address (Sentinel and Cluster ask their
         * servers now), and the subscriber thread.
         *
         * @throws IllegalStateException if neither an address nor a client was given
         * @throws IllegalArgumentException if the TLS trust file or store cannot be read
         * @throws io.distlock.LockConfigurationException if the Sentinels or Cluster nodes refuse the
         *     credentials or the TLS trust
         * @throws io.distlock.BackendUnavailableException if the Sentinels or Cluster nodes cannot be
         *     reached
         */
        public RedisLockProvider build() {
            if (topology == null && client == null) {
                throw new IllegalStateException(
                        "no server given: call standalone(...), sentinel(...), cluster(...) or client(...)");
            }
            return new RedisLockProvider(this);
        }

        /** The address and settings; never the password. */
        @Override
        public String toString() {
            return "RedisLockProvider.Builder{" + (client != null ? "client" : topology) + ", " + options + ", "
                    + lockOptions + '}';
        }
    }
}
