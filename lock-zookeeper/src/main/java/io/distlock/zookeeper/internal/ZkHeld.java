package io.distlock.zookeeper.internal;

import io.distlock.spi.AcquireContext;
import io.distlock.spi.HeldLock;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledFuture;

/**
 * A held lock: our queue node, lowest in its parent, owned by session {@link #sessionId}.
 *
 * <p>Validity follows the session: it is {@code sendTime + negotiatedSessionTimeout - margin} of
 * the last request the server answered on this session (the server heard from us no earlier than
 * that send time, so it cannot expire the session before this deadline). The keepalive
 * moves it forward; a suspended connection stops it from moving; after a reconnect it moves again
 * only once the node was verified to be still ours. Without auto-renewal it is fixed at {@code
 * acquisition + leaseTime - margin}.
 */
final class ZkHeld implements HeldLock {
    private final ZkRequests requests;
    private final ZkSession session;
    final AcquireContext ctx;
    final String path;
    final long czxid;
    final long sessionId;
    private final boolean renewing;
    // our node waited behind others: a successor may not know it became the lowest
    private final boolean announceRelease;
    private final Object state = new Object();
    private long validUntil;
    private boolean verified = true;
    private boolean lost;
    private volatile ScheduledFuture<?> expiry;

    ZkHeld(
            ZkRequests requests,
            ZkSession session,
            AcquireContext ctx,
            String path,
            long czxid,
            long sessionId,
            long validUntil,
            boolean renewing,
            boolean announceRelease) {
        this.requests = requests;
        this.session = session;
        this.ctx = ctx;
        this.path = path;
        this.czxid = czxid;
        this.sessionId = sessionId;
        this.validUntil = validUntil;
        this.renewing = renewing;
        this.announceRelease = announceRelease;
    }

    void expireAt(ScheduledFuture<?> task) {
        this.expiry = task;
    }

    /** Without auto-renewal the lease ends at its lease time: report it lost and free the lock. */
    void leaseTimeReached() {
        lose("lease time passed and automatic renewal is off", null);
        requests.deleteInBackground(path);
    }

    @Override
    public OptionalLong fencingToken() {
        return OptionalLong.of(czxid);
    }

    @Override
    public long validUntilNanos() {
        synchronized (state) {
            return validUntil;
        }
    }

    /** The server answered, on our session, a request sent when the deadline was {@code deadline}. */
    void heard(long deadline) {
        synchronized (state) {
            if (lost || !renewing || !verified || deadline - validUntil <= 0) {
                return;
            }
            validUntil = deadline;
        }
    }

    /** The connection was suspended: no extension until {@link #verified(long)}. */
    void suspended() {
        synchronized (state) {
            verified = false;
        }
    }

    /** Reconnected within the session and the node was verified to be still ours. */
    void verified(long deadline) {
        synchronized (state) {
            verified = true;
        }
        heard(deadline);
    }

    void lose(String reason, Throwable cause) {
        synchronized (state) {
            if (lost) {
                return;
            }
            lost = true;
            validUntil = ctx.ticker().read();
        }
        cancelExpiry();
        session.held.remove(this);
        ctx.reportLost(reason, cause);
        ctx.validityChanged();
    }

    private void cancelExpiry() {
        ScheduledFuture<?> task = expiry;
        if (task != null) {
            task.cancel(false);
        }
    }

    @Override
    public boolean release() {
        synchronized (state) {
            lost = true;
        }
        cancelExpiry();
        session.held.remove(this);
        // The path carries a unique protection prefix and a sequence number: nobody else ever
        // creates it, so deleting it by path is owner-only. A failed delete throws (outcome
        // unknown) while Curator's guaranteed delete keeps retrying in the background; the node
        // also disappears with our session. No local state is left either way.
        // A holder that waited behind others announces the release (its node's data set and the
        // node deleted in one transaction): its successor may have listed the queue while nodes
        // below ours existed and would otherwise list it again before taking the lock. A holder
        // that got the lock on its first listing was the lowest node for every later listing.
        return announceRelease
                ? requests.releaseAnnounced(path, ctx.lockName())
                : requests.delete(path, ctx.lockName());
    }

    @Override
    public String toString() {
        return "ZkHeld{path=" + path + ", czxid=" + czxid + ", session=0x" + Long.toHexString(sessionId) + '}';
    }
}
