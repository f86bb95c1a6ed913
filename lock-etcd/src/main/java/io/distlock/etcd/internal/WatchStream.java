package io.distlock.etcd.internal;

import com.google.protobuf.ByteString;
import io.distlock.Ticker;
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
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One long-lived gRPC {@code Watch} stream per provider that carries all of its watches (jetcd opens
 * a new gRPC stream per watcher, which in a convoy would cost one stream per acquisition): an
 * own-key watch is one create request on it and one cancel request when it ends; a wait goes on a
 * standing watch of its key ({@link StandingWatches}), made once and kept for later waits on the
 * same key. Opened lazily on the channel and with the call credentials of the provider's jetcd
 * client ({@link ChannelTap}), so endpoints, TLS and the auth token are jetcd's.
 *
 * <p>etcd answers the create requests of one stream in the order they were sent (one {@code
 * created} reply each, also for a refused one), so replies are matched to the oldest unanswered
 * create (etcd 3.4 has no client-chosen watch id). A watch cancelled before its reply is cancelled
 * on the server when the reply comes.
 *
 * <p>If the stream fails (its member died, the provider closes): every wait is told {@link
 * Listener#failed} (a waiter then looks again with a read, never concluding anything from the
 * failure), and every own-key watch is made again on a new stream, after a pause on the session
 * thread, from the revision after the last event it saw, so no delete is missed. Internal.
 */
final class WatchStream implements DeleteWatches {
    private static final Logger log = LoggerFactory.getLogger(WatchStream.class);

    /** After this many failures in a row the stream is not used for {@link #DISABLED_NANOS}. */
    private static final int MAX_FAILURES_IN_A_ROW = 3;

    private static final long DISABLED_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** First and largest pause before own-key watches of a broken stream are made again. */
    private static final long RESUME_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final long RESUME_MAX_NANOS = TimeUnit.SECONDS.toNanos(2);

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
    private final SessionThread thread;
    private final Ticker ticker;
    private final StandingWatches standing = new StandingWatches(this);
    private final AtomicLong streamsOpened = new AtomicLong();
    private final AtomicLong watchesSetUp = new AtomicLong();

    // all guarded by this
    private StreamObserver<WatchRequest> requests;
    private Object streamToken;
    private final ArrayDeque<Watch> unanswered = new ArrayDeque<>();
    private final Map<Long, Watch> active = new HashMap<>();
    private final List<Watch> toResume = new ArrayList<>();

    private volatile boolean closed; // written under this
    /** Streams in a row that broke, or watches in a row that were refused, with no watch set up since. */
    private int failuresInARow; // guarded by this
    /** Whether a watch was set up on the current stream. */
    private boolean anyCreated; // guarded by this

    private volatile long disabledUntil;
    private volatile boolean disabled;
    /** The pause before the next {@link #resume()}; touched only by the session thread. */
    private volatile long resumeDelayNanos = RESUME_FIRST_NANOS;

    /**
     * @param needsCredentials whether jetcd authenticates (a user is set): no stream is opened
     *     until jetcd has made a call with its credentials
     * @param thread where own-key watches of a broken stream are made again, after a pause
     */
    WatchStream(ChannelTap tap, boolean needsCredentials, SessionThread thread, Ticker ticker) {
        this.tap = tap;
        this.needsCredentials = needsCredentials;
        this.thread = thread;
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

    boolean isClosed() {
        return closed;
    }

    private void failedOnce() {
        // guarded by this
        if (++failuresInARow >= MAX_FAILURES_IN_A_ROW && !disabled) {
            disabledUntil = ticker.read() + DISABLED_NANOS;
            disabled = true;
            log.debug("distlock.etcd.watch_stream_disabled failures={}", failuresInARow);
        }
    }

    /** How many watches the server set up on this provider's streams so far. */
    long watchesSetUp() {
        return watchesSetUp.get();
    }

    /** How many gRPC streams this provider opened so far. */
    long streamsOpened() {
        return streamsOpened.get();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Made again on a new stream (from the revision after its last event) if the stream breaks.
     */
    @Override
    public Handle watchDeletes(ByteSequence key, long startRevision, Listener listener) {
        Watch w = trySend(ByteString.copyFrom(key.getBytes()), startRevision, true, false, listener);
        if (w == null) {
            listener.failed(closed ? "provider closed" : "watch stream could not be opened");
            return () -> {};
        }
        return w;
    }

    /** {@inheritDoc} On a standing watch of the key ({@link StandingWatches}). */
    @Override
    public Handle waitForDelete(ByteSequence key, long after, Listener listener) {
        return standing.waitForDelete(key, after, listener);
    }

    /**
     * A watch of {@code key} for deletes (puts are filtered out on the server), its create request
     * sent on the stream (opened if needed); null if the stream is closed or cannot be opened.
     *
     * @param resumable made again on a new stream if the stream breaks; otherwise {@link
     *     Listener#failed} is called
     * @param prevKv whether each delete carries the key's previous value (for the holder mark)
     */
    synchronized Watch trySend(
            ByteString key, long startRevision, boolean resumable, boolean prevKv, Listener listener) {
        Watch w = new Watch(key, startRevision, resumable, prevKv, listener);
        return !closed && send(w) ? w : null;
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
            resumeLater();
        }
    }

    /** Schedules {@link #resume()} on the session thread, after a pause that doubles while it fails. */
    private void resumeLater() {
        try {
            thread.schedule(
                    () -> {
                        if (closed) {
                            return;
                        }
                        if (resume()) {
                            resumeDelayNanos = Math.min(resumeDelayNanos * 2, RESUME_MAX_NANOS);
                            resumeLater();
                        } else {
                            resumeDelayNanos = RESUME_FIRST_NANOS;
                        }
                    },
                    resumeDelayNanos);
        } catch (RejectedExecutionException closing) {
            // the provider is closing: its watches end with it
        }
    }

    /**
     * Makes the resumable watches of a broken stream again on a new one; runs on the session thread
     * after a pause. Returns whether some still wait for a stream.
     */
    private boolean resume() {
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
                            e.getKv().getModRevision(), e.hasPrevKv() ? HolderMark.markedRevision(e.getPrevKv()) : 0);
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
