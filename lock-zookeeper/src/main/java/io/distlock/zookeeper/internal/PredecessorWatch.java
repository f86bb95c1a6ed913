package io.distlock.zookeeper.internal;

import io.distlock.spi.AcquireContext;
import io.distlock.spi.Deadlines;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.Watcher;

/**
 * A waiting contender's watch on its immediate predecessor in the queue (never on the whole queue,
 * so a release wakes exactly one waiter), and what the watch saw.
 *
 * <p>The watch is an {@code exists} with a watcher. Its event tells why the predecessor went: a
 * holder's release sets its node's data and deletes it in one transaction (NodeDataChanged; see
 * {@link ZkRequests#releaseAnnounced}), anything else — a waiter giving up, an expired session — is
 * a plain NodeDeleted. {@link #goneWhileLowest()} says when that alone proves the lock is ours.
 */
final class PredecessorWatch {
    private final ZkRequests requests;
    private final ZkSession session;
    private final ZkCounters counters;
    private final AcquireContext ctx;
    private final String parent;
    // a Lock, not a monitor: on Java 21-23 a virtual thread waiting in Object.wait() inside
    // synchronized pins its carrier thread for the whole wait
    private final ReentrantLock monitor = new ReentrantLock();
    private final Condition changed = monitor.newCondition();
    private boolean signalled;

    private String predecessor;
    // the predecessor was the lowest node when we listed the queue
    private boolean predecessorLowest;
    // set (by a watcher on the EventThread, or by the exists reply) to the name of a predecessor
    // that was seen deleted
    private volatile String goneName;
    // set by the watcher to the name of a predecessor whose holder released it (NodeDataChanged)
    private volatile String releasedName;
    // send time of the exists that set the current watch (answered on the session owning our node)
    private long watchSentAt;
    // the current watch was set, and answered, on the session that owns our node
    private boolean watchOnOurSession;

    PredecessorWatch(ZkRequests requests, ZkSession session, ZkCounters counters, AcquireContext ctx, String parent) {
        this.requests = requests;
        this.session = session;
        this.counters = counters;
        this.ctx = ctx;
        this.parent = parent;
    }

    /** From now on the node to wait for is {@code predecessor}, {@code lowest} if it was the queue's first. */
    void target(String predecessor, boolean lowest) {
        this.predecessor = predecessor;
        this.predecessorLowest = lowest;
        this.watchOnOurSession = false;
        this.goneName = null;
    }

    /** Nothing to wait for (we hold the lock, or left the queue). */
    void clear() {
        predecessor = null;
    }

    boolean hasTarget() {
        return predecessor != null;
    }

    /**
     * Whether the predecessor we watch was seen deleted through a watch set and answered on the
     * session that owns our node, and either was the lowest node of the queue when we listed it or
     * was released by its holder. Then no node can be below ours any more: every node with a lower
     * sequence was created before ours, so it was in the listing that made the predecessor our
     * watch target, and the predecessor was the only one of them (or it held the lock, so nothing
     * was below it). The caller still checks that our node's session is the current one.
     */
    boolean goneWhileLowest() {
        String p = predecessor;
        return p != null && (predecessorLowest || p.equals(releasedName)) && watchOnOurSession && p.equals(goneName);
    }

    /** Send time of the {@code exists} that set the current watch. */
    long watchSentAt() {
        return watchSentAt;
    }

    /**
     * Sets the watch on the predecessor and waits until it fires, the provider closes, or {@code
     * deadlineNanos} passes; returns at once if the predecessor is already gone or the check gave no
     * answer (the caller then tries again).
     *
     * @param ourSessionId the session that owns our node
     */
    void await(long deadlineNanos, long ourSessionId) throws InterruptedException {
        monitor.lock();
        try {
            signalled = false;
        } finally {
            monitor.unlock();
        }
        session.addWaiter(this);
        try {
            String watchedName = predecessor;
            Watcher watcher = event -> {
                if (event.getType() != Watcher.Event.EventType.None) {
                    counters.watchNotifications.incrementAndGet();
                }
                if (event.getType() == Watcher.Event.EventType.NodeDataChanged) {
                    // only a holder's release writes a queue node, deleting it in the same transaction
                    releasedName = watchedName;
                    goneName = watchedName;
                } else if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                    goneName = watchedName;
                }
                signal();
            };
            watchOnOurSession = false;
            long sessionBefore = session.currentSessionId();
            long sentAt = ctx.ticker().read();
            ZkRequests.Exists exists = requests.existsWatched(parent + "/" + watchedName, watcher, ctx.lockName());
            if (exists != ZkRequests.Exists.NO_ANSWER) {
                session.noteAnswered(sentAt);
                if (sessionBefore == ourSessionId && session.currentSessionId() == ourSessionId) {
                    watchSentAt = sentAt;
                    watchOnOurSession = true;
                }
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + ctx.lockName() + "'");
            }
            if (exists == ZkRequests.Exists.NO) {
                goneName = watchedName; // predecessor already gone: try again at once
                return;
            }
            if (exists != ZkRequests.Exists.YES) {
                return; // the check failed: try again at once
            }
            monitor.lock();
            try {
                while (!signalled && !requests.isClosed()) {
                    long left = Deadlines.remaining(ctx.ticker(), deadlineNanos);
                    if (left <= 0) {
                        return;
                    }
                    changed.awaitNanos(Math.min(left, TimeUnit.SECONDS.toNanos(60)));
                }
            } finally {
                monitor.unlock();
            }
        } finally {
            session.removeWaiter(this);
        }
    }

    /** Wakes the waiting thread (a watch event, a reconnect, the provider closing). */
    void signal() {
        monitor.lock();
        try {
            signalled = true;
            changed.signalAll();
        } finally {
            monitor.unlock();
        }
    }
}
