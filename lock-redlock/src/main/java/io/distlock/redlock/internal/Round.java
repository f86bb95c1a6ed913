package io.distlock.redlock.internal;

import io.distlock.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One request sent to every node at once, and the wait for its outcome: the wait ends as soon as a
 * quorum of nodes said yes, or as soon as a quorum has become impossible, or at the deadline
 * (nodes that have not answered by then count as failed). Thread-safe; the node futures complete it.
 * Guarded by a {@link ReentrantLock}, not a monitor, so that a virtual thread waiting for a round
 * does not pin its carrier (Java 21–23).
 */
final class Round<T> {
    private final List<Node> nodes;
    private final int quorum;
    private final Predicate<T> yes;
    private final List<CompletableFuture<T>> futures;
    private final Object[] answers;
    private final Throwable[] errors;
    private int yesCount;
    private int noCount;
    private int errorCount;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean neverDropped;
    /** Set when the caller stopped waiting: requests not sent by {@link #dropAfter} are dropped. */
    private volatile boolean over;

    private volatile Ticker dropTicker;
    private volatile long dropAfter;
    /** Per node: {@link #QUEUED}, {@link #SENT} or {@link #DROPPED}. */
    private final java.util.concurrent.atomic.AtomicIntegerArray state;

    private static final int QUEUED = 0;
    private static final int SENT = 1;
    private static final int DROPPED = 2;
    /** When each node's request went on the wire ({@link System#nanoTime}, odd; 0 = not yet). */
    private final java.util.concurrent.atomic.AtomicLongArray sent;

    private final Condition changed = lock.newCondition();

    /** The requests the calling thread wrote on direct connections, and their replies' reading. */
    private final DirectReplies direct;

    private long startedAt;
    /** The ticker {@link #startedAt} was read from (null for rounds not started by {@link #startDirect}). */
    private volatile Ticker startTicker;

    private Round(List<Node> nodes, int quorum, Predicate<T> yes) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.yes = yes;
        this.futures = new ArrayList<>(nodes.size());
        this.answers = new Object[nodes.size()];
        this.errors = new Throwable[nodes.size()];
        this.sent = new java.util.concurrent.atomic.AtomicLongArray(nodes.size());
        this.state = new java.util.concurrent.atomic.AtomicIntegerArray(nodes.size());
        this.direct = new DirectReplies(nodes, quorum);
    }

    /** Asked by node {@code i}'s request right before it goes on the wire: may it go? */
    private boolean send(int i) {
        // dropped only once the caller stopped waiting and the round's first deadline passed: a
        // request picked up late but while the round could still use it (or before that deadline,
        // to hold the lock on more than a bare majority) goes out
        Ticker t = dropTicker;
        if (over && t != null && t.read() - dropAfter > 0) {
            state.compareAndSet(i, QUEUED, DROPPED);
            return false;
        }
        if (!state.compareAndSet(i, QUEUED, SENT)) {
            return false; // dropped by dropIfNotSent
        }
        sent.set(i, System.nanoTime() | 1L);
        return true;
    }

    /** Node {@code i}'s request was sent outside this round (a probe whose future the round reuses). */
    void markSent(int i) {
        state.set(i, SENT);
        sent.set(i, System.nanoTime() | 1L);
    }

    /**
     * Makes sure node {@code i}'s request is never sent if it has not been yet (still queued behind
     * other work on the node's I/O executor).
     *
     * @return whether it was not sent and never will be
     */
    boolean dropIfNotSent(int i) {
        return state.compareAndSet(i, QUEUED, DROPPED) || state.get(i) == DROPPED;
    }

    /** How a round's request to one node starts, directly from the calling thread or not. */
    interface Start<T> {
        /**
         * Starts the request to {@code node}: {@code send} is asked right before it goes on the
         * wire; a request written by the calling thread is passed to {@code direct}, for the round
         * to poll its reply.
         */
        CompletableFuture<T> start(
                Node node, java.util.function.BooleanSupplier send, Consumer<DirectRequest<T>> direct);
    }

    /**
     * Sends {@code request} to every node at once; the request asks {@code send} right before it
     * goes on the wire, which starts that node's timeout in {@link #awaitTimed} and says whether the
     * round still wants it (no once the caller stopped waiting). Requests the calling thread wrote
     * itself (direct) are polled by {@link #awaitTimed} from the calling thread first.
     */
    static <T> Round<T> startDirect(Ticker ticker, List<Node> nodes, int quorum, Predicate<T> yes, Start<T> request) {
        Round<T> r = new Round<>(nodes, quorum, yes);
        r.startedAt = ticker.read();
        r.startTicker = ticker;
        for (Node n : nodes) {
            int i = n.index();
            CompletableFuture<T> f = request.start(n, () -> r.send(i), d -> r.direct.add(i, d));
            r.futures.add(f);
            f.whenComplete((v, e) -> r.record(i, v, e));
        }
        return r;
    }

    private void record(int i, T value, Throwable error) {
        Ticker t = startTicker;
        if (t != null) {
            // failures too: a node that stopped answering (its requests time out) counts as slow
            nodes.get(i).replied(t.read() - startedAt);
        }
        lock.lock();
        try {
            recordLocked(i, value, error);
            if (decided()) {
                // wake the caller once, when the outcome is known, not at every answer
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private void recordLocked(int i, T value, Throwable error) {
        if (error != null) {
            errors[i] = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause()
                    : error;
            errorCount++;
        } else {
            answers[i] = value;
            if (yes.test(value)) {
                yesCount++;
            } else {
                noCount++;
            }
        }
    }

    private boolean decided() {
        int pending = nodes.size() - yesCount - noCount - errorCount;
        return yesCount >= quorum || yesCount + pending < quorum;
    }

    /**
     * Marks the round's requests as never dropped (a release), so {@link #awaitTimed} waits for
     * queued ones until they are sent (and a node timeout more), up to its cap.
     */
    Round<T> neverDropped() {
        neverDropped = true;
        return this;
    }

    /**
     * Waits until the outcome is decided, giving every pending node {@code nodeTimeoutNanos} from
     * the moment its request went on the wire (not from the start of the round: a client thread
     * that was scheduled late, on a loaded machine or behind a pause, does not count against the
     * node), never past {@code cap}. A request not yet sent counts from now. Uninterruptible like
     * {@link #awaitUninterruptibly}.
     *
     * @return whether a quorum said yes
     */
    boolean awaitTimed(Ticker ticker, long firstDeadline, long nodeTimeoutNanos, long cap) {
        long deadline = Math.min(firstDeadline, cap);
        direct.poll(ticker, startedAt, deadline, this::isDecided);
        dropAfter = firstDeadline;
        dropTicker = ticker;
        while (!awaitDecided(ticker, deadline) && !direct.pollHandedOff(this::isDecided)) {
            long now = ticker.read();
            if (now - cap >= 0) {
                break;
            }
            // the ticker may differ from System.nanoTime: convert the send times by their age
            long wall = System.nanoTime();
            long next = now;
            for (Node n : nodes) {
                int i = n.index();
                if (!isPending(i)) {
                    continue;
                }
                long s = sent.get(i);
                // not sent yet: if the node's I/O threads are all busy (a backlog behind a stalled
                // node), one more node timeout after the first deadline, then it is dropped;
                // otherwise (a thread not scheduled yet on a loaded machine) or for requests that
                // are never dropped (releases), until it is sent and a node timeout more
                long due = s != 0
                        ? now - (wall - s) + nodeTimeoutNanos
                        : neverDropped || !n.backlogged() ? now + nodeTimeoutNanos : firstDeadline + nodeTimeoutNanos;
                if (due - next > 0) {
                    next = due;
                }
            }
            if (next == now) {
                break; // every pending node had its full timeout
            }
            deadline = Math.min(next, cap);
        }
        over = true;
        lock.lock();
        try {
            return yesCount >= quorum;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the outcome is decided (a majority said yes, or one became impossible). */
    boolean isDecided() {
        lock.lock();
        try {
            return decided();
        } finally {
            lock.unlock();
        }
    }

    /** Waits like {@link #await}; returns whether the round is decided. */
    boolean awaitDecided(Ticker ticker, long deadline) {
        awaitUninterruptibly(ticker, deadline);
        lock.lock();
        try {
            return decided();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until the outcome is decided or {@code ticker} passes {@code deadline}.
     *
     * @return whether a quorum said yes
     */
    boolean await(Ticker ticker, long deadline) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (!decided()) {
                long left = deadline - ticker.read();
                if (left <= 0) {
                    break;
                }
                changed.awaitNanos(left);
            }
            return yesCount >= quorum;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Like {@link #await}, but an interrupt does not cut the round short (it is bounded by the node
     * timeout anyway, and its outcome must be known to clean up): the wait goes on and the interrupt
     * flag is set again afterwards, for the engine to see before its next wait.
     */
    boolean awaitUninterruptibly(Ticker ticker, long deadline) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return await(ticker, deadline);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    int yesCount() {
        lock.lock();
        try {
            return yesCount;
        } finally {
            lock.unlock();
        }
    }

    int noCount() {
        lock.lock();
        try {
            return noCount;
        } finally {
            lock.unlock();
        }
    }

    /** Number of nodes that failed or have not answered (yet). */
    int unansweredCount() {
        lock.lock();
        try {
            return nodes.size() - yesCount - noCount;
        } finally {
            lock.unlock();
        }
    }

    /** The answer of node {@code i}, or null if it failed or has not answered (yet). */
    @SuppressWarnings("unchecked")
    T answer(int i) {
        lock.lock();
        try {
            return (T) answers[i];
        } finally {
            lock.unlock();
        }
    }

    /** Whether node {@code i} has neither answered nor failed (yet). */
    boolean isPending(int i) {
        lock.lock();
        try {
            return answers[i] == null && errors[i] == null;
        } finally {
            lock.unlock();
        }
    }

    /** The future of node {@code i}'s request. */
    CompletableFuture<T> future(int i) {
        return futures.get(i);
    }

    /**
     * {@code "host:port (reason), ..."} for nodes that failed, then (after {@code "; "}) nodes whose
     * reply was still pending: {@code "no reply in time"} if the deadline passed, otherwise the round
     * was decided early (a majority had become impossible) and they are listed as pending.
     */
    String describeUnanswered(boolean deadlinePassed) {
        lock.lock();
        try {
            return RoundReport.unanswered(nodes, answers, errors, deadlinePassed);
        } finally {
            lock.unlock();
        }
    }

    /** How many nodes said yes, no and nothing, in one reading ({@link RoundReport#tally}). */
    String tally(long nodeTimeoutMillis) {
        lock.lock();
        try {
            return RoundReport.tally(
                    nodes.size(), yesCount, noCount, nodes.size() - yesCount - noCount, nodeTimeoutMillis, quorum);
        } finally {
            lock.unlock();
        }
    }

    /** Number of nodes whose request failed on a configuration problem ({@link RedisErrors}). */
    int configurationFailureCount() {
        lock.lock();
        try {
            return RoundReport.configurationFailures(errors);
        } finally {
            lock.unlock();
        }
    }

    /** The first error, for use as a cause. */
    Throwable firstError() {
        lock.lock();
        try {
            for (Throwable e : errors) {
                if (e != null) {
                    return e;
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }
}
