package io.distlock.redlock;

import io.distlock.Capabilities;
import io.distlock.Credentials;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.redis.core.ConnectionChecks;
import io.distlock.redlock.internal.NodeAddress;
import io.distlock.redlock.internal.RedlockDriver;
import io.distlock.redlock.internal.RedlockInternals;
import io.distlock.spi.FaultHooks;
import io.distlock.spi.LockEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Locks held on a majority of N independent Redis masters (the Redlock algorithm), with fencing
 * tokens from a majority max-register ({@code redlock://host1:port,host2:port,host3:port}).
 *
 * <h2>Algorithm</h2>
 *
 * <ul>
 *   <li>N independent masters (no replication between them), N odd and at least 3; an even N only
 *       with {@link RedlockLockOptions#allowEvenNodeCount()}. Each node has its own Jedis pool and its
 *       own small I/O executor (threads {@code distlock-redlock-io-N-nodeK-M}, daemon, stopped on
 *       {@link #close()}), plus a release lane of the same size ({@code ...-nodeK-release-M}) so a
 *       release never queues behind acquisition rounds.
 *   <li>Every round is sent to all nodes at once and ends as soon as its outcome is decided (a
 *       majority {@code N/2+1} said yes, or a majority has become impossible), or once every pending
 *       node had {@link RedlockLockOptions#nodeTimeout()} from the moment its request was sent (a
 *       client thread scheduled late does not count against the node); a node that has not
 *       answered by then counts as failed. A request still unsent at its round's first deadline once
 *       the round is over (a backlog behind a stalled node) is dropped, not sent late.
 *   <li>Acquire, round 1: a Lua script per node does {@code SET lock owner NX PX leaseTime} and,
 *       where granted, increments the node's fencing counter in the same script (a node without
 *       one starts it at its clock in µs) and returns the new value. The lock counts as acquired
 *       only with a majority and
 *       positive validity, {@code validity = leaseTime - elapsed - drift} with {@code drift =
 *       leaseTime * clockDriftFactor + minimumSafetyMargin} ({@link LockOptions}; 1% + 2 ms by
 *       default). Otherwise it is released on every node, including nodes that did not answer
 *       (after their pending request), and the caller tries again after a random delay.
 *   <li>Fencing token: {@code t = max(values returned by the nodes that granted round 1)}. If a
 *       majority returned exactly {@code t} (the usual case: grants move the counters together),
 *       the lock is held after that one round. Otherwise round 2: a script per node raises the
 *       counter (a key without TTL) to {@code t} only while the node still holds our owner value;
 *       acquired only if round 2 succeeded on a majority before the validity ran out, otherwise
 *       released everywhere. {@link RedlockLockOptions#fencing()} {@code false} never runs round 2 and
 *       hands out no token.
 *   <li>Release: compare-and-delete on every node in parallel, on the release lanes; a node whose
 *       round-1 request was still queued (never sent) is skipped. Renewal (the engine's watchdog):
 *       compare-and-{@code PEXPIRE} on every node; it succeeds only if a majority extended within
 *       the remaining validity. Total hold time can be capped with {@link
 *       LockOptions#maxHoldTime()}.
 *   <li>Lease control ({@link Capabilities.LeaseTiming#SERVER}: every node expires the lock at its
 *       own time to live). A handle's lease time ({@link DistributedLock#withLeaseTime}) is the time
 *       to live round 1 sets; {@link Lease#extend} is the renewal's round with another
 *       time to live, extended only if a majority set it within the remaining validity, the new
 *       validity counted from before the round; {@link Lease#releaseAfter} sets the
 *       delay as time to live on every node instead of deleting. A lease time of at most twice
 *       {@link RedlockLockOptions#nodeTimeout()}, for a handle or an extension, is rejected with an
 *       {@link IllegalArgumentException} naming the shortest one this provider can hold.
 *   <li>Waiting is notification ({@link Capabilities.WakeUp#NOTIFICATION}), one provider per
 *       release: every node keeps a wake-up queue per lock, in which a provider with waiters of the
 *       lock is one member with its own wake channel (lock-redis-core's pub/sub subscriber, one
 *       connection and thread {@code distlock-redis-subscriber-N} per node, started on first use;
 *       one subscription per node and lock name, whatever the number of waiters). From its second
 *       try on, a waiter's round 1 queues the member on every node that refuses it; a release wakes
 *       only the first live member queued on each node it deleted from, and in that provider one
 *       waiter (the longest waiting one), which acquires like any contender: round 1 on every node,
 *       the fencing round where needed. The queue orders wake-ups and nothing else (not FIFO: a
 *       contender that did not wait may take the lock first). A wait is bounded by the shortest
 *       TTL a refusing node reported for the holder's key. Fallback while fewer than a majority of
 *       subscriptions are confirmed, or when no node reported a TTL: a random delay between a
 *       quarter of and {@link RedlockLockOptions#maxRetryDelay()}. After a split vote it retries
 *       after a random delay of up to a quarter of that, asking one leader node first (chosen by
 *       the lock name's hash) and the other nodes only if the leader granted.
 *   <li>Failures: if so many nodes fail or time out that a majority is impossible, the attempt
 *       throws {@link io.distlock.BackendUnavailableException} naming the unreachable nodes.
 * </ul>
 *
 * <h2>Guarantees and their limits</h2>
 *
 * <ul>
 *   <li><b>Mutual exclusion</b> holds while (a) client pauses, network delays and clock-rate
 *       differences stay within the drift allowance, and (b) a node that held a lock does not come
 *       back without it while that lock may still be valid. A node restarted <em>without
 *       persistence</em> while a lock is held forgets it, and a second client can gather a majority
 *       ({@link Capabilities.Failover#MAY_GRANT_TWICE}). Two ways to prevent that: keep a restarted
 *       node down for longer than the longest lease time ("delayed restart"), or run every node
 *       with {@code appendonly yes} and {@code appendfsync always}.
 *   <li><b>Pauses:</b> a holder paused (GC, SIGSTOP) past its validity loses the lock without
 *       knowing it until it resumes; its lease reports invalid once the client-side validity
 *       deadline has passed. Writes must be fenced with the token.
 *   <li><b>Fencing tokens</b> ({@link Capabilities.Fencing#MONOTONIC_PER_LOCK}) are unique and
 *       strictly increase from one holder of a lock to the next, <em>provided that no node that
 *       wrote a holder's token loses its counter key</em> before the next holder's round 1
 *       increments it. The argument: before its acquisition returned, the previous holder had its
 *       token written on a majority of nodes while holding the lock there (by round 1's increment,
 *       or by round 2); the next holder's round-1 majority intersects it; on the common node that
 *       write happened before the next holder's {@code SET NX} succeeded, so the next holder's
 *       increment there returns more than the previous token, and its token (the largest value of
 *       its majority) is larger. Two holders cannot get the same token, because each token is
 *       written on a majority only while its holder holds the lock there. The assumption holds when every node persists each write before answering (AOF
 *       with {@code appendfsync always}); then set {@link RedlockLockOptions#assumePersistence()} and
 *       the provider reports {@link Capabilities#fencingSurvivesServerRestart()}. A delayed restart
 *       protects mutual exclusion but <em>not</em> the counters.
 *       <p>Without persistence, tokens still increase across data loss through the <b>clock
 *       floor</b>: a node without a counter starts it at its clock in µs, and a counter grows by
 *       one per grant, far slower than a clock in µs; so a next holder whose majority meets the
 *       previous one only on nodes that lost their counters (restart without data) gets at least
 *       those nodes' clock readings. That token is larger than the previous one provided that (a)
 *       no node's clock is set back (NTP step, VM restore, manual change), and (b) the node clocks
 *       differ by less than the time since the counters' first use — the previous token is at most
 *       the fastest node's clock at that first use plus one per grant since. This rests on node
 *       clocks, not on anything the protocol checks, so the declared capability does not change:
 *       {@code fencingSurvivesServerRestart} stays {@code false} without {@code
 *       assumePersistence} (tested, not promised). Tokens are therefore large numbers (about 1.7 ×
 *       10<sup>15</sup> in 2024), not small counters. Counter keys ({@code <prefix>:{name}:token})
 *       have no TTL; each lock name leaves one small key per node.
 *   <li>Not FIFO, not reentrant (wrap with {@link io.distlock.ReentrantLockProvider}).
 * </ul>
 *
 * <pre>{@code
 * try (RedlockLockProvider locks = RedlockLockProvider.builder()
 *         .nodes("10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379")
 *         .options(RedlockLockOptions.builder().nodeTimeout(Duration.ofMillis(50)).build())
 *         .leaseTime(Duration.ofSeconds(10))
 *         .build()) {
 *     try (Lease lease = locks.lock("invoice-42").acquire()) {
 *         long token = lease.fencingToken().getAsLong();
 *         // ... write with the token, then lease.checkValid()
 *     }
 * }
 * }</pre>
 */
public final class RedlockLockProvider implements LockProvider {
    private final LockEngine engine;
    private final RedlockDriver driver;
    private final RedlockLockOptions options;

    private RedlockLockProvider(Builder b) {
        this.options = b.options;
        this.driver = RedlockDriver.create(b.nodes, b.options, b.lockOptions);
        this.engine = LockEngine.create(driver, b.lockOptions);
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

    /** {@code host:port} of each node, in configuration order. */
    public List<String> nodes() {
        return driver.addresses();
    }

    @Override
    public List<Lease> heldLeases() {
        return engine.heldLeases();
    }

    /**
     * Also offers {@link FaultHooks}: {@code simulateCrash()} stops renewing and disconnects without
     * releasing, so this client's locks stay on the nodes until their TTL runs out, and its leases
     * are reported lost locally.
     */
    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        if (type == FaultHooks.class) {
            return Optional.of(type.cast(engine.faultHooks(() -> {})));
        }
        if (type == RedlockInternals.class) {
            return Optional.of(type.cast(driver));
        }
        return LockProvider.super.unwrap(type);
    }

    /**
     * Releases every lease still held (as {@link LockProvider#close()} says), lets releases whose
     * deletes a slower node has not answered yet finish for up to two node timeouts (a release
     * returns once a majority has answered), then stops every thread and closes every connection.
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "RedlockLockProvider{nodes=" + driver.addresses() + ", " + options + ", " + engine.options() + '}';
    }

    /**
     * Builder for {@link RedlockLockProvider}: the nodes ({@link #nodes(String...)}, {@link
     * #node(String, int)}, {@link #node(String, int, Credentials)}), then the backend's {@link
     * #options(RedlockLockOptions)} and the common {@link #lockOptions(LockOptions)}.
     */
    public static final class Builder {
        private final List<NodeAddress> nodes = new ArrayList<>();
        private RedlockLockOptions options = RedlockLockOptions.defaults();
        private LockOptions lockOptions = LockOptions.defaults();

        private Builder() {}

        /** Adds a node that authenticates with the provider-wide {@link RedlockLockOptions#credentials()}. */
        public Builder node(String host, int port) {
            return node(NodeAddress.of(ConnectionChecks.hostAndPort(host, port)));
        }

        /**
         * Adds a node with credentials of its own, used for this node instead of the provider-wide
         * {@link RedlockLockOptions#credentials()} (TLS settings stay provider-wide). Each node of a
         * Redlock is an independent server, so each may have its own ACL user and password. The
         * password is never shown in a message, a log line or {@code toString()}; a node whose
         * credentials are refused is named (by {@code host:port}) in a WARN log line and, if the
         * refusing nodes leave too few for a majority, in the {@link
         * io.distlock.LockConfigurationException}.
         *
         * @throws IllegalArgumentException if the user name contains whitespace or the password is
         *     empty
         */
        public Builder node(String host, int port, Credentials credentials) {
            return node(NodeAddress.withCredentials(ConnectionChecks.hostAndPort(host, port), credentials));
        }

        /** Adds nodes given as {@code host:port} ({@code [v6addr]:port} for IPv6). */
        public Builder nodes(String... hostPorts) {
            return nodes(List.of(hostPorts));
        }

        /** Adds nodes given as {@code host:port} ({@code [v6addr]:port} for IPv6). */
        public Builder nodes(List<String> hostPorts) {
            Objects.requireNonNull(hostPorts, "hostPorts must not be null");
            for (String hp : hostPorts) {
                node(NodeAddress.of(ConnectionChecks.parseHostAndPort(hp)));
            }
            return this;
        }

        Builder node(NodeAddress node) {
            nodes.add(node);
            return this;
        }

        /** The Redlock settings ({@link RedlockLockOptions#defaults()} if not set). */
        public Builder options(RedlockLockOptions options) {
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
         * Opens the provider. It never blocks on the nodes: each node's I/O thread opens a first
         * connection and loads the scripts in the background (failures are logged there; the first
         * round reports them).
         *
         * @throws IllegalArgumentException for fewer than 3 nodes, an even number (unless allowed),
         *     a node given twice, a {@link RedlockLockOptions#nodeTimeout()} not below half the lease
         *     time (a round must leave most of the lease as validity), or a TLS trust file or store
         *     that cannot be read
         */
        public RedlockLockProvider build() {
            Duration lease = lockOptions.leaseTime();
            if (options.nodeTimeout().multipliedBy(2).compareTo(lease) >= 0) {
                throw new IllegalArgumentException("nodeTimeout must be below half the leaseTime (nodeTimeout "
                        + options.nodeTimeout() + ", leaseTime " + lease + ")");
            }
            return new RedlockLockProvider(this);
        }

        /** The nodes and settings; never a password. */
        @Override
        public String toString() {
            return "RedlockLockProvider.Builder{nodes=" + nodes + ", " + options + ", " + lockOptions + '}';
        }
    }
}
