package io.distlock.etcd.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockNames;
import io.distlock.LockOptions;
import io.distlock.Ticker;
import io.distlock.etcd.EtcdLockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The etcd driver: one session lease per provider, kept alive by one thread ({@code
 * distlock-etcd-session-N}); each acquisition attempt owns one key {@code
 * <prefix><encoded name>/<lease hex>-<slot hex>} attached to that lease (a slot is reused once the
 * key of the attempt that had it is deleted, see {@link Session#takeSlot()}). Internal: use {@code
 * io.distlock.etcd.EtcdLockProvider}.
 */
public final class EtcdDriver implements LockDriver {
    static final String BACKEND = "etcd";
    private static final Logger log = LoggerFactory.getLogger(EtcdDriver.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    static final Capabilities CAPABILITIES = Capabilities.builder()
            .fencing(Capabilities.Fencing.GLOBALLY_MONOTONIC)
            .fencingSurvivesServerRestart(true)
            .automaticRenewal(true)
            .wakeUp(Capabilities.WakeUp.NOTIFICATION)
            .fifo(true)
            .reentrant(false)
            .failover(Capabilities.Failover.HELD_LOCKS_SURVIVE)
            .build();

    private final Client client;
    private final boolean ownsClient;
    private final EtcdLockOptions etcdOptions;
    private final LockOptions lockOptions;
    private final Ticker ticker;
    private final long requestTimeoutNanos;
    private final long keepaliveIntervalNanos;
    private final long ttlSeconds;
    private final ScheduledThreadPoolExecutor scheduler;
    private final Set<EtcdContender> contenders = ConcurrentHashMap.newKeySet();
    private final boolean perLockLease;
    private final Set<Session> lockLeases = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> awaiting = ConcurrentHashMap.newKeySet();
    private final Object sessionLock = new Object();
    private Session current;
    private volatile boolean closed;
    private volatile boolean crashed;
    /** The provider's one shared watch stream; null for a client we did not build (jetcd's watches then). */
    private final WatchStream watchStream;
    /** Direct gRPC calls for the contenders' KV requests; null for a client we did not build. */
    private final DirectKv directKv;

    private long resumeDelayNanos = RESUME_FIRST_NANOS; // guarded by the scheduler thread / resume task
    private static final long RESUME_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long RESUME_MAX_NANOS = TimeUnit.SECONDS.toNanos(2);

    /**
     * @param client the jetcd client to use
     * @param ownsClient whether {@link #close()} closes {@code client}
     */
    public EtcdDriver(Client client, boolean ownsClient, EtcdLockOptions etcdOptions, LockOptions lockOptions) {
        this(client, ownsClient, etcdOptions, lockOptions, null);
    }

    /**
     * @param client the jetcd client to use
     * @param ownsClient whether {@link #close()} closes {@code client}
     * @param tap the interceptor {@code client} was built with ({@link #channelTap}), or null: all
     *     watches then share one gRPC stream on the client's channel; without it every watch is a
     *     jetcd watcher (one gRPC stream each)
     */
    public EtcdDriver(
            Client client, boolean ownsClient, EtcdLockOptions etcdOptions, LockOptions lockOptions, ChannelTap tap) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.etcdOptions = etcdOptions;
        this.lockOptions = lockOptions;
        this.ticker = lockOptions.ticker();
        this.requestTimeoutNanos = etcdOptions.requestTimeout().toNanos();
        this.perLockLease = etcdOptions.perLockLease();
        this.keepaliveIntervalNanos =
                Math.max(1_000_000L, (long) (lockOptions.leaseTime().toNanos() * lockOptions.renewalFraction()));
        long ms = lockOptions.leaseTime().toMillis();
        this.ttlSeconds = Math.max(1, (ms + 999) / 1000);
        String name = "distlock-etcd-session-" + SEQUENCE.incrementAndGet();
        this.scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        boolean needsCredentials = ownsClient && etcdOptions.user().isPresent();
        this.watchStream =
                tap == null ? null : new WatchStream(tap, needsCredentials, this::resumeWatchesLater, ticker);
        this.directKv = tap == null ? null : new DirectKv(tap, needsCredentials, requestTimeoutNanos);
    }

    /**
     * The acquire transaction: {@code request} as a direct gRPC call if this driver has the
     * client's channel ({@link DirectKv}), else (and if that call fails) {@code jetcd}.
     */
    CompletableFuture<io.etcd.jetcd.kv.TxnResponse> txn(
            java.util.function.Supplier<io.etcd.jetcd.api.TxnRequest> request,
            java.util.function.Supplier<CompletableFuture<io.etcd.jetcd.kv.TxnResponse>> jetcd) {
        return directKv == null ? jetcd.get() : directKv.txn(request, jetcd);
    }

    /** A range read: {@code request} directly ({@link DirectKv}) or {@code jetcd}, as for {@link #txn}. */
    CompletableFuture<io.etcd.jetcd.kv.GetResponse> range(
            java.util.function.Supplier<io.etcd.jetcd.api.RangeRequest> request,
            java.util.function.Supplier<CompletableFuture<io.etcd.jetcd.kv.GetResponse>> jetcd) {
        return directKv == null ? jetcd.get() : directKv.range(request, jetcd);
    }

    private CompletableFuture<io.etcd.jetcd.kv.DeleteResponse> delete(ByteSequence key) {
        return directKv == null ? kv().delete(key) : directKv.delete(key, () -> kv().delete(key));
    }

    /**
     * The interceptor for a client the provider builds: a deadline on every unary call, and the
     * channel and credentials the driver's shared watch stream uses; pass the same object to the
     * constructor.
     */
    public static ChannelTap channelTap(EtcdLockOptions options) {
        return new ChannelTap(options.requestTimeout());
    }

    /**
     * Watches {@code key} for deletes: on the provider's shared watch stream if there is one (a
     * create request on it, a cancel request when the handle is cancelled), else with a jetcd
     * watcher (a gRPC stream of its own). {@code startRevision} 0: from the server's current
     * revision on; {@code resumable}: made again from the last revision seen if the stream breaks
     * (else {@link WatchStream.Listener#failed}).
     */
    WatchStream.Handle watchDeletes(
            ByteSequence key, long startRevision, boolean resumable, WatchStream.Listener listener) {
        WatchStream ws = watchStream;
        if (ws != null && ws.usable()) {
            return ws.watch(key, startRevision, resumable, listener);
        }
        return jetcdWatch(key, startRevision, false, listener);
    }

    /** A jetcd watcher (a gRPC stream of its own) for deletes of {@code key}; see {@link #watchDeletes}. */
    private WatchStream.Handle jetcdWatch(
            ByteSequence key, long startRevision, boolean prevKv, WatchStream.Listener listener) {
        io.etcd.jetcd.options.WatchOption.Builder opt = io.etcd.jetcd.options.WatchOption.builder()
                .withNoPut(true)
                .withCreateNotify(true)
                .withPrevKV(prevKv);
        if (startRevision > 0) {
            opt.withRevision(startRevision);
        }
        Watch.Watcher w = watch().watch(key, opt.build(), new Watch.Listener() {
            @Override
            public void onNext(io.etcd.jetcd.watch.WatchResponse response) {
                if (response.isCreatedNotify()) {
                    listener.created(response.getHeader().getRevision());
                }
                for (io.etcd.jetcd.watch.WatchEvent e : response.getEvents()) {
                    if (e.getEventType() == io.etcd.jetcd.watch.WatchEvent.EventType.DELETE) {
                        io.etcd.jetcd.KeyValue prev = e.getPrevKV();
                        long marked = prevKv && prev != null
                                ? EtcdContender.markedHolderRevision(
                                        prev.getValue().getBytes(), prev.getCreateRevision())
                                : 0;
                        listener.deleted(e.getKeyValue().getModRevision(), marked);
                    }
                }
            }

            @Override
            public void onError(Throwable t) {
                listener.failed("watch failed: " + t);
            }

            @Override
            public void onCompleted() {
                listener.failed("watch ended");
            }
        });
        return w::close;
    }

    /**
     * Waits for a delete of {@code key} after revision {@code after}: on a standing watch of the
     * shared stream ({@link WatchStream#waitForDelete}) if there is one, else on a new jetcd watcher
     * from the server's current revision (its {@code created} revision tells the caller whether a
     * delete before it could have been missed, exactly as for a standing watch).
     */
    WatchStream.Handle waitForDelete(ByteSequence key, long after, WatchStream.Listener listener) {
        WatchStream ws = watchStream;
        if (ws != null && ws.usable()) {
            return ws.waitForDelete(key, after, listener);
        }
        return jetcdWatch(key, 0, true, listener);
    }

    /** Runs {@code task} on the session thread (soon); dropped if the provider is closing. */
    void runOnSessionThread(Runnable task) {
        try {
            scheduler.execute(task);
        } catch (RejectedExecutionException closing) {
            // the provider is closing: its locks end with it
        }
    }

    /** Watches set up on the shared watch stream so far; -1 without one (for tests). */
    public long sharedWatchesSetUp() {
        return watchStream == null ? -1 : watchStream.watchesSetUp();
    }

    /** gRPC streams the shared watch stream opened so far; -1 without one (for tests). */
    public long watchStreamsOpened() {
        return watchStream == null ? -1 : watchStream.streamsOpened();
    }

    private void resumeWatchesLater() {
        try {
            scheduler.schedule(
                    () -> {
                        if (closed) {
                            return;
                        }
                        if (watchStream.resume()) {
                            resumeDelayNanos = Math.min(resumeDelayNanos * 2, RESUME_MAX_NANOS);
                            resumeWatchesLater();
                        } else {
                            resumeDelayNanos = RESUME_FIRST_NANOS;
                        }
                    },
                    resumeDelayNanos,
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // the provider is closing: its watches end with it
        }
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
        return new EtcdContender(this, ctx);
    }

    KV kv() {
        return client.getKVClient();
    }

    Watch watch() {
        return client.getWatchClient();
    }

    Ticker ticker() {
        return ticker;
    }

    long requestTimeoutNanos() {
        return requestTimeoutNanos;
    }

    boolean closed() {
        return closed;
    }

    static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /** {@code <prefix><encoded name>/}: every contender's key for this lock starts with it. */
    String lockPrefix(String lockName) {
        return etcdOptions.keyPrefix() + LockNames.encode(lockName) + "/";
    }

    /**
     * The key of an attempt that holds {@code slot} of session {@code s} ({@link
     * Session#takeSlot()}), under {@code lockPrefix} ({@link #lockPrefix(String)}).
     */
    String key(String lockPrefix, Session s, long slot) {
        return lockPrefix + s.leaseHex + "-" + Long.toHexString(slot);
    }

    void register(EtcdContender c) {
        contenders.add(c);
        if (closed) {
            c.wake();
        }
    }

    void unregister(EtcdContender c) {
        contenders.remove(c);
    }

    /**
     * {@link Rpc#await} for a request an acquisition attempt waits for: {@link #close()} fails it at
     * once, so a thread blocked on a reply (a lease grant, a transaction) learns of the close
     * promptly instead of after the request timeout.
     */
    <T> T await(CompletableFuture<T> f, String what, String lockName) {
        awaiting.add(f);
        try {
            if (closed) {
                f.completeExceptionally(new IllegalStateException("provider is closed"));
            }
            return Rpc.await(f, requestTimeoutNanos, what, lockName);
        } finally {
            awaiting.remove(f);
        }
    }

    private void failAwaiting() {
        for (CompletableFuture<?> f : awaiting) {
            f.completeExceptionally(new IllegalStateException("provider is closed"));
        }
    }

    /** The live session, granting a new lease if there is none (one round trip, bounded). */
    Session session(String lockName) {
        synchronized (sessionLock) {
            if (closed) {
                throw new IllegalStateException("provider is closed (lock '" + lockName + "', backend etcd)");
            }
            Session s = current;
            if (s != null && s.alive() && !Deadlines.passed(ticker, s.validUntil())) {
                return s;
            }
            if (s != null) {
                kill(s, "validity deadline passed without a successful keepalive", true);
            }
            long sent = ticker.read();
            Lease lease = client.getLeaseClient();
            LeaseGrantResponse g = await(lease.grant(ttlSeconds), "lease grant", lockName);
            s = new Session(g.getID(), validUntil(sent));
            Session created = s;
            s.keepalive = scheduler.scheduleWithFixedDelay(
                    () -> keepAlive(created), keepaliveIntervalNanos, keepaliveIntervalNanos, TimeUnit.NANOSECONDS);
            current = s;
            log.debug("distlock.etcd.session_granted lease={} ttl={}s", s.leaseHex, g.getTTL());
            if (Deadlines.remaining(ticker, s.validUntil())
                    < lockOptions.leaseTime().toNanos() / 2) {
                // the grant was slow (typically: the first request also opened the connection), so
                // little validity is left: one keepalive now, on the open connection, restores it
                long again = ticker.read();
                LeaseKeepAliveResponse k = Rpc.await(
                        client.getLeaseClient().keepAliveOnce(s.leaseId),
                        requestTimeoutNanos,
                        "lease keepalive",
                        lockName);
                if (k.getTTL() > 0) {
                    s.extend(validUntil(again));
                }
            }
            return s;
        }
    }

    boolean perLockLease() {
        return perLockLease;
    }

    /**
     * A new lease for one acquisition attempt ({@code perLockLease}): one {@code LeaseGrant} round
     * trip, then kept alive exactly like the session lease: one keepalive request every {@code
     * leaseTime * renewalFraction} from the session thread, the validity deadline counted from when
     * each keepalive was sent. (jetcd's shared keepalive stream was tried first: it sends on a
     * 500 ms tick and does not say when, so a deadline counted from the previous answer ran out
     * between keepalives with sub-second leases.)
     */
    Session grantLockLease(String lockName) {
        if (closed) {
            throw new IllegalStateException("provider is closed (lock '" + lockName + "', backend etcd)");
        }
        long sent = ticker.read();
        Lease leases = client.getLeaseClient();
        LeaseGrantResponse g = await(leases.grant(ttlSeconds), "lease grant", lockName);
        Session s = new Session(g.getID(), validUntil(sent));
        lockLeases.add(s);
        s.listen(reason -> lockLeases.remove(s));
        try {
            s.keepalive = scheduler.scheduleWithFixedDelay(
                    () -> keepAlive(s), keepaliveIntervalNanos, keepaliveIntervalNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            kill(s, "provider closed", true);
            throw new IllegalStateException("provider is closed (lock '" + lockName + "', backend etcd)");
        }
        if (closed) {
            kill(s, "provider closed", true);
            throw new IllegalStateException("provider is closed (lock '" + lockName + "', backend etcd)");
        }
        log.debug("distlock.etcd.lock_lease_granted lease={} ttl={}s lock={}", s.leaseHex, g.getTTL(), lockName);
        return s;
    }

    /**
     * Ends a per-lock lease: stops its keepalive and revokes it (one round trip), which deletes
     * its key. Returns whether the lease still existed.
     */
    boolean revokeLockLease(Session s, String lockName, String what) {
        s.die(what);
        try {
            Rpc.await(client.getLeaseClient().revoke(s.leaseId), requestTimeoutNanos, what, lockName);
            return true;
        } catch (Rpc.LeaseGoneException gone) {
            return false;
        }
        // a failed revoke leaves a lease nobody keeps alive: it (and its key) ends with its TTL
    }

    private long validUntil(long sentAt) {
        return Deadlines.after(
                sentAt,
                lockOptions.leaseTime().minus(lockOptions.safetyMargin()).toNanos());
    }

    /**
     * Fails {@code f} with a {@link java.util.concurrent.TimeoutException} if it is not complete
     * within {@code nanos}, on our own scheduler thread (not the JDK's JVM-wide delay thread).
     */
    <T> CompletableFuture<T> within(CompletableFuture<T> f, long nanos) {
        try {
            ScheduledFuture<?> t = scheduler.schedule(
                    () -> f.completeExceptionally(
                            new TimeoutException("no answer within " + nanos / 1_000_000 + " ms")),
                    nanos,
                    TimeUnit.NANOSECONDS);
            f.whenComplete((r, e) -> t.cancel(false));
        } catch (RejectedExecutionException closing) {
            f.completeExceptionally(new IllegalStateException("provider is closed"));
        }
        return f;
    }

    /** A task for {@link #runLater}: runs on the session thread once the ticker passes {@link #dueAt}. */
    abstract static class Delayed implements Runnable {
        final long dueAt;

        Delayed(long dueAt) {
            this.dueAt = dueAt;
        }
    }

    /** Period of the tick that runs {@link Delayed} tasks: they run up to this much after they are due. */
    private static final long LATER_TICK_MILLIS = 50;

    private final Set<Delayed> later = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicBoolean laterTicking =
            new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * Runs {@code task} on the session thread when it is due. Unlike a scheduled task, adding and
     * {@link #cancelLater cancelling} one only touches a set: a tick every {@value
     * #LATER_TICK_MILLIS} ms runs what is due, and stops when nothing is left. So a lock acquired
     * and released within the delay wakes no thread at all (a scheduled task per acquisition would
     * wake the session thread twice: at schedule and at cancel).
     */
    void runLater(Delayed task) {
        later.add(task);
        if (laterTicking.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::laterTick, LATER_TICK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                later.clear();
            }
        }
    }

    void cancelLater(Delayed task) {
        later.remove(task);
    }

    private void laterTick() {
        long now = ticker.read();
        for (Delayed d : later) {
            if (now - d.dueAt >= 0 && later.remove(d)) {
                try {
                    d.run();
                } catch (RuntimeException e) {
                    log.debug("distlock.etcd.delayed_task_failed error={}", e.toString());
                }
            }
        }
        laterTicking.set(false);
        if (!later.isEmpty() && !closed && laterTicking.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::laterTick, LATER_TICK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                later.clear();
            }
        }
    }

    /** First and largest pause between background deletes of a stranded key. */
    private static final long DELETE_RETRY_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final long DELETE_RETRY_MAX_NANOS = TimeUnit.SECONDS.toNanos(2);

    /**
     * Deletes one of our keys in one request bounded by the request timeout and returns how many
     * keys went (0 if it was already gone). If the request fails (a leader election, a partition, a
     * stalled server), the failure is thrown and the key is still deleted in the background: a key
     * left on a live session lease is kept alive by the keepalive and would block its lock for as
     * long as the provider lives. The background delete is retried, with pauses from 100 ms
     * doubling to 2 s, until it succeeds, the session {@code s} dies (the key goes with its lease)
     * or the provider closes (it revokes the lease). The key's slot is not given back while its
     * delete is unanswered (the caller frees it only when this returns), so a late delete never
     * touches a later attempt's key.
     *
     * @param s the session the key hangs on; null if unknown (then nothing is retried)
     */
    long deleteKey(ByteSequence key, Session s, String lockName, String what) {
        try {
            return Rpc.await(delete(key), requestTimeoutNanos, what, lockName).getDeleted();
        } catch (BackendUnavailableException e) {
            if (s != null) {
                scheduleDelete(key, s, lockName, DELETE_RETRY_FIRST_NANOS);
            }
            throw e;
        }
    }

    private void scheduleDelete(ByteSequence key, Session s, String lockName, long delayNanos) {
        if (closed || !s.alive()) {
            return;
        }
        try {
            scheduler.schedule(
                    () -> {
                        if (closed || !s.alive()) {
                            return;
                        }
                        within(delete(key), requestTimeoutNanos).whenComplete((r, e) -> {
                            if (e == null) {
                                log.debug("distlock.etcd.stranded_key_deleted lock={}", lockName);
                            } else {
                                log.debug(
                                        "distlock.etcd.stranded_key_delete_failed lock={} error={}",
                                        lockName,
                                        e.toString());
                                scheduleDelete(key, s, lockName, Math.min(delayNanos * 2, DELETE_RETRY_MAX_NANOS));
                            }
                        });
                    },
                    delayNanos,
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // the provider is closing: it revokes the session lease, and the key with it
        }
    }

    /** Sends one keepalive without blocking the scheduler thread; one in flight at a time. */
    private void keepAlive(Session s) {
        if (!s.alive() || closed) {
            return;
        }
        if (s.keepaliveInFlight) {
            if (Deadlines.passed(ticker, s.validUntil())) {
                kill(s, "keepalive unanswered past the validity deadline", true);
            }
            return;
        }
        s.keepaliveInFlight = true;
        long sent = ticker.read();
        // waiting longer than the remaining validity is useless: the session is lost by then
        long budget = Math.min(
                requestTimeoutNanos, Math.max(keepaliveIntervalNanos, Deadlines.remaining(ticker, s.validUntil())));
        within(client.getLeaseClient().keepAliveOnce(s.leaseId), budget).whenComplete((r, e) -> {
            s.keepaliveInFlight = false;
            if (e == null && r.getTTL() > 0) {
                s.extend(validUntil(sent));
            } else if (e == null || Rpc.isLeaseNotFound(e)) {
                kill(s, "session lease expired or was revoked on the server", false);
            } else if (Deadlines.passed(ticker, s.validUntil())) {
                kill(s, "keepalive failed past the validity deadline: " + e, true);
            } else {
                log.debug("distlock.etcd.keepalive_failed lease={}", s.leaseHex, e);
            }
        });
    }

    /** The lease of {@code s} is gone (or must be given up): tell every lock and waiter on it. */
    void kill(Session s, String reason, boolean revoke) {
        synchronized (sessionLock) {
            if (current == s) {
                current = null;
            }
        }
        if (s.die(reason)) {
            log.debug("distlock.etcd.session_lost lease={} reason={}", s.leaseHex, reason);
            if (revoke && !closed) {
                // our side gave up: free the keys on the server too (best effort, bounded)
                within(client.getLeaseClient().revoke(s.leaseId), requestTimeoutNanos)
                        .exceptionally(t -> null);
            }
        }
    }

    /** The client should behave like a killed process: {@link #close()} will not revoke the lease. */
    public void crash() {
        crashed = true;
    }

    /** The lease id of the current session, or -1 (for tests and tools). */
    public long currentLeaseId() {
        synchronized (sessionLock) {
            return current == null ? -1 : current.leaseId;
        }
    }

    @Override
    public void close() {
        Session s;
        failAwaiting(); // first: a session grant in flight holds sessionLock
        synchronized (sessionLock) {
            if (closed) {
                return;
            }
            closed = true;
            s = current;
            current = null;
        }
        failAwaiting();
        scheduler.shutdownNow();
        if (watchStream != null) {
            watchStream.close();
        }
        for (EtcdContender c : contenders) {
            c.wake();
        }
        RuntimeException failure = null;
        java.util.List<CompletableFuture<?>> revokes = new java.util.ArrayList<>();
        for (Session l : lockLeases) {
            l.die(crashed ? "provider crashed" : "provider closed");
            if (!crashed) {
                revokes.add(client.getLeaseClient().revoke(l.leaseId));
            }
        }
        lockLeases.clear();
        if (!revokes.isEmpty()) {
            try {
                Rpc.await(
                        CompletableFuture.allOf(revokes.toArray(new CompletableFuture<?>[0])),
                        requestTimeoutNanos,
                        "lock lease revoke",
                        null);
            } catch (RuntimeException e) {
                if (!(e instanceof Rpc.LeaseGoneException)) {
                    failure = new BackendUnavailableException(
                            "could not revoke every lock lease on close; their keys expire with their TTL",
                            null,
                            BACKEND,
                            e);
                }
            }
        }
        if (s != null) {
            if (!crashed) {
                try {
                    Rpc.await(client.getLeaseClient().revoke(s.leaseId), requestTimeoutNanos, "lease revoke", null);
                } catch (RuntimeException e) {
                    if (!(e instanceof Rpc.LeaseGoneException)) {
                        failure = new BackendUnavailableException(
                                "could not revoke the session lease on close; its keys expire with its TTL",
                                null,
                                BACKEND,
                                e);
                    }
                }
            }
            s.die(crashed ? "provider crashed" : "provider closed");
        }
        if (ownsClient) {
            client.close();
        }
        try {
            if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("distlock.etcd.close.session_thread_still_running");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
