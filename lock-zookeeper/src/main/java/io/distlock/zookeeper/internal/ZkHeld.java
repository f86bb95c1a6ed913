package io.distlock.zookeeper.internal;

import io.distlock.spi.AcquireContext;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledFuture;

/** A held lock: our queue node, lowest in its parent, owned by session {@link #sessionId}. */
final class ZkHeld implements HeldLock {
    private final ZkDriver driver;
    final AcquireContext ctx;
    final String path;
    final long czxid;
    final long sessionId;
    private final Object state = new Object();
    /** While connected: {@link Deadlines#NEVER}, or the lease-time deadline without auto-renewal. */
    private final long connectedValidUntil;

    private long validUntil;
    private boolean lost;
    private volatile ScheduledFuture<?> expiry;

    ZkHeld(ZkDriver driver, AcquireContext ctx, String path, long czxid, long sessionId, long validUntil) {
        this.driver = driver;
        this.ctx = ctx;
        this.path = path;
        this.czxid = czxid;
        this.sessionId = sessionId;
        this.connectedValidUntil = validUntil;
        this.validUntil = validUntil;
    }

    void expireAt(ScheduledFuture<?> task) {
        this.expiry = task;
    }

    /** Without auto-renewal the lease ends at its lease time: report it lost and free the lock. */
    void leaseTimeReached() {
        lose("lease time passed and automatic renewal is off", null);
        driver.deleteInBackground(path);
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

    /** The session is suspended: stop trusting it at {@code deadline} (never moves later). */
    void suspend(long deadline) {
        synchronized (state) {
            if (lost || (validUntil != Deadlines.NEVER && validUntil - deadline <= 0)) {
                return;
            }
            validUntil = deadline;
        }
        ctx.validityChanged();
    }

    /** Reconnected within the session and the node was verified to be still ours. */
    void restore() {
        synchronized (state) {
            if (!lost) {
                validUntil = connectedValidUntil;
            }
        }
    }

    void lose(String reason, Throwable cause) {
        synchronized (state) {
            if (lost) {
                return;
            }
            lost = true;
            validUntil = ctx.ticker().read();
        }
        ScheduledFuture<?> task = expiry;
        if (task != null) {
            task.cancel(false);
        }
        driver.held.remove(this);
        ctx.reportLost(reason, cause);
    }

    @Override
    public boolean release() {
        synchronized (state) {
            lost = true;
        }
        ScheduledFuture<?> task = expiry;
        if (task != null) {
            task.cancel(false);
        }
        driver.held.remove(this);
        // The path carries a unique protection prefix and a sequence number: nobody else ever
        // creates it, so deleting it by path is owner-only. A failed delete throws (outcome
        // unknown) while Curator's guaranteed delete keeps retrying in the background; the node
        // also disappears with our session. No local state is left either way.
        return driver.delete(path, ctx.lockName());
    }

    @Override
    public String toString() {
        return "ZkHeld{path=" + path + ", czxid=" + czxid + ", session=0x" + Long.toHexString(sessionId) + '}';
    }
}
