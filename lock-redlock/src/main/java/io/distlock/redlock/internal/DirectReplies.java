package io.distlock.redlock.internal;

import io.distlock.Ticker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The requests of a {@link Round} that its own thread wrote on direct connections, and the reading
 * of their replies: that thread polls them while the outcome needs them, then hands the rest to
 * the nodes' I/O threads. Used only by the thread that started the round.
 */
final class DirectReplies {
    /**
     * How long the thread that started a round polls its direct requests' replies (yielding the
     * CPU between polls) before it hands the outstanding ones to the nodes' I/O threads and blocks:
     * 2 ms, several times a local round trip on a loaded machine, and short against any node
     * timeout; reached only when the outcome needs a node that is slow to answer.
     */
    static final long PATIENCE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /**
     * Once the outcome is decided, how long it still polls for the other direct replies at least:
     * 50 µs. Longer for a node that usually answers about as fast as the round was decided (see
     * {@link #waitingForFast}): every reply read here saves a wake-up of that node's I/O thread, and
     * the next round finds the node's connection idle instead of queueing behind the unread reply.
     */
    static final long LINGER_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    private final List<Node> nodes;
    private final int quorum;
    /** Per node: the request written on a direct connection, its reply not read yet (or null). */
    private final DirectRequest<?>[] open;

    /** The direct requests handed to the nodes' I/O threads (polled once more at the deadline). */
    private final List<DirectRequest<?>> handedOff = new ArrayList<>(0);

    DirectReplies(List<Node> nodes, int quorum) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.open = new DirectRequest<?>[nodes.size()];
    }

    /** Node {@code i}'s request went out on a direct connection. */
    void add(int i, DirectRequest<?> request) {
        open[i] = request;
    }

    /**
     * Polls the replies until the outcome is {@code decided} (and then for {@link #LINGER_NANOS}
     * more, or until every one arrived), the patience (from {@code startedAt}) runs out or {@code
     * until} passes; hands the rest to the nodes' I/O threads. Between polls the thread yields the
     * CPU (the nodes' replies may need it: one machine runs both in tests and benchmarks).
     */
    void poll(Ticker ticker, long startedAt, long until, BooleanSupplier decided) {
        long patience = Math.min(until, startedAt + PATIENCE_NANOS);
        long decidedAt = 0;
        long fast = 0;
        boolean any = false;
        while (true) {
            int waiting = 0;
            for (int i = 0; i < open.length; i++) {
                DirectRequest<?> d = open[i];
                if (d != null) {
                    any = true;
                    if (d.poll()) {
                        open[i] = null;
                    } else {
                        waiting++;
                    }
                }
            }
            if (waiting == 0) {
                return;
            }
            long now = ticker.read();
            if (decidedAt == 0 && decided.getAsBoolean()) {
                decidedAt = now | 1L;
                fast = Math.max(LINGER_NANOS, 2 * usualDecision());
            }
            if ((decidedAt != 0 && now - decidedAt >= LINGER_NANOS && !waitingForFast(fast)) || now - patience >= 0) {
                break;
            }
            Thread.yield();
        }
        if (!any) {
            return;
        }
        for (int i = 0; i < open.length; i++) {
            DirectRequest<?> d = open[i];
            if (d != null) {
                open[i] = null;
                handedOff.add(d);
                d.handOff();
            }
        }
    }

    /**
     * At a deadline: reads the handed-off replies that have arrived but that no I/O thread has read
     * yet (on a loaded machine the thread may not have run), so a node that answered in time is not
     * counted as silent. Returns whether the outcome is {@code decided} now.
     */
    boolean pollHandedOff(BooleanSupplier decided) {
        if (handedOff.isEmpty()) {
            return false;
        }
        for (DirectRequest<?> d : handedOff) {
            d.poll();
        }
        return decided.getAsBoolean();
    }

    /**
     * How long a round usually takes to be decided: the quorum-th shortest of the nodes' usual
     * reply times.
     */
    private long usualDecision() {
        long[] usual = new long[nodes.size()];
        for (int i = 0; i < usual.length; i++) {
            usual[i] = nodes.get(i).usualReplyNanos();
        }
        Arrays.sort(usual);
        return usual[Math.min(quorum, usual.length) - 1];
    }

    /**
     * Whether a direct request still open is to a node whose replies usually arrive within {@code
     * fast} of a round's start (twice the time rounds usually take to be decided): such a reply is
     * worth waiting for (up to the patience); a node that is usually slower (far away, overloaded,
     * behind a slow link) is handed to its I/O thread at once, so it never slows the rounds down.
     */
    private boolean waitingForFast(long fast) {
        for (int i = 0; i < open.length; i++) {
            if (open[i] != null && nodes.get(i).usualReplyNanos() <= fast) {
                return true;
            }
        }
        return false;
    }
}
