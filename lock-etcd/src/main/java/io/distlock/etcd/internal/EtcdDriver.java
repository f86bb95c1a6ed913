package io.distlock.etcd.internal;

import io.distlock.Capabilities;
import io.distlock.LockOptions;
import io.distlock.Ticker;
import io.distlock.etcd.EtcdLockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import io.etcd.jetcd.Client;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The etcd driver: it puts the parts of a provider together and closes them. One session lease per
 * provider ({@link SessionLeases}), kept alive by one thread ({@link SessionThread}); each
 * acquisition attempt ({@link EtcdContender}) owns one key {@code <prefix><encoded name>/<lease
 * hex>-<slot hex>} attached to that lease ({@link LockKeys}). Requests go through {@link Kv},
 * watches through {@link DeleteWatches}: for a client the provider builds, as direct gRPC calls
 * and on one shared watch stream on that client's channel ({@link ChannelTap}); for a client the
 * user passes, through jetcd's own API.
 *
 * <p>etcd keeps each lock's time ({@link Capabilities.LeaseTiming#SERVER}): a key whose handle's
 * lease time or renewal differs from the session's hangs on a lease of its own with that TTL, and
 * an extension or a delayed release moves the key to a new lease ({@link EtcdHeld}); a crashed
 * holder keeps the lock exactly as long as that lease's TTL. Internal: public only for {@code
 * EtcdLockProvider}.
 */
public final class EtcdDriver implements LockDriver {
    static final String BACKEND = "etcd";

    static final Capabilities CAPABILITIES = Capabilities.builder()
            .fencing(Capabilities.Fencing.GLOBALLY_MONOTONIC)
            .fencingSurvivesServerRestart(true)
            .automaticRenewal(true)
            .wakeUp(Capabilities.WakeUp.NOTIFICATION)
            .fifo(true)
            .reentrant(false)
            .failover(Capabilities.Failover.HELD_LOCKS_SURVIVE)
            .leaseTiming(Capabilities.LeaseTiming.SERVER)
            .build();

    private final Client client;
    private final boolean ownsClient;
    private final String keyPrefix;
    private final boolean perLockLease;
    private final Ticker ticker;
    private final long requestTimeoutNanos;
    private final SessionThread thread;
    private final BlockingCalls calls;
    private final Kv kv;
    private final SessionLeases leases;
    private final KeyDeletes deletes;
    /** The provider's one shared watch stream; null for a client we did not build. */
    private final WatchStream watchStream;

    private final JetcdWatches jetcdWatches;
    private final Set<EtcdContender> contenders = ConcurrentHashMap.newKeySet();
    private volatile boolean crashed;

    /**
     * A driver on a jetcd client it builds (and closes) for {@code endpointUris} ({@code
     * http(s)://host:port}, see {@link Endpoints#uris}) with the connection settings of {@code
     * options}.
     */
    public static EtcdDriver connect(List<String> endpointUris, EtcdLockOptions options, LockOptions lockOptions) {
        ChannelTap tap = new ChannelTap(options.timeouts().requestTimeout());
        Client client = EtcdClients.build(endpointUris, options, tap);
        return new EtcdDriver(client, true, tap, options, lockOptions);
    }

    /**
     * A driver on the user's jetcd client, which it does not close; of {@code options} only the key
     * prefix, the request timeout and {@code perLockLease} apply.
     */
    public static EtcdDriver onClient(Client client, EtcdLockOptions options, LockOptions lockOptions) {
        return new EtcdDriver(client, false, null, options, lockOptions);
    }

    /**
     * @param tap the interceptor {@code client} was built with, or null: all watches then share one
     *     gRPC stream on the client's channel and the KV requests are direct gRPC calls; without it
     *     every watch is a jetcd watcher (one gRPC stream each) and every request takes jetcd's path
     */
    private EtcdDriver(
            Client client, boolean ownsClient, ChannelTap tap, EtcdLockOptions options, LockOptions lockOptions) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.keyPrefix = options.keyPrefix();
        this.perLockLease = options.perLockLease();
        this.ticker = lockOptions.ticker();
        this.requestTimeoutNanos = options.timeouts().requestTimeout().toNanos();
        this.thread = new SessionThread(ticker);
        this.calls = new BlockingCalls(requestTimeoutNanos);
        if (tap != null) {
            tap.onRefusal(calls::refuseAll);
        }
        JetcdKv jetcdKv = new JetcdKv(client);
        boolean needsCredentials = ownsClient && options.credentials().isPresent();
        this.kv = tap == null ? jetcdKv : new DirectKv(tap, needsCredentials, requestTimeoutNanos, jetcdKv);
        this.leases = new SessionLeases(kv, thread, calls, lockOptions, requestTimeoutNanos);
        this.deletes = new KeyDeletes(kv, thread, requestTimeoutNanos, leases::closed);
        this.watchStream = tap == null ? null : new WatchStream(tap, needsCredentials, thread, ticker);
        this.jetcdWatches = new JetcdWatches(client);
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.SESSION;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new EtcdContender(this, ctx, new LockKeys(keyPrefix, ctx.lockName()));
    }

    Kv kv() {
        return kv;
    }

    SessionLeases leases() {
        return leases;
    }

    SessionThread thread() {
        return thread;
    }

    BlockingCalls calls() {
        return calls;
    }

    KeyDeletes deletes() {
        return deletes;
    }

    /**
     * Where to watch now: the shared watch stream if there is one and it is usable ({@link
     * WatchStream#usable()}), else jetcd's watchers.
     */
    DeleteWatches watches() {
        WatchStream ws = watchStream;
        return ws != null && ws.usable() ? ws : jetcdWatches;
    }

    Ticker ticker() {
        return ticker;
    }

    long requestTimeoutNanos() {
        return requestTimeoutNanos;
    }

    boolean perLockLease() {
        return perLockLease;
    }

    boolean closed() {
        return leases.closed();
    }

    /** Tracks {@code c} so that {@link #close()} wakes it; wakes it at once if already closed. */
    void register(EtcdContender c) {
        contenders.add(c);
        if (closed()) {
            c.wake();
        }
    }

    void unregister(EtcdContender c) {
        contenders.remove(c);
    }

    /** The lease id of the current session, or -1. */
    public long currentLeaseId() {
        return leases.currentLeaseId();
    }

    /** Watches set up on the shared watch stream so far; -1 without one. */
    public long sharedWatchesSetUp() {
        return watchStream == null ? -1 : watchStream.watchesSetUp();
    }

    /** gRPC streams the shared watch stream opened so far; -1 without one. */
    public long watchStreamsOpened() {
        return watchStream == null ? -1 : watchStream.streamsOpened();
    }

    /** The client should behave like a killed process: {@link #close()} will not revoke any lease. */
    public void crash() {
        crashed = true;
    }

    /**
     * Wakes every waiting attempt, ends the watch stream, revokes the leases (deleting their keys;
     * not after {@link #crash()}), closes the client if the driver built it and stops the session
     * thread.
     *
     * @throws io.distlock.BackendUnavailableException if a revoke failed (the keys then expire
     *     with their leases' TTL)
     */
    @Override
    public void close() {
        calls.failAll(); // first: a session grant in flight holds the leases' lock
        if (!leases.close()) {
            return;
        }
        calls.close();
        thread.shutdown();
        if (watchStream != null) {
            watchStream.close();
        }
        for (EtcdContender c : contenders) {
            c.wake();
        }
        try {
            leases.revokeAll(crashed);
        } finally {
            if (ownsClient) {
                client.close();
            }
            thread.awaitTermination();
        }
    }
}
