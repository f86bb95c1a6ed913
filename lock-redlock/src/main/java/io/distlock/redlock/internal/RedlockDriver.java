package io.distlock.redlock.internal;

import io.distlock.Capabilities;
import io.distlock.LockOptions;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Scripts;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.Contender;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Redlock driver over N independent masters ({@link Node}s). Every round goes to all nodes at
 * once (each node has its own connection pool and I/O threads) and ends as soon as its outcome is
 * decided or after the per-node timeout ({@link Round}, {@link Quorum}). The Lua scripts are
 * lock-redis-core's {@link Scripts} ({@code REDLOCK_*}, {@code RENEW}, {@code RENEW_PACKED} for the
 * locks due in one renewal tick ({@link RedlockBatchRenewal}), and {@code RELEASE} to undo a failed
 * try); the key layout is {@link RedisKeys} under Redlock's own prefix.
 *
 * <p>Acquisition with fencing (one round, two when the nodes' counters differ): round 1 is {@code
 * SET lock owner NX PX lease} on every node and, where granted, increments the node's fencing
 * counter in the same script; with a majority, {@code t = max(values returned by granting nodes)}.
 * If a majority returned exactly {@code t}, {@code t} is already written on a majority and the lock
 * is held; otherwise round 2 raises the counter to {@code t} on every node that still holds our
 * owner value, and the lock is held only if round 2 succeeded on a majority before the validity
 * ({@code lease - elapsed - drift}) ran out; otherwise it is released on every node, including those
 * that did not answer. Without fencing, round 1 alone decides (the counters still move). See
 * {@link RedlockContender} and {@link RedlockHeldLock}.
 *
 * <p>Waiting: a provider's waiters of a lock are one member of the lock's wake-up queue on every
 * node, with a wake channel of their own (lock-redis-core's {@code Subscriber}, one per node, merged
 * by {@link Waiters}); a release wakes the first live member on each node it deleted from, and one
 * waiter in it. Waits are bounded by the holder's TTL; after a split vote a waiter asks one leader
 * node first, so contenders retrying together do not split the votes again; a jittered delay of up
 * to {@link RedlockLockOptions#maxRetryDelay()} when fewer than a majority of subscriptions are
 * confirmed.
 */
public final class RedlockDriver implements LockDriver, RedlockInternals {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final Quorum quorum;
    private final Capabilities capabilities;
    private final CountDownLatch closedSignal = new CountDownLatch(1);
    private final Waiters waiters;
    private final RedlockBatchRenewal batchRenewal;
    private volatile boolean closed;

    private RedlockDriver(List<NodeAddress> addresses, RedlockLockOptions options, LockOptions lockOptions) {
        this.capabilities = Capabilities.builder()
                .fencing(options.fencing() ? Capabilities.Fencing.MONOTONIC_PER_LOCK : Capabilities.Fencing.NONE)
                .fencingSurvivesServerRestart(options.fencing() && options.assumePersistence())
                .automaticRenewal(true)
                .wakeUp(Capabilities.WakeUp.NOTIFICATION)
                .fifo(false)
                .reentrant(false)
                .failover(Capabilities.Failover.MAY_GRANT_TWICE)
                .leaseTiming(Capabilities.LeaseTiming.SERVER)
                .build();
        String threadPrefix = "distlock-redlock-io-" + SEQUENCE.incrementAndGet();
        List<Node> opened = new ArrayList<>();
        try {
            for (int i = 0; i < addresses.size(); i++) {
                opened.add(new Node(i, addresses.get(i), options, lockOptions.ticker(), threadPrefix));
            }
        } catch (RuntimeException e) {
            opened.forEach(Node::close);
            throw e;
        }
        List<Node> nodes = List.copyOf(opened);
        this.quorum = new Quorum(nodes, options, lockOptions.ticker(), new RedisKeys(options.keyPrefix()));
        this.waiters = new Waiters(nodes, lockOptions.ticker(), quorum.keys());
        this.batchRenewal = new RedlockBatchRenewal(
                quorum, (long) (lockOptions.leaseTime().toNanos() * lockOptions.renewalFraction()));
        List<Scripts.Script> scripts = new ArrayList<>(List.of(
                Scripts.REDLOCK_ACQUIRE,
                Scripts.RENEW,
                Scripts.REDLOCK_RELEASE,
                Scripts.RELEASE,
                Scripts.REDLOCK_ACQUIRE_QUEUED,
                Scripts.REDLOCK_RELEASE_AFTER,
                Scripts.REDLOCK_LEAVE,
                Scripts.RENEW_PACKED));
        if (options.fencing()) {
            scripts.add(1, Scripts.REDLOCK_RAISE);
        }
        nodes.forEach(n -> n.warmUp(scripts));
    }

    /**
     * A driver over {@code addresses} (one independent master each, with its own credentials where
     * given, the provider-wide ones from {@code options} otherwise).
     *
     * @throws IllegalArgumentException for fewer than 3 nodes, an even number of nodes (unless
     *     allowed), or a node given twice
     */
    public static RedlockDriver create(
            List<NodeAddress> addresses, RedlockLockOptions options, LockOptions lockOptions) {
        int n = addresses.size();
        if (n < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent nodes (was " + n + ")");
        }
        if (n % 2 == 0 && !options.allowEvenNodeCount()) {
            throw new IllegalArgumentException("the number of Redlock nodes must be odd (was " + n
                    + "; an even count tolerates no more failures than one node less; allowEvenNodeCount(true)"
                    + " accepts it)");
        }
        if (addresses.stream().distinct().count() != n) {
            throw new IllegalArgumentException("Redlock nodes must be distinct (was " + addresses + ")");
        }
        return new RedlockDriver(addresses, options, lockOptions);
    }

    /** {@code host:port} of each node, in configuration order. */
    public List<String> addresses() {
        return quorum.nodes().stream().map(Node::address).toList();
    }

    @Override
    public RedisKeys keys() {
        return quorum.keys();
    }

    @Override
    public long renewalPipelines() {
        return quorum.nodes().stream().mapToLong(Node::pipelines).sum();
    }

    /** The nodes, in configuration order (for tests in this package). */
    List<Node> nodes() {
        return quorum.nodes();
    }

    Quorum quorum() {
        return quorum;
    }

    Waiters waiters() {
        return waiters;
    }

    boolean isClosed() {
        return closed;
    }

    /** Sleeps from {@code now} until {@code until}; {@link #close()} ends the sleep at once. */
    void sleepUntil(long until, long now) throws InterruptedException {
        long left = until - now;
        if (left > 0) {
            closedSignal.await(left, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public String backend() {
        return Quorum.BACKEND;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.WATCHDOG;
    }

    /** The locks due in one renewal tick, renewed with one round trip per node ({@link RedlockBatchRenewal}). */
    @Override
    public BatchRenewal batchRenewal() {
        return batchRenewal;
    }

    /**
     * A contender for {@code ctx}'s lock, with its lease time (the provider's, or the handle's own).
     *
     * @throws IllegalArgumentException if the lease time is not more than twice the node timeout
     *     (see {@link Quorum#checkLeaseTime})
     */
    @Override
    public Contender contender(AcquireContext ctx) {
        quorum.checkLeaseTime(ctx.leaseTime());
        return new RedlockContender(this, ctx);
    }

    @Override
    public void close() {
        closed = true;
        closedSignal.countDown();
        waiters.close();
        RuntimeException failure = null;
        // every node's releases drain at once, within one shared grace
        long drainDeadline = System.nanoTime();
        for (Node n : quorum.nodes()) {
            n.stopTakingReleases();
            drainDeadline = Math.max(drainDeadline, System.nanoTime() + n.releaseGraceNanos());
        }
        for (Node n : quorum.nodes()) {
            try {
                n.closeBy(drainDeadline);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
