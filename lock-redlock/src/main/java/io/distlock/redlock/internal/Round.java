package io.distlock.redlock.internal;

import io.distlock.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
    private final Condition changed = lock.newCondition();

    private Round(List<Node> nodes, int quorum, Predicate<T> yes) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.yes = yes;
        this.futures = new ArrayList<>(nodes.size());
        this.answers = new Object[nodes.size()];
        this.errors = new Throwable[nodes.size()];
    }

    /** Sends {@code request(node)} to every node in parallel. */
    static <T> Round<T> start(
            List<Node> nodes,
            int quorum,
            Predicate<T> yes,
            java.util.function.Function<Node, CompletableFuture<T>> request) {
        Round<T> r = new Round<>(nodes, quorum, yes);
        for (Node n : nodes) {
            CompletableFuture<T> f = request.apply(n);
            r.futures.add(f);
            int i = n.index();
            f.whenComplete((v, e) -> r.record(i, v, e));
        }
        return r;
    }

    private void record(int i, T value, Throwable error) {
        lock.lock();
        try {
            recordLocked(i, value, error);
            changed.signalAll();
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

    /** Whether node {@code i} answered yes (so far). */
    boolean saidYes(int i) {
        lock.lock();
        try {
            Object a = answers[i];
            @SuppressWarnings("unchecked")
            T t = (T) a;
            return a != null && yes.test(t);
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
            StringBuilder failed = new StringBuilder();
            StringBuilder pending = new StringBuilder();
            for (Node n : nodes) {
                int i = n.index();
                if (answers[i] != null) {
                    continue;
                }
                Throwable e = errors[i];
                if (e == null && !deadlinePassed) {
                    pending.append(pending.length() > 0 ? ", " : "").append(n.address());
                    continue;
                }
                failed.append(failed.length() > 0 ? ", " : "")
                        .append(n.address())
                        .append(" (");
                failed.append(e == null ? "no reply in time" : reason(e)).append(')');
            }
            if (pending.length() > 0) {
                failed.append("; still pending when a majority became impossible: ")
                        .append(pending);
            }
            return failed.toString();
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

    /**
     * {@code "Class: message"} of {@code e}, plus the innermost cause's when it says something else
     * (a pool's "Could not get a resource" hides the server's {@code WRONGPASS}), at most 200
     * characters.
     */
    static String reason(Throwable e) {
        String s = describe(e);
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != e) {
            s = s + " <- " + describe(root);
        }
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
