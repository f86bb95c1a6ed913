package io.distlock.redis.internal;

import io.distlock.Capabilities;
import io.distlock.LockOptions;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Subscriber;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.Contender;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis driver: one Lua script per acquisition, release and renewal ({@link LockScripts}), the
 * renewals of one tick in one round trip per server ({@link RedisBatchRenewal}),
 * waiting through the provider's single {@link Subscriber}, and on Sentinel the {@link
 * FailoverTracker}. Each attempt is a {@link RedisContender}, each hold a {@link RedisHeldLock}.
 */
public final class RedisDriver implements LockDriver, RedisInternals {
    private static final String BACKEND = "redis";

    private final UnifiedJedis client;
    private final boolean ownsClient;
    private final RedisLockOptions options;
    private final RedisKeys keys;
    private final Capabilities capabilities;
    private final Subscriber subscriber;
    private final LockScripts scripts;
    private final RedisBatchRenewal renewal;
    /** Whether waiters queue and releases hand the lock over (see {@link RedisLockOptions#handOff()}). */
    private final boolean queued;

    private final FailoverTracker failover;
    private final CarriedOwners carriedOwners = new CarriedOwners();
    private volatile boolean closed;

    private RedisDriver(UnifiedJedis client, boolean ownsClient, RedisLockOptions options, LockOptions lockOptions) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.options = options;
        this.keys = new RedisKeys(options.keyPrefix());
        this.capabilities = Capabilities.builder()
                .fencing(Capabilities.Fencing.MONOTONIC_PER_LOCK)
                .fencingSurvivesServerRestart(options.assumePersistence())
                .automaticRenewal(true)
                .wakeUp(Capabilities.WakeUp.NOTIFICATION)
                .fifo(false)
                .reentrant(false)
                .failover(Capabilities.Failover.MAY_GRANT_TWICE)
                .leaseTiming(Capabilities.LeaseTiming.SERVER)
                .build();
        long lease = lockOptions.leaseTime().toMillis();
        long retention = options.counterRetention().toMillis();
        long margin = LockScripts.marginMillis(lease);
        this.scripts = new LockScripts(
                new ScriptCalls(
                        client,
                        options.requiredReplicas(),
                        options.replicaAckTimeout().toMillis(),
                        options.timeouts().requestTimeout()),
                Math.max(retention, Math.multiplyExact(lease, 10)));
        this.renewal = new RedisBatchRenewal(scripts.calls(), keys, lockOptions.ticker());
        this.queued = options.handOff() && options.requiredReplicas() == 0;
        this.subscriber = new Subscriber(client, options.keyPrefix(), lockOptions.ticker());
        // an entry written before a failover lives at most hint (≤ a lease) + margin after its
        // last refresh, which was before the lost connection
        long purgeWindowNanos = TimeUnit.MILLISECONDS.toNanos(lease + margin + TimeUnit.SECONDS.toMillis(1));
        this.failover = new FailoverTracker(
                client instanceof RedisSentinelClient s ? s : null,
                subscriber,
                lockOptions.ticker(),
                lockOptions.leaseTime().toNanos(),
                purgeWindowNanos,
                scripts,
                queued,
                () -> closed);
    }

    /**
     * A driver on {@code client}, which it closes on {@link #close()} only if {@code ownsClient}.
     * Starts the subscriber thread.
     */
    public static RedisDriver create(
            UnifiedJedis client, boolean ownsClient, RedisLockOptions options, LockOptions lockOptions) {
        RedisDriver d = new RedisDriver(client, ownsClient, options, lockOptions);
        d.failover.attach();
        d.subscriber.start();
        return d;
    }

    @Override
    public RedisKeys keys() {
        return keys;
    }

    @Override
    public int subscribedChannels() {
        return subscriber.channelCount();
    }

    @Override
    public long renewalPipelines() {
        return renewal.pipelines();
    }

    RedisLockOptions options() {
        return options;
    }

    Subscriber subscriber() {
        return subscriber;
    }

    LockScripts scripts() {
        return scripts;
    }

    boolean queued() {
        return queued;
    }

    FailoverTracker failover() {
        return failover;
    }

    CarriedOwners carriedOwners() {
        return carriedOwners;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.WATCHDOG;
    }

    /** One round trip per server for the locks due in a renewal tick ({@link RedisBatchRenewal}). */
    @Override
    public BatchRenewal batchRenewal() {
        return renewal;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new RedisContender(this, ctx);
    }

    @Override
    public void close() {
        closed = true;
        try {
            subscriber.close();
            renewal.close();
        } finally {
            if (ownsClient) {
                client.close();
            }
        }
    }
}
