package io.distlock.redlock.internal;

import io.distlock.Ticker;
import io.distlock.redis.core.Subscriber;
import io.distlock.redis.core.Subscription;
import io.distlock.spi.Deadlines;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The waiting threads of one provider, grouped by lock name, and their subscriptions to the lock's
 * release channel on <em>every</em> node.
 *
 * <p>Each name with local waiters is subscribed once per node (through that node's {@link
 * Subscriber}: one pub/sub connection per node per provider, never one per waiter). A release
 * publishes on every node where it deleted the holder's key, so on a majority, and every node's
 * message lands in the same group: the first message of a release wakes <em>one</em> waiter, the
 * first registered one that is not trying already; messages that arrive while that waiter is trying
 * wake nobody else (a release sends one per node, and the woken waiter either gets the lock or
 * learns who did). If its try fails, a message that arrived after the try started (a release it may
 * not have seen) sends it straight back; otherwise it waits again. A waiter that gives up hands the
 * wake-up on to the next one.
 *
 * <p>Locking: the subscribers call {@link Group} under their own lock, which then takes this class's
 * lock; so this class never calls a subscriber while holding its lock.
 */
final class Waiters {
    /** Why {@link Waiter#await} returned. */
    enum Wake {
        /** A release message (this waiter was chosen to try). */
        RELEASE,
        /** A subscription was confirmed or re-established: a release may have been missed. */
        MAYBE_MISSED,
        /** The deadline passed (the holder's TTL or the caller's budget). */
        TIMEOUT,
        /** The provider is closing. */
        CLOSED
    }

    private final List<Node> nodes;
    private final Ticker ticker;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Group> groups = new HashMap<>();
    private boolean closed;

    Waiters(List<Node> nodes, Ticker ticker) {
        this.nodes = nodes;
        this.ticker = ticker;
    }

    /**
     * Registers a waiter for {@code channel} and, if it is the first local waiter of that channel,
     * subscribes on every node.
     */
    Waiter join(String channel) {
        Group g;
        Waiter w;
        boolean first;
        lock.lock();
        try {
            g = groups.get(channel);
            first = g == null;
            if (first) {
                g = new Group(channel);
                groups.put(channel, g);
            }
            w = new Waiter(g);
            g.queue.addLast(w);
            w.seenReleases = g.releases;
            w.seenMissed = g.missed;
        } finally {
            lock.unlock();
        }
        if (first) {
            g.subscribe();
        }
        return w;
    }

    /** Wakes every waiter (close). */
    void close() {
        lock.lock();
        try {
            closed = true;
            for (Group g : groups.values()) {
                for (Waiter w : g.queue) {
                    w.wake.signal();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Number of names with local waiters (for tests). */
    int groupCount() {
        lock.lock();
        try {
            return groups.size();
        } finally {
            lock.unlock();
        }
    }

    /** The waiters of one lock name and its subscriptions, one per node. */
    final class Group implements Subscriber.Listener {
        private final String channel;
        private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
        private long releases; // release messages from any node
        private long missed; // events that may have hidden a release
        private Waiter woken; // the waiter trying because of a release, or null
        // subscriptions: written once by the thread that created the group, under this monitor
        private Subscriber[] subscribers;
        private Subscription[] channels;
        private boolean unsubscribed;

        Group(String channel) {
            this.channel = channel;
        }

        synchronized void subscribe() {
            if (unsubscribed) {
                return;
            }
            subscribers = new Subscriber[nodes.size()];
            channels = new Subscription[nodes.size()];
            for (Node n : nodes) {
                Subscriber s = n.subscriber();
                if (s != null) {
                    subscribers[n.index()] = s;
                    channels[n.index()] = s.register(channel, this);
                }
            }
        }

        synchronized void unsubscribe() {
            unsubscribed = true;
            if (subscribers == null) {
                return;
            }
            for (int i = 0; i < subscribers.length; i++) {
                if (subscribers[i] != null) {
                    subscribers[i].unregister(channels[i], this);
                }
            }
            subscribers = null;
            channels = null;
        }

        /** Number of nodes whose subscription is confirmed and connected. */
        synchronized int confirmedCount() {
            if (subscribers == null) {
                return 0;
            }
            int c = 0;
            for (int i = 0; i < subscribers.length; i++) {
                if (subscribers[i] != null && subscribers[i].isConfirmed(channels[i])) {
                    c++;
                }
            }
            return c;
        }

        /**
         * Waits (bounded by {@code deadlineNanos}) until {@code minimum} nodes confirmed the
         * subscription; polls, since confirmations arrive on several subscribers.
         */
        boolean awaitConfirmed(int minimum, long deadlineNanos) throws InterruptedException {
            while (confirmedCount() < minimum) {
                if (Deadlines.passed(ticker, deadlineNanos) || isClosed()) {
                    return false;
                }
                lock.lockInterruptibly();
                try {
                    // woken by maybeMissed (each confirmation) or after a short poll interval
                    confirmations.awaitNanos(Math.min(Deadlines.remaining(ticker, deadlineNanos), 1_000_000L));
                } finally {
                    lock.unlock();
                }
            }
            return true;
        }

        private final Condition confirmations = lock.newCondition();

        @Override
        public void released() {
            lock.lock();
            try {
                releases++;
                if (woken == null) {
                    Waiter head = queue.peekFirst();
                    if (head != null) {
                        woken = head;
                        head.chosen = true;
                        head.wake.signal();
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void maybeMissed() {
            lock.lock();
            try {
                missed++;
                confirmations.signalAll();
                for (Waiter w : queue) {
                    w.wake.signal();
                }
            } finally {
                lock.unlock();
            }
        }
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    /** One waiting contender. Used by one thread. */
    final class Waiter {
        private final Group group;
        private final Condition wake = lock.newCondition();
        private boolean chosen; // a release chose this waiter to try
        private long seenReleases;
        private long seenMissed;
        private boolean left;

        Waiter(Group group) {
            this.group = group;
        }

        Group group() {
            return group;
        }

        /** Call before each try: events up to now are seen by that try. */
        void beginTry() {
            lock.lock();
            try {
                seenReleases = group.releases;
                seenMissed = group.missed;
            } finally {
                lock.unlock();
            }
        }

        /**
         * After a failed try: waits until a release chooses this waiter, an event that may have
         * hidden a release, {@code deadlineNanos}, or close. Returns at once if a release arrived
         * after the last try started and no other waiter is trying for it.
         */
        Wake await(long deadlineNanos) throws InterruptedException {
            lock.lockInterruptibly();
            try {
                if (group.woken == this) {
                    group.woken = null; // our try for the last release failed
                }
                while (true) {
                    if (closed) {
                        return Wake.CLOSED;
                    }
                    if (chosen) {
                        chosen = false;
                        return Wake.RELEASE;
                    }
                    if (group.missed != seenMissed) {
                        return Wake.MAYBE_MISSED;
                    }
                    if (group.woken == null && group.releases != seenReleases) {
                        group.woken = this; // a release during our try that nobody tried for
                        return Wake.RELEASE;
                    }
                    long left = Deadlines.remaining(ticker, deadlineNanos);
                    if (left <= 0) {
                        return Wake.TIMEOUT;
                    }
                    wake.awaitNanos(left);
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * Leaves the queue (acquired, or gave up); the last waiter of a name unsubscribes it. A
         * waiter that gives up while chosen hands the wake-up on to the next one.
         */
        void leave(boolean acquired) {
            boolean last;
            lock.lock();
            try {
                if (left) {
                    return;
                }
                left = true;
                group.queue.remove(this);
                if (group.woken == this) {
                    group.woken = null;
                    Waiter next = acquired ? null : group.queue.peekFirst();
                    if (next != null) {
                        group.woken = next;
                        next.chosen = true;
                        next.wake.signal();
                    }
                }
                last = group.queue.isEmpty() && groups.get(group.channel) == group;
                if (last) {
                    groups.remove(group.channel);
                }
            } finally {
                lock.unlock();
            }
            if (last) {
                group.unsubscribe();
            }
        }
    }
}
