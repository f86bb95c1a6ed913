package io.distlock.etcd.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockOptions;
import io.distlock.Ticker;
import io.distlock.spi.Deadlines;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The etcd leases a provider's keys hang on: its one session lease, granted lazily and replaced
 * when it dies, and lock leases, each for one key alone ({@link Session}). Each lease is granted
 * with TTL = its lease time rounded up to whole seconds and its validity deadline is {@code
 * lastKeepaliveSent + leaseTime - safetyMargin} ({@link LeaseTerms}); a lock lease counts from the
 * request that took the lock instead, within its TTL ({@link Session#countFrom}). The session lease, and a
 * lock lease while its key waits or while its holder renews, is kept alive with one keepalive
 * request every {@code leaseTime * renewalFraction} from the session thread; a lock lease that is no
 * longer kept alive is revoked by the client when its deadline passes ({@link #endWhenDue}), and
 * otherwise runs out on the server. A lease the server says is gone, or whose deadline passes
 * without an answered keepalive, dies: every lock and waiter on it is told ({@link
 * Session.Listener}). Internal.
 */
final class SessionLeases {
    private static final Logger log = LoggerFactory.getLogger(SessionLeases.class);

    private final Kv kv;
    private final SessionThread thread;
    private final BlockingCalls calls;
    private final LockOptions lockOptions;
    private final Ticker ticker;
    private final long requestTimeoutNanos;
    private final LeaseTerms sessionTerms;
    private final Set<Session> lockLeases = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private Session current; // guarded by lock
    /** The session current when the leases were closed, ended by {@link #revokeAll}. */
    private Session closing; // guarded by lock

    private volatile boolean closed; // written under lock

    SessionLeases(Kv kv, SessionThread thread, BlockingCalls calls, LockOptions lockOptions, long requestTimeoutNanos) {
        this.kv = kv;
        this.thread = thread;
        this.calls = calls;
        this.lockOptions = lockOptions;
        this.ticker = lockOptions.ticker();
        this.requestTimeoutNanos = requestTimeoutNanos;
        this.sessionTerms = LeaseTerms.of(lockOptions, true);
    }

    /**
     * Whether an acquisition with {@code options} (a lock handle's) hangs its key on the session
     * lease: if it renews, with the provider's lease time. Otherwise it needs a lease of its own,
     * whose TTL the server enforces.
     */
    boolean sessionFits(LockOptions options) {
        return options.autoRenew() && options.leaseTime().equals(lockOptions.leaseTime());
    }

    boolean closed() {
        return closed;
    }

    /** The live session, granting a new lease if there is none (one round trip, bounded). */
    Session session(String lockName) {
        synchronized (lock) {
            if (closed) {
                throw closedException(lockName);
            }
            Session s = current;
            if (s != null && s.alive() && !Deadlines.passed(ticker, s.validUntil())) {
                return s;
            }
            if (s != null) {
                kill(s, "validity deadline passed without a successful keepalive", true);
            }
            long sent = ticker.read();
            LeaseGrantResponse g = calls.await(kv.grant(sessionTerms.ttlSeconds()), "lease grant", lockName);
            s = new Session(g.getID(), sessionTerms, sent);
            Session created = s;
            s.keepalive = thread.every(() -> keepAlive(created), sessionTerms.keepaliveIntervalNanos());
            current = s;
            log.debug("distlock.etcd.session_granted lease={} ttl={}s", s.leaseHex, g.getTTL());
            if (Deadlines.remaining(ticker, s.validUntil())
                    < lockOptions.leaseTime().toNanos() / 2) {
                // the grant was slow (typically: the first request also opened the connection), so
                // little validity is left: one keepalive now, on the open connection, restores it
                long again = ticker.read();
                LeaseKeepAliveResponse k =
                        Rpc.await(kv.keepAliveOnce(s.leaseId), requestTimeoutNanos, "lease keepalive", lockName);
                if (k.getTTL() > 0) {
                    s.renewed(again);
                }
            }
            return s;
        }
    }

    /**
     * A new lock lease for one acquisition attempt: one {@code LeaseGrant} round trip, then kept
     * alive exactly like the session lease: one keepalive request every {@code leaseTime *
     * renewalFraction} of {@code terms} from the session thread, the validity deadline counted from
     * when each keepalive was sent. Revoked when the provider closes.
     */
    Session grantLockLease(LeaseTerms terms, String lockName) {
        Session s = grant(terms, lockName);
        track(s, lockName);
        keepAliveEvery(s, lockName);
        log.debug(
                "distlock.etcd.lock_lease_granted lease={} ttl={}s lock={}", s.leaseHex, terms.ttlSeconds(), lockName);
        return s;
    }

    /** Grants a lease of {@code terms} (one round trip), neither kept alive nor tracked. */
    Session grant(LeaseTerms terms, String lockName) {
        if (closed) {
            throw closedException(lockName);
        }
        long sent = ticker.read();
        LeaseGrantResponse g = calls.await(kv.grant(terms.ttlSeconds()), "lease grant", lockName);
        return new Session(g.getID(), terms, sent);
    }

    /** Revokes {@code s} when the provider closes (unless it died before). */
    void track(Session s, String lockName) {
        lockLeases.add(s);
        s.listen(reason -> lockLeases.remove(s));
        if (closed) {
            kill(s, "provider closed", true);
            throw closedException(lockName);
        }
    }

    /** Keeps {@code s} alive every {@code keepaliveInterval} of its terms, from the session thread. */
    void keepAliveEvery(Session s, String lockName) {
        try {
            s.keepalive = thread.every(() -> keepAlive(s), s.terms.keepaliveIntervalNanos());
        } catch (RejectedExecutionException closing) {
            kill(s, "provider closed", true);
            throw closedException(lockName);
        }
    }

    /**
     * A held lock's own lease that its holder does not renew: no keepalive from now on ({@code
     * refresh}: after one more, so that a key that waited gets its whole lease time from now), and
     * revoked when its deadline passes ({@link #endWhenDue}).
     */
    void stopRenewing(Session s, boolean refresh) {
        s.stopKeepalive();
        if (refresh) {
            thread.execute(() -> keepAlive(s));
        }
        endWhenDue(s, () -> {});
    }

    /**
     * Revokes {@code s} once its validity deadline has passed (it is not kept alive), so that its key
     * is deleted at that time rather than when the server's rounded-up TTL runs out; then runs
     * {@code afterGone} if the server confirmed the lease gone. Nothing happens if it died before; if
     * the provider closes first, the lease runs out on the server.
     */
    void endWhenDue(Session s, Runnable afterGone) {
        if (!s.alive() || closed) {
            return;
        }
        long left = Deadlines.remaining(ticker, s.validUntil());
        if (left > 0) {
            try {
                thread.schedule(() -> endWhenDue(s, afterGone), left);
            } catch (RejectedExecutionException closing) {
                // the lease runs out on the server
            }
            return;
        }
        revoke(s, "lease time passed without renewal", afterGone);
    }

    /**
     * Marks {@code s} dead (its locks and waiters are told) and revokes it in the background,
     * deleting its key; runs {@code afterGone} once the server confirmed the lease gone.
     */
    void revoke(Session s, String reason, Runnable afterGone) {
        CompletableFuture<Void> revoked = new CompletableFuture<>();
        if (!s.die(reason, revoked)) {
            return;
        }
        log.debug("distlock.etcd.lease_ended lease={} reason={}", s.leaseHex, reason);
        sendRevoke(s, revoked).whenComplete((r, e) -> {
            try {
                if (e == null || Rpc.isLeaseNotFound(e)) {
                    afterGone.run();
                }
            } finally {
                revoked.complete(null);
            }
        });
    }

    /**
     * Sends the revoke of a lease that just died on our side; {@code revoked} (what {@link
     * Session#awaitRevocation} waits for) is completed if it cannot be sent.
     */
    private CompletableFuture<?> sendRevoke(Session s, CompletableFuture<Void> revoked) {
        try {
            return thread.within(kv.revoke(s.leaseId), requestTimeoutNanos);
        } catch (RuntimeException e) {
            revoked.complete(null);
            throw e;
        }
    }

    /**
     * Ends a per-lock lease: stops its keepalive and revokes it (one round trip), which deletes its
     * key. Returns whether the lease still existed. A failed revoke leaves a lease nobody keeps
     * alive: it (and its key) ends with its TTL.
     */
    boolean revokeLockLease(Session s, String lockName, String what) {
        s.die(what);
        try {
            Rpc.await(kv.revoke(s.leaseId), requestTimeoutNanos, what, lockName);
            return true;
        } catch (Rpc.LeaseGoneException gone) {
            return false;
        }
    }

    private static IllegalStateException closedException(String lockName) {
        return new IllegalStateException("provider is closed (lock '" + lockName + "', backend etcd)");
    }

    /** Sends one keepalive without blocking the session thread; one in flight at a time. */
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
                requestTimeoutNanos,
                Math.max(s.terms.keepaliveIntervalNanos(), Deadlines.remaining(ticker, s.validUntil())));
        thread.within(kv.keepAliveOnce(s.leaseId), budget).whenComplete((r, e) -> {
            s.keepaliveInFlight = false;
            if (e == null && r.getTTL() > 0) {
                s.renewed(sent);
            } else if (e == null || Rpc.isLeaseNotFound(e)) {
                kill(s, "session lease expired or was revoked on the server", false);
            } else if (Deadlines.passed(ticker, s.validUntil())) {
                kill(s, "keepalive failed past the validity deadline: " + e, true);
            } else {
                log.debug("distlock.etcd.keepalive_failed lease={}", s.leaseHex, e);
            }
        });
    }

    /**
     * The lease of {@code s} is gone (or must be given up): tell every lock and waiter on it.
     * {@code revoke}: our side gave up, so free its keys on the server too (best effort, bounded).
     */
    void kill(Session s, String reason, boolean revoke) {
        synchronized (lock) {
            if (current == s) {
                current = null;
            }
        }
        CompletableFuture<Void> revoked = revoke && !closed ? new CompletableFuture<>() : null;
        if (s.die(reason, revoked)) {
            log.debug("distlock.etcd.session_lost lease={} reason={}", s.leaseHex, reason);
            if (revoked != null) {
                sendRevoke(s, revoked).whenComplete((r, e) -> revoked.complete(null));
            }
        }
    }

    /** The lease id of the current session, or -1. */
    long currentLeaseId() {
        synchronized (lock) {
            return current == null ? -1 : current.leaseId;
        }
    }

    /**
     * Marks the leases closed: no lease is granted from now on, and the current session is set
     * aside for {@link #revokeAll}. Returns false if they already were closed.
     */
    boolean close() {
        synchronized (lock) {
            if (closed) {
                return false;
            }
            closed = true;
            closing = current;
            current = null;
            return true;
        }
    }

    /**
     * Ends every lease after {@link #close()}: revokes the per-lock leases (in parallel) and then
     * the session lease, deleting every key on them, unless {@code crashed} (a crash leaves them to
     * expire with their TTL). Each is marked dead.
     *
     * @throws BackendUnavailableException if a revoke failed (its keys expire with their TTL)
     */
    void revokeAll(boolean crashed) {
        Session session;
        synchronized (lock) {
            session = closing;
        }
        RuntimeException failure = null;
        List<CompletableFuture<?>> revokes = new ArrayList<>();
        for (Session l : lockLeases) {
            l.die(crashed ? "provider crashed" : "provider closed");
            if (!crashed) {
                revokes.add(kv.revoke(l.leaseId));
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
                            EtcdDriver.BACKEND,
                            e);
                }
            }
        }
        if (session != null) {
            if (!crashed) {
                try {
                    Rpc.await(kv.revoke(session.leaseId), requestTimeoutNanos, "lease revoke", null);
                } catch (RuntimeException e) {
                    if (!(e instanceof Rpc.LeaseGoneException)) {
                        failure = new BackendUnavailableException(
                                "could not revoke the session lease on close; its keys expire with its TTL",
                                null,
                                EtcdDriver.BACKEND,
                                e);
                    }
                }
            }
            session.die(crashed ? "provider crashed" : "provider closed");
        }
        if (failure != null) {
            throw failure;
        }
    }
}
