package io.distlock.zookeeper.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.HeldLock;
import java.time.Duration;
import java.util.OptionalLong;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A held lock: our queue node, lowest in its parent, owned by session {@link #sessionId}.
 *
 * <p>Validity follows the session: it is {@code sendTime + negotiatedSessionTimeout - margin} of
 * the last request the server answered on this session (the server heard from us no earlier than
 * that send time, so it cannot expire the session before this deadline). The keepalive
 * moves it forward; a suspended connection stops it from moving; after a reconnect it moves again
 * only once the node was verified to be still ours. A lease's own time (a handle's lease time
 * without renewal, an extension) is the engine's: it ends the lease at that time and calls {@link
 * #release()}, which deletes the node.
 */
final class ZkHeld implements HeldLock {
    private final ZkRequests requests;
    private final ZkSession session;
    final AcquireContext ctx;
    final String path;
    final long czxid;
    final long sessionId;
    // our node waited behind others: a successor may not know it became the lowest
    private final boolean announceRelease;
    private final Object state = new Object();
    private long validUntil;
    private boolean verified = true;
    private boolean lost;

    ZkHeld(
            ZkRequests requests,
            ZkSession session,
            AcquireContext ctx,
            String path,
            long czxid,
            long sessionId,
            long validUntil,
            boolean announceRelease) {
        this.requests = requests;
        this.session = session;
        this.ctx = ctx;
        this.path = path;
        this.czxid = czxid;
        this.sessionId = sessionId;
        this.validUntil = validUntil;
        this.announceRelease = announceRelease;
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
            if (lost || !verified || deadline - validUntil <= 0) {
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
        session.held.remove(this);
        ctx.reportLost(reason, cause);
        ctx.validityChanged();
    }

    /**
     * Owner check for {@link io.distlock.Lease#extend}: one {@code exists} on our node, which must
     * still be there with our czxid and owned by our session. The lease's time is kept by the
     * engine (a lock lives as long as the session); the answer also moves the session's validity.
     *
     * @return whether the node is still ours
     * @throws BackendUnavailableException if the server could not be asked (our session still lives)
     */
    @Override
    public boolean extend(Duration leaseTime) {
        synchronized (state) {
            if (lost) {
                return false;
            }
        }
        if (session.currentSessionId() != sessionId) {
            return false; // our session ended, and our ephemeral node with it
        }
        long sentAt = ctx.ticker().read();
        Stat s;
        try {
            s = requests.stat(path, ctx.lockName());
        } catch (BackendUnavailableException e) {
            if (e.getCause() instanceof KeeperException.SessionExpiredException
                    || session.currentSessionId() != sessionId) {
                return false;
            }
            throw e;
        }
        if (s == null || s.getEphemeralOwner() != sessionId || s.getCzxid() != czxid) {
            return false;
        }
        if (session.currentSessionId() == sessionId) {
            session.noteAnswered(sentAt);
        }
        return true;
    }

    @Override
    public boolean release() {
        synchronized (state) {
            lost = true;
        }
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
