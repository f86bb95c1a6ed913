package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockNames;
import io.distlock.LockOptions;
import io.distlock.Ticker;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Driver of the ZooKeeper provider. Internal API: the public entry point is {@code
 * io.distlock.zookeeper.ZooKeeperLockProvider}.
 *
 * <p>Each lock is a container node {@code <root>/<LockNames.encode(name)>}; each contender adds a
 * protected ephemeral-sequential child; the lowest sequence holds the lock and every other contender
 * watches only its immediate predecessor. The fencing token is the holder node's czxid.
 *
 * <p>Leases are valid while the session is: each lease's deadline is {@code sendTime +
 * negotiatedSessionTimeout - margin} of the last request the server answered on the session (a
 * per-client keepalive moves it forward); on SUSPENDED it stops moving, on LOST the lease is lost,
 * and after RECONNECTED it moves again only once the node was verified to still exist and be owned
 * by the current session.
 */
public final class ZkDriver implements LockDriver {
    static final String BACKEND = "zookeeper";
    static final String NODE_PREFIX = "lock-";

    static final Capabilities CAPABILITIES = Capabilities.builder()
            .fencing(Capabilities.Fencing.GLOBALLY_MONOTONIC)
            .fencingSurvivesServerRestart(true)
            .automaticRenewal(true)
            .wakeUp(Capabilities.WakeUp.NOTIFICATION)
            .fifo(true)
            .reentrant(false)
            .failover(Capabilities.Failover.HELD_LOCKS_SURVIVE)
            .build();

    private static final Logger log = LoggerFactory.getLogger(ZkDriver.class);

    final CuratorFramework client;
    private final boolean ownsClient;
    private final String root;
    final List<ACL> acl;
    final Ticker ticker;
    private final long requestedSessionTimeoutNanos;
    final long operationTimeoutNanos;
    private final double clockDriftFactor;
    private final boolean autoRenew;
    private final long minimumMarginNanos;
    private final ConnectionStateListener listener = this::stateChanged;
    // the Curator namespace as a path prefix ("" for none), for requests on the ZooKeeper handle
    private final String namespacePrefix;
    private final long protectionHigh;
    private final long protectionLow;
    private final AtomicLong protectionCounter = new AtomicLong();

    final Set<ZkHeld> held = ConcurrentHashMap.newKeySet();
    final Set<ZkContender> waiting = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> pending = ConcurrentHashMap.newKeySet();
    private final AtomicLong epoch = new AtomicLong();

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private ScheduledThreadPoolExecutor keepalive;
    private volatile java.util.concurrent.ScheduledFuture<?> keepaliveTask;
    private final AtomicInteger keepaliveInFlight = new AtomicInteger();
    private volatile long negotiatedTimeoutNanos;
    private volatile boolean closed;
    private volatile boolean crashOnClose;

    final AtomicLong watchNotifications = new AtomicLong();
    final AtomicLong childrenRereads = new AtomicLong();
    final AtomicLong statRereads = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    final AtomicLong skippedRereads = new AtomicLong();
    final AtomicLong lostCreateReplies = new AtomicLong();
    final AtomicLong recoveredCreates = new AtomicLong();
    final AtomicLong announcedReleases = new AtomicLong();
    private static final byte[] RELEASED = new byte[0];
    private volatile boolean announceReleases = true;
    final AtomicLong multiCreates = new AtomicLong();
    private volatile boolean multiCreate = true;
    // lock parents whose latest create found other nodes in the queue, one slot per hash: a lossy
    // hint (a collision only costs the choice of the slower path for one create)
    private final AtomicReferenceArray<String> contendedParents = new AtomicReferenceArray<>(256);

    // send time and session of the latest request the server answered (see noteAnswered)
    private final Object heardLock = new Object();
    private long lastAnsweredSentAt;
    private long lastAnsweredSession;

    /**
     * @param client a started client
     * @param ownsClient whether {@link #close()} closes the client
     * @param root validated absolute root path
     * @param acl ACL for created nodes, or {@code null} for the client's default
     * @param sessionTimeout the session timeout requested (used until the negotiated one is known)
     * @param connectionTimeout how long the client waits for a connection
     */
    public ZkDriver(
            CuratorFramework client,
            boolean ownsClient,
            String root,
            List<ACL> acl,
            LockOptions lockOptions,
            Duration sessionTimeout,
            Duration connectionTimeout) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.root = root.equals("/") ? "" : root;
        this.acl = acl == null ? null : List.copyOf(acl);
        this.ticker = lockOptions.ticker();
        this.requestedSessionTimeoutNanos = sessionTimeout.toNanos();
        this.negotiatedTimeoutNanos = requestedSessionTimeoutNanos;
        this.operationTimeoutNanos = 2 * connectionTimeout.toNanos() + sessionTimeout.toNanos();
        this.clockDriftFactor = lockOptions.clockDriftFactor();
        this.autoRenew = lockOptions.autoRenew();
        this.minimumMarginNanos = lockOptions.minimumSafetyMargin().toNanos();
        String namespace = client.getNamespace();
        this.namespacePrefix = namespace == null || namespace.isEmpty() ? "" : ZKPaths.makePath(namespace, null);
        SecureRandom random = new SecureRandom();
        this.protectionHigh = random.nextLong();
        this.protectionLow = random.nextLong();
        client.getConnectionStateListenable().addListener(listener);
        if (client.getZookeeperClient().isConnected()) {
            refreshNegotiatedTimeout();
        }
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public Capabilities capabilities() {
        return autoRenew
                ? CAPABILITIES
                : CAPABILITIES.mutate().automaticRenewal(false).build();
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.SESSION;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new ZkContender(this, ctx, lockPath(ctx.lockName()));
    }

    /** The parent node of lock {@code name}. */
    public String lockPath(String name) {
        return root + "/" + LockNames.encode(name);
    }

    /** Watch notifications delivered to waiters since this driver started (for tests). */
    public long watchNotifications() {
        return watchNotifications.get();
    }

    /** How often a pipelined create + getChildren had to be followed by another getChildren. */
    public long childrenRereads() {
        return childrenRereads.get();
    }

    /**
     * How often a waiter took the lock on its predecessor's deletion without listing the children
     * again (the predecessor was the lowest node, so nothing else can be below us).
     */
    public long skippedRereads() {
        return skippedRereads.get();
    }

    /** Creates whose outcome was unknown (connection lost before the reply), for tests. */
    public long lostCreateReplies() {
        return lostCreateReplies.get();
    }

    /** Creates sent as one multi with a setData of the parent (see createAsMulti), for tests. */
    public long multiCreates() {
        return multiCreates.get();
    }

    /**
     * Whether a create in {@code parent} goes as one {@code multi} of the create and a {@code setData}
     * of the parent (empty data, any version) instead of the create with a pipelined {@code
     * getChildren}. The multi answers with the parent's Stat <em>in the transaction that created our
     * node</em>: {@code numChildren == 1} means our node is the only one (the lock is ours, no
     * listing needed), and the parent's {@code mzxid} is our node's {@code czxid} (the fencing token).
     * One request instead of two when nobody else queues; a parent whose latest create found others
     * keeps the pipelined listing, which a contender needs anyway. Not used once the server refused
     * the setData (no WRITE permission on the lock's parent).
     */
    boolean createAsMulti(String parent) {
        return multiCreate && !parent.equals(contendedParents.get(slot(parent)));
    }

    /** Remembers whether the latest create in {@code parent} found other nodes queued. */
    void noteQueue(String parent, boolean others) {
        int slot = slot(parent);
        if (others) {
            contendedParents.set(slot, parent);
        } else {
            String seen = contendedParents.get(slot);
            if (parent.equals(seen)) {
                contendedParents.compareAndSet(slot, seen, null); // by identity: the one read
            }
        }
    }

    /**
     * Plain creates (with the pipelined listing) from now on: the server refused the multi's setData
     * of a lock parent. Public for the benchmark probes, which compare both paths.
     */
    public void multiCreateRefused() {
        multiCreate = false;
    }

    private int slot(String parent) {
        int h = parent.hashCode();
        return (h ^ (h >>> 16)) & (contendedParents.length() - 1);
    }

    /** Releases done as setData + delete in one multi (see releaseAnnounced), for tests. */
    public long announcedReleases() {
        return announcedReleases.get();
    }

    /** Nodes found again by their prefix after a create whose reply was lost, for tests. */
    public long recoveredCreates() {
        return recoveredCreates.get();
    }

    /** How often the create reply lacked the node's Stat, so the czxid took an extra read. */
    public long statRereads() {
        return statRereads.get();
    }

    /** The negotiated (or, before the first connection, requested) session timeout. */
    public Duration sessionTimeout() {
        return Duration.ofNanos(negotiatedTimeoutNanos);
    }

    boolean isClosed() {
        return closed;
    }

    /** The current ZooKeeper session id, or 0 if there is none. */
    long currentSessionId() {
        try {
            ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            return zk == null ? 0 : zk.getSessionId();
        } catch (Exception e) {
            return 0;
        }
    }

    /** The server answered a request sent at {@code sentAt} on the current session. */
    void noteAnswered(long sentAt) {
        long session = currentSessionId();
        synchronized (heardLock) {
            if (session != lastAnsweredSession || sentAt - lastAnsweredSentAt > 0) {
                lastAnsweredSession = session;
                lastAnsweredSentAt = sentAt;
            }
        }
        long deadline = sessionDeadline(sentAt);
        for (ZkHeld h : held) {
            if (h.sessionId == session) {
                h.heard(deadline);
            }
        }
    }

    /**
     * The later of {@code sentAt} and the send time of the latest request the server answered on
     * {@code session} (both are send times of requests the server answered on that session).
     */
    long latestAnswered(long session, long sentAt) {
        synchronized (heardLock) {
            return session == lastAnsweredSession && lastAnsweredSentAt - sentAt > 0 ? lastAnsweredSentAt : sentAt;
        }
    }

    /**
     * The deadline a request sent at {@code sentAt} and answered on our session gives every lease of
     * that session: the server heard from us no earlier than {@code sentAt}, so it cannot expire the
     * session before {@code sentAt + T}; a margin for clock drift ({@code T * clockDriftFactor +
     * minimumSafetyMargin}) is taken off.
     */
    long sessionDeadline(long sentAt) {
        long t = negotiatedTimeoutNanos;
        long margin = (long) (t * clockDriftFactor) + minimumMarginNanos;
        return Deadlines.after(sentAt, t - margin);
    }

    /** On the next {@link #close()}, drop the connection without closing the session (a crash). */
    public void crashOnClose() {
        crashOnClose = true;
    }

    // ---------------------------------------------------------------- session state

    private void refreshNegotiatedTimeout() {
        try {
            int ms = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
            if (ms > 0) {
                negotiatedTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(ms);
            }
        } catch (Exception e) {
            log.debug("distlock.zookeeper.session_timeout_unknown", e);
        }
    }

    void stateChanged(CuratorFramework c, ConnectionState state) {
        long e = epoch.incrementAndGet();
        log.debug("distlock.zookeeper.connection_state state={} held={}", state, held.size());
        switch (state) {
            case CONNECTED:
                refreshNegotiatedTimeout();
                break;
            case RECONNECTED:
                refreshNegotiatedTimeout();
                for (ZkHeld h : held) {
                    if (Deadlines.passed(ticker, h.validUntilNanos())) {
                        // the engine already reported this lease lost; do not leave its node
                        // blocking everyone while the session lives on
                        h.lose("validity ran out while the connection was suspended", null);
                        deleteInBackground(h.path);
                    } else {
                        verifyAfterReconnect(h, e);
                    }
                }
                wakeAll();
                break;
            case SUSPENDED:
            case READ_ONLY:
                // validity stops moving forward: it ends at the deadline of the last answered request
                for (ZkHeld h : held) {
                    h.suspended();
                }
                break;
            case LOST:
                // Curator may deliver LOST after a new session is up and a lock was taken on it:
                // only leases of the dead session are lost
                long current = client.getZookeeperClient().isConnected() ? currentSessionId() : 0;
                for (ZkHeld h : held) {
                    if (h.sessionId == current) {
                        continue;
                    }
                    h.lose("ZooKeeper session lost (expired or not re-established within the session timeout)", null);
                    // normally gone with the session; if Curator only gave up on it locally, the
                    // server-side session may still hold the node for a while
                    deleteInBackground(h.path);
                }
                wakeAll();
                break;
            default:
                break;
        }
    }

    private void verifyAfterReconnect(ZkHeld h, long epochAtReconnect) {
        long session = currentSessionId();
        long sentAt = ticker.read();
        try {
            client.checkExists()
                    .inBackground((BackgroundCallback) (cf, ev) -> {
                        KeeperException.Code rc = KeeperException.Code.get(ev.getResultCode());
                        if (rc == KeeperException.Code.OK && ev.getStat() != null) {
                            if (ev.getStat().getEphemeralOwner() == session
                                    && ev.getStat().getCzxid() == h.czxid
                                    && session == h.sessionId) {
                                if (epoch.get() == epochAtReconnect) {
                                    h.verified(sessionDeadline(sentAt));
                                }
                            } else {
                                h.lose("lock node is owned by another session after reconnecting", null);
                            }
                        } else if (rc == KeeperException.Code.NONODE) {
                            h.lose("lock node was gone after reconnecting", null);
                        }
                        // other outcomes: stay suspended until the next state change
                    })
                    .forPath(h.path);
        } catch (Exception ex) {
            log.debug("distlock.zookeeper.verify_failed lock={}", h.ctx.lockName(), ex);
        }
    }

    void wakeAll() {
        for (ZkContender w : waiting) {
            w.signal();
        }
    }

    /**
     * Without auto-renewal a lease lasts its lease time, as on TTL backends: at {@code endNanos}
     * the lease is reported lost and our node deleted, on a thread named {@code
     * distlock-zookeeper-lease-end-N} started on first use and stopped on {@link #close()}.
     */
    void scheduleLeaseEnd(ZkHeld h, long endNanos) {
        ScheduledThreadPoolExecutor e = keepaliveExecutor();
        if (e == null) {
            return;
        }
        long delay = Deadlines.remaining(ticker, endNanos);
        h.expireAt(e.schedule(h::leaseTimeReached, delay, TimeUnit.NANOSECONDS));
    }

    /**
     * Starts (once) the keepalive: while this client holds locks, every fifth of the session
     * timeout it sends one {@code exists} and, when the server answers, moves the validity of all
     * its leases to {@link #sessionDeadline(long) sendTime + T - margin}. One request per client,
     * not per lock.
     */
    void ensureKeepalive() {
        if (keepaliveTask != null) {
            return; // started: the usual case, on every acquisition
        }
        synchronized (this) {
            if (keepaliveTask != null || closed) {
                return;
            }
            ScheduledThreadPoolExecutor e = keepaliveExecutor();
            long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), negotiatedTimeoutNanos / 5);
            keepaliveTask = e.scheduleWithFixedDelay(this::keepalive, period, period, TimeUnit.NANOSECONDS);
        }
    }

    private synchronized ScheduledThreadPoolExecutor keepaliveExecutor() {
        if (closed) {
            return null;
        }
        if (keepalive == null) {
            String name = "distlock-zookeeper-keepalive-" + SEQUENCE.incrementAndGet();
            keepalive = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            });
            keepalive.setRemoveOnCancelPolicy(true);
        }
        return keepalive;
    }

    private void keepalive() {
        if (held.isEmpty() || closed || keepaliveInFlight.get() >= 3) {
            return;
        }
        keepaliveInFlight.incrementAndGet();
        long sentAt = ticker.read();
        long session = currentSessionId();
        try {
            client.checkExists()
                    .inBackground((BackgroundCallback) (c, ev) -> {
                        keepaliveInFlight.decrementAndGet();
                        KeeperException.Code rc = code(ev);
                        if ((rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE)
                                && session == currentSessionId()) {
                            noteAnswered(sentAt);
                        }
                    })
                    .forPath("/");
        } catch (Exception e) {
            keepaliveInFlight.decrementAndGet();
            log.debug("distlock.zookeeper.keepalive_failed", e);
        }
    }

    /** One {@code exists} round trip whose answer extends the leases of the current session. */
    void refresh(String lockName) {
        long sentAt = ticker.read();
        CompletableFuture<CuratorEvent> f = newPending();
        try {
            client.checkExists()
                    .inBackground((BackgroundCallback) (c, ev) -> f.complete(ev))
                    .forPath("/");
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        KeeperException.Code rc = code(await(f, "exists /", lockName));
        if (rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE) {
            noteAnswered(sentAt);
        }
    }

    // ---------------------------------------------------------------- async helpers

    /** A future completed by a background callback, failed on {@link #close()}. */
    <T> CompletableFuture<T> newPending() {
        CompletableFuture<T> f = new CompletableFuture<>();
        pending.add(f);
        f.whenComplete((r, t) -> pending.remove(f));
        if (closed) {
            f.completeExceptionally(new IllegalStateException("provider is closed"));
        }
        return f;
    }

    /**
     * Waits (uninterruptibly, bounded by the operation timeout) for a background reply; an interrupt
     * is kept for the caller to see.
     */
    <T> T await(CompletableFuture<T> f, String what, String lockName) {
        long deadline = System.nanoTime() + operationTimeoutNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    throw new BackendUnavailableException(
                            "no reply to " + what + " within " + Duration.ofNanos(operationTimeoutNanos),
                            lockName,
                            BACKEND,
                            e);
                } catch (ExecutionException e) {
                    if (closed) {
                        throw new IllegalStateException(
                                "provider is closed (lock '" + lockName + "', backend " + BACKEND + ")", e.getCause());
                    }
                    throw new BackendUnavailableException(what + " failed", lockName, BACKEND, e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static KeeperException.Code code(CuratorEvent ev) {
        return KeeperException.Code.get(ev.getResultCode());
    }

    static BackendUnavailableException failure(String what, CuratorEvent ev, String lockName) {
        KeeperException.Code rc = code(ev);
        return new BackendUnavailableException(
                what + " failed: " + rc, lockName, BACKEND, KeeperException.create(rc, ev.getPath()));
    }

    // ---------------------------------------------------------------- direct requests
    //
    // The hot path (listing a lock's queue, setting the predecessor watch, the release's delete)
    // uses the ZooKeeper handle's synchronous calls: ZooKeeper's SendThread wakes the caller
    // directly when the reply arrives. Curator's background callbacks (and the raw asynchronous
    // API) run on the EventThread instead, one more thread hand-over per request, which costs tens
    // of microseconds on a busy machine. Whenever a direct call cannot be used or does not give a
    // clear answer (not connected, the thread interrupted, connection loss, any other error), the
    // Curator request below is used instead, with its retries, guaranteed deletes and errors.

    /** The handle for a direct call, or {@code null} to use the Curator request. */
    ZooKeeper direct() {
        if (closed
                || Thread.currentThread().isInterrupted()
                || !client.getZookeeperClient().isConnected()) {
            return null;
        }
        try {
            return client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            return null;
        }
    }

    /** The handle if the client is connected (whether or not the thread is interrupted), else {@code null}. */
    ZooKeeper connectedHandle() {
        if (closed || !client.getZookeeperClient().isConnected()) {
            return null;
        }
        try {
            return client.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            return null;
        }
    }

    /**
     * Waits until the client is connected or {@code deadline} passes.
     *
     * @throws IllegalStateException if the provider is closed
     * @throws BackendUnavailableException if interrupted (the interrupt is kept)
     */
    void awaitConnected(long deadline, String lockName) {
        if (closed) {
            throw new IllegalStateException("provider is closed (lock '" + lockName + "', backend " + BACKEND + ")");
        }
        long left = Deadlines.remaining(ticker, deadline);
        if (left <= 0) {
            return;
        }
        try {
            client.blockUntilConnected(
                    (int) Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 1000)), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while waiting for a connection", lockName, BACKEND, e);
        }
    }

    /** {@code path} with the client's namespace (chroot) in front, for the ZooKeeper handle. */
    String namespaced(String path) {
        // the paths are built from the validated root, encoded lock names and our own node names;
        // the ZooKeeper handle validates every path it is given again
        return namespacePrefix.isEmpty() ? path : namespacePrefix + path;
    }

    /**
     * A new protection prefix part ({@code _c_<id>-}), unique to one acquisition attempt: within
     * this driver by a counter, across clients by 128 random bits drawn once per driver (instead of
     * a {@code SecureRandom} draw per attempt). It keeps the form of a UUID, which is what other
     * clients (and older versions) expect in a queue node's name.
     */
    String newProtection() {
        return "_c_" + new UUID(protectionHigh, protectionLow + protectionCounter.incrementAndGet()) + "-";
    }

    /** Marker for "the direct call gave no clear answer, use the Curator request". */
    static final List<String> NO_ANSWER = List.of("\u0000");

    /**
     * The children of {@code parent} by a direct call: the list, {@code null} if the parent does
     * not exist, or {@link #NO_ANSWER}.
     */
    List<String> childrenDirect(String parent) {
        ZooKeeper zk = direct();
        if (zk == null) {
            return NO_ANSWER;
        }
        try {
            return zk.getChildren(namespaced(parent), false);
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return NO_ANSWER;
        } catch (Exception e) {
            log.debug("distlock.zookeeper.direct_children_failed path={}", parent, e);
            return NO_ANSWER;
        }
    }

    /** Outcome of {@link #existsDirect}. */
    enum Exists {
        YES,
        NO,
        NO_ANSWER
    }

    /** {@code exists} with a watch, by a direct call. */
    Exists existsDirect(String path, Watcher watcher) {
        ZooKeeper zk = direct();
        if (zk == null) {
            return Exists.NO_ANSWER;
        }
        try {
            Stat s = zk.exists(namespaced(path), watcher);
            return s == null ? Exists.NO : Exists.YES;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Exists.NO_ANSWER;
        } catch (Exception e) {
            log.debug("distlock.zookeeper.direct_exists_failed path={}", path, e);
            return Exists.NO_ANSWER;
        }
    }

    /**
     * Deletes {@code path}: a direct call first; without a clear answer, Curator's guaranteed delete
     * (if the connection drops, Curator retries in the background until it succeeds or the node is
     * gone), whose outcome it waits for.
     *
     * @return {@code true} if deleted, {@code false} if it did not exist
     */
    boolean delete(String path, String lockName) {
        ZooKeeper zk = direct();
        if (zk != null) {
            try {
                zk.delete(namespaced(path), -1);
                return true;
            } catch (KeeperException.NoNodeException e) {
                return false;
            } catch (InterruptedException e) {
                // the delete was sent; the guaranteed delete below finishes the job (it may then
                // find the node gone, as after a connection loss with Curator's own retry)
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.debug("distlock.zookeeper.direct_delete_failed path={}", path, e);
            }
        }
        CompletableFuture<CuratorEvent> f = newPending();
        try {
            client.delete()
                    .guaranteed()
                    .inBackground((BackgroundCallback) (c, ev) -> f.complete(ev))
                    .forPath(path);
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        CuratorEvent ev = await(f, "delete " + path, lockName);
        switch (code(ev)) {
            case OK:
                return true;
            case NONODE:
                return false;
            default:
                throw failure("delete " + path, ev, lockName);
        }
    }

    /**
     * The ACL of a queue node created by a direct call: the provider's, or the default ACL of the
     * client the provider built itself; {@code null} for a given client without provider ACL, whose
     * own ACL provider (not exposed by Curator) then applies through a Curator create.
     */
    List<ACL> directCreateAcl() {
        return acl != null ? acl : ownsClient ? ZooDefs.Ids.OPEN_ACL_UNSAFE : null;
    }

    /**
     * Creates a lock's parent (a container node) and any missing ancestor, with the provider's ACL;
     * another client creating it first is fine. Only needed when a create in it found no parent.
     */
    void createParent(String parent, String lockName) {
        try {
            var builder = client.create().creatingParentContainersIfNeeded();
            if (acl == null) {
                builder.withMode(CreateMode.CONTAINER).forPath(parent);
            } else {
                builder.withMode(CreateMode.CONTAINER).withACL(acl, true).forPath(parent);
            }
        } catch (KeeperException.NodeExistsException e) {
            // created by someone else in the meantime
        } catch (KeeperException e) {
            throw new BackendUnavailableException("create " + parent + " failed: " + e.code(), lockName, BACKEND, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while creating " + parent, lockName, BACKEND, e);
        } catch (Exception e) {
            throw new BackendUnavailableException("create " + parent + " failed", lockName, BACKEND, e);
        }
    }

    /**
     * A create of a child named {@code prefix<sequence>} in {@code parent} was sent but its outcome
     * is unknown and the attempt is over: lists {@code parent} in the background and deletes every
     * child with that (unique) prefix, so a create whose reply was lost leaves no orphan.
     */
    void deletePrefixedInBackground(String parent, String prefix) {
        try {
            client.getChildren()
                    .inBackground((BackgroundCallback) (c, ev) -> {
                        if (code(ev) == KeeperException.Code.OK && ev.getChildren() != null) {
                            for (String child : ev.getChildren()) {
                                if (child.startsWith(prefix)) {
                                    deleteInBackground(parent + "/" + child);
                                }
                            }
                        }
                    })
                    .forPath(parent);
        } catch (Exception e) {
            log.debug("distlock.zookeeper.background_cleanup_failed path={}", parent, e);
        }
    }

    /**
     * Releases a held lock's node {@code path} with one {@code multi}: {@code setData} then {@code
     * delete}. A successor's {@code exists} watch fires once, with NodeDataChanged, which tells it
     * that a holder released (nothing below it is left) rather than that a waiter gave up or a
     * session expired (NodeDeleted). Without a clear answer (or without write permission on the
     * node, remembered), the plain {@link #delete}.
     *
     * @return {@code true} if deleted, {@code false} if it did not exist
     */
    boolean releaseAnnounced(String path, String lockName) {
        ZooKeeper zk = announceReleases ? direct() : null;
        if (zk != null) {
            String p = namespaced(path);
            try {
                zk.multi(List.of(Op.setData(p, RELEASED, -1), Op.delete(p, -1)));
                announcedReleases.incrementAndGet();
                return true;
            } catch (KeeperException.NoNodeException e) {
                return false;
            } catch (KeeperException.NoAuthException e) {
                announceReleases = false; // no write permission on our nodes: plain deletes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.debug("distlock.zookeeper.announced_release_failed path={}", path, e);
            }
        }
        return delete(path, lockName);
    }

    /** Deletes {@code path} in the background (guaranteed), without waiting. */
    void deleteInBackground(String path) {
        try {
            client.delete().guaranteed().inBackground().forPath(path);
        } catch (Exception e) {
            log.debug("distlock.zookeeper.background_delete_failed path={}", path, e);
        }
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            if (keepalive != null) {
                keepalive.shutdownNow();
            }
        }
        client.getConnectionStateListenable().removeListener(listener);
        wakeAll();
        IllegalStateException closing = new IllegalStateException("provider is closed");
        for (CompletableFuture<?> f : pending) {
            f.completeExceptionally(closing);
        }
        if (!ownsClient) {
            return;
        }
        if (crashOnClose) {
            try {
                ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
                // Curator must not see the injected expiry: it would close the handle (sending a
                // closeSession) before the injection marks it closed
                zk.register(event -> {});
                // drops the connection without a closeSession request: the server expires the
                // session after its timeout, as it would for a killed process
                zk.getTestable().injectSessionExpiration();
            } catch (Exception e) {
                log.debug("distlock.zookeeper.crash_injection_failed", e);
            }
        }
        client.close();
    }
}
