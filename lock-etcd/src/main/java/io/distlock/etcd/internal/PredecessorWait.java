package io.distlock.etcd.internal;

import io.distlock.spi.Deadlines;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * How an acquisition attempt waits: for the delete of its predecessor (the key created last before
 * ours), so a release wakes the next waiter in line and nobody else. One wait at a time; each has
 * its own generation, so a late answer to an earlier wait's watch is ignored.
 *
 * <p>The wait goes on the driver's {@link DeleteWatches}: with a provider-built client, on the
 * shared watch stream (a standing watch of the predecessor's key name if the provider has one, in a
 * convoy usually: no request at all; else a new one); otherwise a jetcd watcher. Only deletes after
 * the revision of the read that named the predecessor are reported: the first one is the delete of
 * the key we listed (it existed then; a later key of the same name can only be made after it is
 * gone).
 *
 * <p>etcd 3.4 serves a watch whose start revision is already history from its "unsynced" group,
 * drained only every 100 ms. So a new watch starts at the server's current revision ("now") and is
 * served at once; a delete between the read that named the predecessor and the watch's start would
 * then be missed, so once the server confirms the watch (its created reply carries the revision R
 * after which it reports every event), one read ({@link #confirm}) checks that the predecessor is
 * still there in a view at a revision ≥ R; if it is gone, the waiter looks again at once.
 *
 * <p>When the predecessor goes: if it was the only key older than ours ({@link
 * QueuePlace#predecessorWasOldest()}: by the listing that named it, by the confirming read, or by
 * the holder mark its delete carries, see {@link HolderMark}), ours is now the oldest and the
 * waiter holds the lock with no request at all; otherwise it reads. Anything else (a broken or
 * refused watch, a failed read) only wakes the waiter to look again. Internal.
 */
final class PredecessorWait {
    private final EtcdDriver driver;
    private final LockKeys keys;
    private final QueuePlace place;
    private final ReentrantLock mutex = new ReentrantLock();
    private final Condition changed = mutex.newCondition();
    private long changes; // guarded by mutex
    /** The predecessor the current wait's watch saw deleted (or found gone), or null. */
    private ByteSequence goneKey; // guarded by mutex
    /** Which wait the watch callbacks belong to. */
    private long waitGeneration; // guarded by mutex

    PredecessorWait(EtcdDriver driver, LockKeys keys, QueuePlace place) {
        this.driver = driver;
        this.keys = keys;
        this.place = place;
    }

    /**
     * Waits until the predecessor is gone, something else changed (our key or session gone, the
     * provider closed, a wake-up), the session's validity deadline or {@code deadlineNanos}. Returns
     * at once if there is nothing to wait for.
     */
    void awaitPredecessor(Session s, long deadlineNanos) throws InterruptedException {
        ByteSequence pred = place.predecessor();
        long predRevision = place.predecessorRevision();
        long listedAt = place.predecessorListedAt();
        if (s == null || pred == null || driver.closed() || !s.alive() || place.keyDeleted()) {
            return;
        }
        long seen;
        long generation;
        mutex.lock();
        try {
            seen = changes;
            generation = ++waitGeneration;
            goneKey = null;
        } finally {
            mutex.unlock();
        }
        DeleteWatches.Handle w = watchPredecessor(generation, pred, predRevision, listedAt);
        try {
            mutex.lockInterruptibly();
            try {
                while (changes == seen && !driver.closed() && s.alive() && !place.keyDeleted()) {
                    // also stop at the session's validity deadline: a dead session cannot wait
                    long until = s.validUntil();
                    long limit = deadlineNanos - until < 0 ? deadlineNanos : until;
                    long left = Deadlines.remaining(driver.ticker(), limit);
                    if (left <= 0) {
                        return;
                    }
                    changed.awaitNanos(Math.min(left, TimeUnit.SECONDS.toNanos(60)));
                }
            } finally {
                mutex.unlock();
            }
        } finally {
            w.cancel();
        }
    }

    /** Waits {@code pauseMillis} (or less: deadline, wake-up, provider closed). */
    void pause(long pauseMillis, long deadlineNanos) throws InterruptedException {
        long until = Deadlines.after(driver.ticker().read(), TimeUnit.MILLISECONDS.toNanos(pauseMillis));
        long limit = deadlineNanos - until < 0 ? deadlineNanos : until;
        mutex.lockInterruptibly();
        try {
            long seen = changes;
            while (changes == seen && !driver.closed()) {
                long left = Deadlines.remaining(driver.ticker(), limit);
                if (left <= 0) {
                    return;
                }
                changed.awaitNanos(left);
            }
        } finally {
            mutex.unlock();
        }
    }

    /** Whether the last wait ended because {@code predecessor} is gone (and forgets it). */
    boolean takePredecessorGone(ByteSequence predecessor) {
        mutex.lock();
        try {
            boolean gone = goneKey != null && goneKey.equals(predecessor);
            goneKey = null;
            return gone;
        } finally {
            mutex.unlock();
        }
    }

    /** Ends any wait now (the attempt looks again). */
    void wake() {
        mutex.lock();
        try {
            changes++;
            changed.signalAll();
        } finally {
            mutex.unlock();
        }
    }

    /** Ends wait {@code generation} if it is the current one; {@code gone}: the predecessor it saw go. */
    private void wakeFor(long generation, ByteSequence gone) {
        mutex.lock();
        try {
            if (generation != waitGeneration) {
                return;
            }
            if (gone != null) {
                goneKey = gone;
            }
            changes++;
            changed.signalAll();
        } finally {
            mutex.unlock();
        }
    }

    private DeleteWatches.Handle watchPredecessor(
            long generation, ByteSequence pred, long predRevision, long listedAt) {
        ByteSequence key = place.key();
        long revision = place.revision();
        return driver.watches().waitForDelete(pred, listedAt, new DeleteWatches.Listener() {
            @Override
            public void created(long watchedFrom) {
                if (watchedFrom > listedAt) {
                    // something was written between the read that named the predecessor and the
                    // watch's start: it may have been the predecessor's delete
                    confirm(generation, pred, watchedFrom, true);
                }
            }

            @Override
            public void deleted(long deletedAt, long markedHolder) {
                if (markedHolder != 0 && markedHolder == predRevision) {
                    // The delete of the very key we listed (same create revision), whose owner had
                    // marked it as the holder: it was then the oldest key, so it was the only key
                    // older than ours (it was the key created just before ours when we listed, at
                    // listedAt; keys created later have larger revisions than ours). Its delete
                    // leaves ours the oldest: hold without a read. Any other delete (unmarked: a
                    // waiter that gave up, a waiter's lease that ended, a holder whose mark had
                    // not arrived yet) is only a wake-up, answered by a read.
                    place.markOldestIfListed(pred, predRevision, key, revision);
                }
                wakeFor(generation, pred);
            }

            @Override
            public void failed(String reason) {
                wakeFor(generation, null); // look again with a read; a failure proves nothing
            }
        });
    }

    /**
     * The read that confirms a wait's watch (keys only, the same read as the attempt's listing):
     * is the predecessor still there, and is it now the only key older than ours (the keys before
     * it may have gone since it was named)? Then its delete will make us the holder without a
     * request.
     *
     * <p>It is first sent serializable (no consensus round, answered by the member we talk to). Its
     * answer is used only if its header revision is at least {@code watchedFrom}, the revision after
     * which the watch reports every event: a view at such a revision includes every delete up to
     * the watch's start (members apply one log in one order, so the state at a revision is the same
     * on every member; a key once deleted never comes back with its old create revision). An answer
     * from a member that is behind is asked again linearizably.
     */
    private void confirm(long generation, ByteSequence pred, long watchedFrom, boolean serializable) {
        long revision = place.revision();
        ByteSequence key = place.key();
        if (key == null) {
            return; // the attempt ended
        }
        driver.thread()
                .within(driver.kv().keysUpTo(keys, revision, serializable), driver.requestTimeoutNanos())
                .whenComplete((r, t) -> {
                    if (t != null) {
                        wakeFor(generation, null); // unknown: look again with the transaction
                        return;
                    }
                    if (r.getHeader().getRevision() < watchedFrom) {
                        if (serializable) {
                            confirm(generation, pred, watchedFrom, false);
                        } else {
                            wakeFor(generation, null); // cannot happen for a linearizable read
                        }
                        return;
                    }
                    List<KeyValue> kvs = r.getKvs();
                    if (kvs.isEmpty()
                            || !kvs.get(0).getKey().equals(key)
                            || kvs.get(0).getCreateRevision() != revision) {
                        // our own key is gone (deleted by someone else, or with its lease): never
                        // "the predecessor is gone", which could make us a holder without a key
                        place.keyGone(key, revision);
                        wakeFor(generation, null);
                    } else if (kvs.size() < 2 || !kvs.get(1).getKey().equals(pred)) {
                        // gone before the watch started: look again (or hold, if it was the oldest)
                        wakeFor(generation, pred);
                    } else if (kvs.size() == 2) {
                        place.markOldest(pred, key, revision);
                    }
                });
    }
}
