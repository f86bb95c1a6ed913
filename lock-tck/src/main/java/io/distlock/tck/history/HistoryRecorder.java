package io.distlock.tck.history;

import io.distlock.Lease;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records a lock history from many threads. Thread-safe and cheap (a lock-free queue append).
 *
 * <p>Record {@link #acquired} right after an acquisition returns, {@link Hold#released} right
 * <em>before</em> calling {@link Lease#release()}, and {@link Hold#lost} when the holder learns of a
 * loss; then check the history with {@link HistoryChecker}. Those placements make the recorded
 * holding intervals a superset of what the client believed, never a subset, so a correct lock never
 * shows an overlap, and a broken one shows it as soon as two beliefs overlap.
 *
 * <pre>{@code
 * HistoryRecorder history = new HistoryRecorder();
 * Lease lease = lock.acquire();
 * HistoryRecorder.Hold hold = history.acquired("client-1", lease);
 * ... work ...
 * hold.released();
 * lease.release();
 * HistoryChecker.perLock().check(history.events()).assertOk();
 * }</pre>
 */
public final class HistoryRecorder {
    private final ConcurrentLinkedQueue<HistoryEvent> events = new ConcurrentLinkedQueue<>();
    private final AtomicLong holds = new AtomicLong();

    /** Records an acquisition of {@code lease} by {@code client}, now, with the lease's deadline. */
    public Hold acquired(String client, Lease lease) {
        Objects.requireNonNull(lease, "lease must not be null");
        long now = System.nanoTime();
        Duration left = lease.remainingValidity();
        Hold hold = new Hold(client, client + "#" + holds.incrementAndGet(), lease.lockName(), lease.fencingToken());
        add(new HistoryEvent(
                HistoryEvent.Type.ACQUIRED,
                now,
                hold.client,
                hold.id,
                hold.lock,
                hold.token,
                OptionalLong.of(deadline(now, left))));
        return hold;
    }

    /** Appends an event made elsewhere (for example parsed from a child process's log). */
    public void add(HistoryEvent event) {
        events.add(Objects.requireNonNull(event, "event must not be null"));
    }

    /** A snapshot of the events recorded so far, in recording order. */
    public List<HistoryEvent> events() {
        return new ArrayList<>(events);
    }

    /** Writes every event with {@link HistoryEvent#toLine()}, one per line. */
    public void writeTo(Writer out) {
        try {
            for (HistoryEvent e : events) {
                out.write(e.toLine());
                out.write('\n');
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long deadline(long now, Duration left) {
        long nanos;
        try {
            nanos = left.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
        long r = now + nanos;
        return ((now ^ r) & (nanos ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** One holding of a lock; record what happens to it through this handle. */
    public final class Hold {
        private final String client;
        private final String id;
        private final String lock;
        private final OptionalLong token;

        private Hold(String client, String id, String lock, OptionalLong token) {
            this.client = Objects.requireNonNull(client, "client must not be null");
            this.id = id;
            this.lock = lock;
            this.token = token;
        }

        /** Records the lease's current deadline (call after renewals, before writes). */
        public void valid(Lease lease) {
            long now = System.nanoTime();
            Duration left = lease.remainingValidity();
            // a zero reading says only "the deadline has passed", not when: record no deadline then
            OptionalLong d = left.isZero() ? OptionalLong.empty() : OptionalLong.of(deadline(now, left));
            add(new HistoryEvent(HistoryEvent.Type.VALID, now, client, id, lock, token, d));
        }

        /** Records that the holder is about to release. */
        public void released() {
            add(event(HistoryEvent.Type.RELEASED));
        }

        /** Records that the holder learned of a loss. */
        public void lost() {
            add(event(HistoryEvent.Type.LOST));
        }

        /** Records a write accepted by a guarded resource with this holding's token. */
        public void wrote() {
            add(event(HistoryEvent.Type.WRITE));
        }

        private HistoryEvent event(HistoryEvent.Type type) {
            return new HistoryEvent(type, System.nanoTime(), client, id, lock, token, OptionalLong.empty());
        }

        /** The hold id used in events. */
        public String id() {
            return id;
        }
    }
}
