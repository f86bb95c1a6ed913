package io.distlock.etcd.internal;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.api.Event;
import io.etcd.jetcd.api.WatchCancelRequest;
import io.etcd.jetcd.api.WatchCreateRequest;
import io.etcd.jetcd.api.WatchGrpc;
import io.etcd.jetcd.api.WatchRequest;
import io.etcd.jetcd.api.WatchResponse;
import io.grpc.CallCredentials;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One long-lived gRPC {@code Watch} stream per provider that carries all of its watches (jetcd opens
 * a new gRPC stream per watcher, which in a convoy cost one stream per acquisition): an own-key
 * watch is one create request on it and one cancel request when it ends; a wait goes on a standing
 * watch of its key ({@link #waitForDelete}), made once and kept for later waits on the same key.
 * Opened lazily on the channel and with the call credentials of the provider's jetcd client
 * ({@link ChannelTap}), so endpoints, TLS and the auth token are jetcd's.
 *
 * <p>etcd answers the create requests of one stream in the order they were sent (one {@code
 * created} reply each, also for a refused one), so replies are matched to the oldest unanswered
 * create. A watch cancelled before its reply is cancelled on the server when the reply comes.
 *
 * <p>If the stream fails (its member died, the provider closes): every wait is told {@link
 * Listener#failed} (a waiter then looks again with a read, never concluding anything from the
 * failure), and every resumable watch (the own-key watches of held locks) is made again on a new
 * stream from the revision after the last event it saw, so no delete is missed. Internal.
 */
final class WatchStream {
    private static final Logger log = LoggerFactory.getLogger(WatchStream.class);

    /**
     * What a watch reports; called on the gRPC transport thread (or the caller's), never under the
     * stream's lock: must not block and must not run user code.
     */
    interface Listener {
        /** The server set the watch up; it reports every event after {@code revision}. */
        void created(long revision);

        /**
         * The watched key was deleted at {@code revision}. {@code markedHolder}: the create revision
         * of the deleted key if its last value was the holder mark ({@link
         * EtcdContender#markedHolderRevision}; only on watches that ask for the previous value),
         * else 0.
         */
        void deleted(long revision, long markedHolder);

        /** The watch ended without being cancelled by us (stream broken, compacted, refused). */
        void failed(String reason);
    }

    /** A watch: {@link #cancel()} ends it (idempotent); a report already on its way may still arrive. */
    interface Handle {
        void cancel();
    }

    /** One watch on one key; {@link #cancel()} ends it (idempotent). */
    final class Watch implements Handle {
        private final ByteString key;
        private final boolean resumable;
        /** Whether the server sends each delete's previous key-value (for the holder mark). */
        private final boolean prevKv;

        private final Listener listener;
        /** The revision to start from if made again (resumable watches); 0: the server's current one. */
        private long startRevision; // guarded by WatchStream.this

        private long id = -1; // guarded by WatchStream.this
        private boolean cancelled; // guarded by WatchStream.this

        private Watch(ByteString key, long startRevision, boolean resumable, boolean prevKv, Listener listener) {
            this.key = key;
            this.startRevision = startRevision;
            this.resumable = resumable;
            this.prevKv = prevKv;
            this.listener = listener;
        }

        @Override
        public void cancel() {
            WatchStream.this.cancel(this);
        }
    }

    private final ChannelTap tap;
    private final boolean needsCredentials;
    private final Runnable resumeLater;
    private final AtomicLong streamsOpened = new AtomicLong();
    private final AtomicLong watchesSetUp = new AtomicLong();

    // all guarded by this
    private StreamObserver<WatchRequest> requests;
    private Object streamToken;
    private final ArrayDeque<Watch> unanswered = new ArrayDeque<>();
    private final Map<Long, Watch> active = new HashMap<>();
    private final List<Watch> toResume = new ArrayList<>();
    /** Standing watches by key, least recently used first; see {@link #waitForDelete}. */
    private final java.util.LinkedHashMap<ByteString, Standing> standing =
            new java.util.LinkedHashMap<>(16, 0.75f, true);

    private volatile boolean closed; // written under this
    /** Streams in a row that broke, or watches in a row that were refused, with no watch set up since. */
    private int failuresInARow; // guarded by this
    /** Whether a watch was set up on the current stream. */
    private boolean anyCreated; // guarded by this

    private volatile long disabledUntil;
    private volatile boolean disabled;

    /** After this many failures in a row the stream is not used for {@link #DISABLED_NANOS}. */
    private static final int MAX_FAILURES_IN_A_ROW = 3;

    private static final long DISABLED_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);

    private final io.distlock.Ticker ticker;

    /**
     * @param resumeLater asks the driver to call {@link #resume()} after a pause (on its session
     *     thread), when a broken stream left resumable watches
     */
    WatchStream(ChannelTap tap, boolean needsCredentials, Runnable resumeLater, io.distlock.Ticker ticker) {
        this.tap = tap;
        this.needsCredentials = needsCredentials;
        this.resumeLater = resumeLater;
        this.ticker = ticker;
    }

    /**
     * Whether a stream can be opened now: jetcd has made a call through the tap (so its channel is
     * known) and, for a client with a user, the call carried jetcd's credentials; and the stream
     * has not failed {@value #MAX_FAILURES_IN_A_ROW} times in a row in the last 5 s (then the
     * driver uses jetcd's watchers, which retry and refresh the auth token on their own, so that a
     * waiter never loops on a stream that keeps failing).
     */
    boolean usable() {
        if (disabled) {
            if (ticker.read() - disabledUntil < 0) {
                return false;
            }
            synchronized (this) {
                disabled = false;
                failuresInARow = 0;
            }
        }
        return !closed && tap.channel() != null && (!needsCredentials || tap.credentials() != null);
    }

    private void failedOnce() {
        // guarded by this
        if (++failuresInARow >= MAX_FAILURES_IN_A_ROW && !disabled) {
            disabledUntil = ticker.read() + DISABLED_NANOS;
            disabled = true;
            log.debug("distlock.etcd.watch_stream_disabled failures={}", failuresInARow);
        }
    }

    /** How many watches the server set up on this provider's streams so far (for tests). */
    long watchesSetUp() {
        return watchesSetUp.get();
    }

    /** How many gRPC streams this provider opened so far (for tests). */
    long streamsOpened() {
        return streamsOpened.get();
    }

    /**
     * Watches {@code key} for deletes (puts are filtered out on the server).
     *
     * @param startRevision the first revision to report, or 0 for "after the server's current one"
     *     (a watch that starts in the past is served by etcd's unsynced group, up to 100 ms late)
     * @param resumable made again on a new stream (from the revision after its last event) if the
     *     stream breaks; otherwise {@link Listener#failed} is called
     */
    Watch watch(ByteSequence key, long startRevision, boolean resumable, Listener listener) {
        Watch w = new Watch(ByteString.copyFrom(key.getBytes()), startRevision, resumable, false, listener);
        boolean fail;
        synchronized (this) {
            fail = closed || !send(w);
        }
        if (fail) {
            listener.failed(closed ? "provider closed" : "watch stream could not be opened");
        }
        return w;
    }

    /** Idle standing watches kept per provider (one per key recently waited on); the oldest go first. */
    static final int MAX_IDLE_STANDING = 16;

    /**
     * Waits for a delete of {@code key} at a revision after {@code after}, on a <em>standing</em>
     * watch of that key: made by the first wait on the key and kept (up to {@value
     * #MAX_IDLE_STANDING} idle ones, least recently used dropped first; one that sees a delete while
     * nobody waits on it is dropped too) for later waits on the same key. In a convoy a waiter's predecessor is usually the key of the same other client as last
     * time (every client re-queues at the end, in the same order, under the same key name), so a
     * wait then costs no request at all: no create, no cancel, no confirming read.
     *
     * <p>What the listener is told: {@link Listener#created} with the revision R after which the
     * watch reports every delete of the key (once it is set up; at once for a standing one), then
     * {@link Listener#deleted} for each delete after {@code after} — including one the standing
     * watch saw before this wait began. So if R ≤ {@code after}, every delete after {@code after}
     * is reported; if R > {@code after}, a delete in (after, R] may be missed and the caller must
     * check with a read (as for a new watch). {@link Listener#failed} if the watch ends.
     */
    Handle waitForDelete(ByteSequence key, long after, Listener listener) {
        ByteString k = ByteString.copyFrom(key.getBytes());
        Waiter w = null;
        long created = 0;
        long replay = 0;
        long replayMarked = 0;
        synchronized (this) {
            if (!closed) {
                Standing s = standing.get(k);
                if (s == null) {
                    dropIdleStanding();
                    s = new Standing(k);
                    Watch watch = new Watch(k, 0, false, true, s);
                    if (send(watch)) {
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
            listener.failed(closed ? "provider closed" : "watch stream could not be opened");
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

    private void dropIdleStanding() {
        // guarded by this
        if (standing.size() < MAX_IDLE_STANDING) {
            return;
        }
        java.util.Iterator<Standing> it = standing.values().iterator();
        while (it.hasNext() && standing.size() >= MAX_IDLE_STANDING) {
            Standing s = it.next();
            if (s.waiters.isEmpty()) {
                it.remove();
                cancel(s.watch);
            }
        }
    }

    /** A standing watch: one server watch, any number of waits (one after another, or together). */
    private final class Standing implements Listener {
        private final ByteString key;
        private Watch watch; // guarded by WatchStream.this
        /** The created reply's revision; 0 until it came. */
        private long createdRevision; // guarded by WatchStream.this
        /** The largest revision of a delete it reported. */
        private long lastDelete; // guarded by WatchStream.this
        /** That delete's {@code markedHolder} (see {@link Listener#deleted}). */
        private long lastDeleteMarked; // guarded by WatchStream.this

        private final List<Waiter> waiters = new ArrayList<>(2); // guarded by WatchStream.this

        Standing(ByteString key) {
            this.key = key;
        }

        @Override
        public void created(long revision) {
            List<Waiter> ws;
            synchronized (WatchStream.this) {
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
            synchronized (WatchStream.this) {
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
                    cancel(watch);
                }
            }
            for (Waiter w : ws) {
                w.listener.deleted(revision, markedHolder);
            }
        }

        @Override
        public void failed(String reason) {
            List<Waiter> ws;
            synchronized (WatchStream.this) {
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
            synchronized (WatchStream.this) {
                standingWatch.waiters.remove(this);
            }
        }
    }

    /** Sends the create request of {@code w} on the stream (opened if needed); false if it cannot. */
    private boolean send(Watch w) {
        // guarded by this
        if (requests == null && !open()) {
            return false;
        }
        WatchCreateRequest.Builder c =
                WatchCreateRequest.newBuilder().setKey(w.key).addFilters(WatchCreateRequest.FilterType.NOPUT);
        if (w.startRevision > 0) {
            c.setStartRevision(w.startRevision);
        }
        if (w.prevKv) {
            c.setPrevKv(true);
        }
        unanswered.add(w);
        try {
            requests.onNext(WatchRequest.newBuilder().setCreateRequest(c).build());
            return true;
        } catch (RuntimeException e) {
            unanswered.remove(w);
            log.debug("distlock.etcd.watch_send_failed error={}", e.toString());
            return false;
        }
    }

    private boolean open() {
        // guarded by this
        Channel ch = tap.channel();
        CallCredentials cred = tap.credentials();
        if (ch == null || (needsCredentials && cred == null)) {
            return false;
        }
        // answers are handled on the transport thread: the listeners only note and signal (an
        // own-key delete, which reaches user code through the lease's loss signal, is passed on
        // to the session thread by its listener)
        CallOptions opts = CallOptions.DEFAULT.withExecutor(Runnable::run);
        if (cred != null) {
            opts = opts.withCallCredentials(cred);
        }
        ClientCall<WatchRequest, WatchResponse> call = ch.newCall(WatchGrpc.getWatchMethod(), opts);
        Object token = new Object();
        streamToken = token;
        requests = ClientCalls.asyncBidiStreamingCall(call, new Responses(token));
        streamsOpened.incrementAndGet();
        anyCreated = false;
        return true;
    }

    private void cancel(Watch w) {
        synchronized (this) {
            if (w.cancelled) {
                return;
            }
            w.cancelled = true;
            toResume.remove(w);
            if (w.id >= 0 && active.remove(w.id) == w && requests != null) {
                sendCancel(w.id);
            }
            // not yet answered: cancelled on the server when its created reply comes
        }
    }

    private void sendCancel(long id) {
        // guarded by this
        try {
            requests.onNext(WatchRequest.newBuilder()
                    .setCancelRequest(WatchCancelRequest.newBuilder().setWatchId(id))
                    .build());
        } catch (RuntimeException e) {
            log.debug("distlock.etcd.watch_cancel_failed error={}", e.toString());
        }
    }

    /** Ends the stream; every watch on it fails (and none is made again). */
    void close() {
        StreamObserver<WatchRequest> r;
        synchronized (this) {
            closed = true;
            r = requests;
        }
        if (r != null) {
            try {
                r.onError(io.grpc.Status.CANCELLED
                        .withDescription("provider closed")
                        .asRuntimeException());
            } catch (RuntimeException ignored) {
                // already broken
            }
        }
        brokenAndTell(streamTokenNow(), "provider closed");
    }

    /** Ends the stream {@code token} names (if still current) so that the next watch opens a new one. */
    private void restart(Object token, String reason) {
        StreamObserver<WatchRequest> r;
        synchronized (this) {
            if (token != streamToken) {
                return;
            }
            r = requests;
        }
        brokenAndTell(token, reason);
        if (r != null) {
            try {
                r.onError(io.grpc.Status.CANCELLED.withDescription(reason).asRuntimeException());
            } catch (RuntimeException ignored) {
                // already broken
            }
        }
    }

    private synchronized Object streamTokenNow() {
        return streamToken;
    }

    /**
     * The stream ended: fail its non-resumable watches, keep the resumable ones to make again on a
     * new stream ({@link #resume()}). Only for the stream {@code token} names (a late error of an
     * earlier stream is ignored).
     */
    private void brokenAndTell(Object token, String reason) {
        List<Watch> failed = new ArrayList<>();
        boolean resume;
        synchronized (this) {
            if (token == null || token != streamToken) {
                return;
            }
            streamToken = null;
            requests = null;
            List<Watch> all = new ArrayList<>(unanswered);
            all.addAll(active.values());
            unanswered.clear();
            active.clear();
            for (Watch w : all) {
                w.id = -1;
                if (w.cancelled) {
                    continue;
                }
                if (w.resumable && !closed) {
                    toResume.add(w);
                } else {
                    failed.add(w);
                }
            }
            resume = !toResume.isEmpty();
        }
        for (Watch w : failed) {
            w.listener.failed(reason);
        }
        if (resume) {
            resumeLater.run();
        }
    }

    /**
     * Makes the resumable watches of a broken stream again on a new one; called by the driver's
     * session thread after a pause. Returns whether some still wait for a stream.
     */
    boolean resume() {
        List<Watch> failed = new ArrayList<>();
        boolean left;
        synchronized (this) {
            if (closed) {
                toResume.clear();
                return false;
            }
            List<Watch> again = new ArrayList<>(toResume);
            toResume.clear();
            for (Watch w : again) {
                if (!w.cancelled && !send(w)) {
                    toResume.add(w);
                }
            }
            left = !toResume.isEmpty();
            if (left && requests == null && !usable()) {
                failed.addAll(toResume);
                toResume.clear();
                left = false;
            }
        }
        for (Watch w : failed) {
            w.listener.failed("watch stream could not be opened");
        }
        return left;
    }

    synchronized boolean needsResume() {
        return !toResume.isEmpty() && !closed;
    }

    /** The responses of one stream; a stream that was replaced is ignored. */
    private final class Responses implements StreamObserver<WatchResponse> {
        private final Object token;

        Responses(Object token) {
            this.token = token;
        }

        @Override
        public void onNext(WatchResponse r) {
            Watch w;
            boolean created = false;
            boolean refused = false;
            String failure = null;
            long revision = r.getHeader().getRevision();
            synchronized (WatchStream.this) {
                if (token != streamToken) {
                    return;
                }
                if (r.getCreated()) {
                    w = unanswered.poll();
                    if (w == null) {
                        return; // cannot happen: one reply per create, in order
                    }
                    if (r.getCanceled() || r.getWatchId() < 0) {
                        // refused (an expired auth token, permissions, a compacted start): the
                        // next watch opens a new stream, with jetcd's current credentials
                        failure = "watch refused: " + r.getCancelReason();
                        failedOnce();
                        refused = true;
                    } else if (w.cancelled) {
                        sendCancel(r.getWatchId());
                        return;
                    } else {
                        w.id = r.getWatchId();
                        active.put(w.id, w);
                        created = true;
                        anyCreated = true;
                        watchesSetUp.incrementAndGet();
                        failuresInARow = 0;
                    }
                } else if (r.getCanceled()) {
                    w = active.remove(r.getWatchId());
                    if (w == null) {
                        return; // our own cancel
                    }
                    failure = r.getCompactRevision() > 0
                            ? "watch start revision compacted (at " + r.getCompactRevision() + ")"
                            : "watch cancelled by the server: " + r.getCancelReason();
                } else {
                    w = active.get(r.getWatchId());
                    if (w == null) {
                        return; // a watch we cancelled: its events may still come
                    }
                    if (w.resumable) {
                        for (Event e : r.getEventsList()) {
                            w.startRevision =
                                    Math.max(w.startRevision, e.getKv().getModRevision() + 1);
                        }
                    }
                }
            }
            if (failure != null) {
                w.listener.failed(failure);
                if (refused) {
                    restart(token, failure);
                }
                return;
            }
            if (created) {
                w.listener.created(revision);
            }
            for (Event e : r.getEventsList()) {
                if (e.getType() == Event.EventType.DELETE) {
                    w.listener.deleted(
                            e.getKv().getModRevision(),
                            e.hasPrevKv() ? EtcdContender.markedHolderRevision(e.getPrevKv()) : 0);
                }
            }
        }

        @Override
        public void onError(Throwable t) {
            log.debug("distlock.etcd.watch_stream_broken error={}", t.toString());
            synchronized (WatchStream.this) {
                if (token == streamToken && !anyCreated) {
                    failedOnce();
                }
            }
            brokenAndTell(token, "watch stream broken: " + t);
        }

        @Override
        public void onCompleted() {
            brokenAndTell(token, "watch stream ended by the server");
        }
    }
}
