package io.distlock.zookeeper.internal;

import io.distlock.LockOptions;
import io.distlock.Ticker;
import io.distlock.spi.Deadlines;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper session as the leases see it: which leases it carries, how long they stay valid,
 * and what a change of the connection's state does to them.
 *
 * <p>A lease is valid while the session is: its deadline is {@code sendTime +
 * negotiatedSessionTimeout - margin} of the last request the server answered on the session (the
 * server heard from us no earlier than that send time, so it cannot expire the session before
 * {@code sendTime + T}). On SUSPENDED it stops moving, on LOST the leases of the dead session are
 * lost, and after RECONNECTED it moves again only once each node was verified to still exist and be
 * owned by the current session.
 */
final class ZkSession {
    private static final Logger log = LoggerFactory.getLogger(ZkSession.class);

    private final CuratorFramework client;
    private final ZkRequests requests;
    final Ticker ticker;
    private final double clockDriftFactor;
    private final long minimumMarginNanos;
    private final ConnectionStateListener listener = this::stateChanged;
    private final AtomicLong epoch = new AtomicLong();
    private volatile long negotiatedTimeoutNanos;

    final Set<ZkHeld> held = ConcurrentHashMap.newKeySet();
    private final Set<PredecessorWatch> waiting = ConcurrentHashMap.newKeySet();

    // send time and session of the latest request the server answered (see noteAnswered)
    private final Object heardLock = new Object();
    private long lastAnsweredSentAt;
    private long lastAnsweredSession;

    /** @param requestedSessionTimeout the session timeout requested (used until the negotiated one is known) */
    ZkSession(ZkRequests requests, LockOptions lockOptions, Duration requestedSessionTimeout) {
        this.client = requests.client;
        this.requests = requests;
        this.ticker = lockOptions.ticker();
        this.clockDriftFactor = lockOptions.clockDriftFactor();
        this.minimumMarginNanos = lockOptions.minimumSafetyMargin().toNanos();
        this.negotiatedTimeoutNanos = requestedSessionTimeout.toNanos();
    }

    /** Starts following the connection's state. */
    void start() {
        client.getConnectionStateListenable().addListener(listener);
        if (requests.isConnected()) {
            refreshNegotiatedTimeout();
        }
    }

    /** Stops following the connection's state and wakes every waiter. */
    void stop() {
        client.getConnectionStateListenable().removeListener(listener);
        wakeAll();
    }

    /** The negotiated (or, before the first connection, requested) session timeout. */
    Duration sessionTimeout() {
        return Duration.ofNanos(negotiatedTimeoutNanos);
    }

    long sessionTimeoutNanos() {
        return negotiatedTimeoutNanos;
    }

    long currentSessionId() {
        return requests.currentSessionId();
    }

    // ---------------------------------------------------------------- validity

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

    /** One {@code exists} round trip whose answer extends the leases of the current session. */
    void refresh(String lockName) {
        long sentAt = ticker.read();
        CompletableFuture<KeeperException.Code> f = requests.newPending();
        try {
            requests.existsInBackground("/", (rc, stat) -> f.complete(rc));
        } catch (Exception e) {
            f.completeExceptionally(e);
        }
        KeeperException.Code rc = requests.await(f, "exists /", lockName);
        if (rc == KeeperException.Code.OK || rc == KeeperException.Code.NONODE) {
            noteAnswered(sentAt);
        }
    }

    // ---------------------------------------------------------------- waiters

    void addWaiter(PredecessorWatch w) {
        waiting.add(w);
    }

    void removeWaiter(PredecessorWatch w) {
        waiting.remove(w);
    }

    private void wakeAll() {
        for (PredecessorWatch w : waiting) {
            w.signal();
        }
    }

    // ---------------------------------------------------------------- connection state

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
                        requests.deleteInBackground(h.path);
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
                long current = requests.isConnected() ? currentSessionId() : 0;
                for (ZkHeld h : held) {
                    if (h.sessionId == current) {
                        continue;
                    }
                    h.lose("ZooKeeper session lost (expired or not re-established within the session timeout)", null);
                    // normally gone with the session; if Curator only gave up on it locally, the
                    // server-side session may still hold the node for a while
                    requests.deleteInBackground(h.path);
                }
                wakeAll();
                break;
            default:
                break;
        }
    }

    /**
     * After a reconnect within the session: the lease's validity moves again once an {@code exists}
     * shows its node still there, with its czxid, owned by the current session; otherwise it is lost.
     */
    private void verifyAfterReconnect(ZkHeld h, long epochAtReconnect) {
        long session = currentSessionId();
        long sentAt = ticker.read();
        try {
            requests.existsInBackground(h.path, (rc, stat) -> verified(h, session, sentAt, epochAtReconnect, rc, stat));
        } catch (Exception ex) {
            log.debug("distlock.zookeeper.verify_failed lock={}", h.ctx.lockName(), ex);
        }
    }

    private void verified(ZkHeld h, long session, long sentAt, long epochAtReconnect, KeeperException.Code rc, Stat s) {
        if (rc == KeeperException.Code.OK && s != null) {
            if (s.getEphemeralOwner() == session && s.getCzxid() == h.czxid && session == h.sessionId) {
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
    }
}
