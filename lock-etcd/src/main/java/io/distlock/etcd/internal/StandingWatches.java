package io.distlock.etcd.internal;

import com.google.protobuf.ByteString;
import io.distlock.etcd.internal.DeleteWatches.Handle;
import io.distlock.etcd.internal.DeleteWatches.Listener;
import io.etcd.jetcd.ByteSequence;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The waits of a {@link WatchStream}: each goes on a <em>standing</em> watch of its key, made by the
 * first wait on the key and kept (up to {@value #MAX_IDLE_STANDING} idle ones, least recently used
 * dropped first; one that sees a delete while nobody waits on it is dropped too) for later waits
 * on the same key. In a convoy a waiter's predecessor is usually the key of the same other client
 * as last time (every client re-queues at the end, in the same order, under the same key name), so
 * a wait then costs no request at all: no create, no cancel, no confirming read.
 *
 * <p>Why that is safe: a standing watch created at revision R reports every delete of its key name
 * after R, in revision order, for as long as it stands; per standing watch the largest delete
 * revision it reported is kept. A wait for a delete after {@code after} is told of such a delete
 * (also of one the watch saw before the wait began) and never of one at or before {@code after}.
 * If R > {@code after}, a delete in (after, R] could be missed: the waiter checks with a read, as
 * for a new watch ({@link DeleteWatches#waitForDelete}).
 *
 * <p>Lock order: this object's monitor, then the stream's; the stream calls back into a standing
 * watch without holding its own. Internal.
 */
final class StandingWatches {
    /** Idle standing watches kept per provider (one per key recently waited on); the oldest go first. */
    static final int MAX_IDLE_STANDING = 16;

    private final WatchStream stream;
    /** By key, least recently used first. */
    private final LinkedHashMap<ByteString, Standing> standing = new LinkedHashMap<>(16, 0.75f, true);

    StandingWatches(WatchStream stream) {
        this.stream = stream;
    }

    /** See {@link DeleteWatches#waitForDelete}. */
    Handle waitForDelete(ByteSequence key, long after, Listener listener) {
        ByteString k = ByteString.copyFrom(key.getBytes());
        Waiter w = null;
        long created = 0;
        long replay = 0;
        long replayMarked = 0;
        synchronized (this) {
            if (!stream.isClosed()) {
                Standing s = standing.get(k);
                if (s == null) {
                    dropIdle();
                    s = new Standing(k);
                    WatchStream.Watch watch = stream.trySend(k, 0, false, true, s);
                    if (watch != null) {
                        s.watch = watch;
                        standing.put(k, s);
                    } else {
                        s = null;
                    }
                }
                if (s != null) {
                    w = new Waiter(s, after, listener);
                    s.waiters.add(w);
                    created = s.createdRevision;
                    replay = created != 0 && s.lastDelete > after ? s.lastDelete : 0;
                    replayMarked = s.lastDeleteMarked;
                }
            }
        }
        if (w == null) {
            listener.failed(stream.isClosed() ? "provider closed" : "watch stream could not be opened");
            return () -> {};
        }
        if (created != 0) {
            listener.created(created);
            if (replay != 0) {
                listener.deleted(replay, replayMarked);
            }
        }
        return w;
    }

    private void dropIdle() {
        // guarded by this
        if (standing.size() < MAX_IDLE_STANDING) {
            return;
        }
        Iterator<Standing> it = standing.values().iterator();
        while (it.hasNext() && standing.size() >= MAX_IDLE_STANDING) {
            Standing s = it.next();
            if (s.waiters.isEmpty()) {
                it.remove();
                s.watch.cancel();
            }
        }
    }

    /** A standing watch: one server watch, any number of waits (one after another, or together). */
    private final class Standing implements Listener {
        private final ByteString key;
        private WatchStream.Watch watch; // guarded by StandingWatches.this
        /** The created reply's revision; 0 until it came. */
        private long createdRevision; // guarded by StandingWatches.this
        /** The largest revision of a delete it reported. */
        private long lastDelete; // guarded by StandingWatches.this
        /** That delete's {@code markedHolder} (see {@link Listener#deleted}). */
        private long lastDeleteMarked; // guarded by StandingWatches.this

        private final List<Waiter> waiters = new ArrayList<>(2); // guarded by StandingWatches.this

        Standing(ByteString key) {
            this.key = key;
        }

        @Override
        public void created(long revision) {
            List<Waiter> ws;
            synchronized (StandingWatches.this) {
                createdRevision = revision;
                ws = new ArrayList<>(waiters);
            }
            for (Waiter w : ws) {
                w.listener.created(revision);
            }
        }

        @Override
        public void deleted(long revision, long markedHolder) {
            List<Waiter> ws = new ArrayList<>(1);
            synchronized (StandingWatches.this) {
                if (revision > lastDelete) {
                    lastDelete = revision;
                    lastDeleteMarked = markedHolder;
                }
                for (Waiter w : waiters) {
                    if (revision > w.after) {
                        ws.add(w);
                    }
                }
                if (waiters.isEmpty() && standing.get(key) == this) {
                    // nobody waits on this key now: the queue order changed, and its deletes would
                    // only cost messages (a release would reach every provider that once watched
                    // the key); the next wait on it makes a new watch
                    standing.remove(key);
                    watch.cancel();
                }
            }
            for (Waiter w : ws) {
                w.listener.deleted(revision, markedHolder);
            }
        }

        @Override
        public void failed(String reason) {
            List<Waiter> ws;
            synchronized (StandingWatches.this) {
                if (standing.get(key) == this) {
                    standing.remove(key);
                }
                ws = new ArrayList<>(waiters);
                waiters.clear();
            }
            for (Waiter w : ws) {
                w.listener.failed(reason);
            }
        }
    }

    /** One wait on a standing watch; {@link #cancel()} ends the wait, not the watch. */
    private final class Waiter implements Handle {
        private final Standing standingWatch;
        private final long after;
        private final Listener listener;

        Waiter(Standing standingWatch, long after, Listener listener) {
            this.standingWatch = standingWatch;
            this.after = after;
            this.listener = listener;
        }

        @Override
        public void cancel() {
            synchronized (StandingWatches.this) {
                standingWatch.waiters.remove(this);
            }
        }
    }
}
