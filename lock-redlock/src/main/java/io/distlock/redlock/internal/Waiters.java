package io.distlock.redlock.internal;

import io.distlock.Ticker;
import io.distlock.redis.core.Owners;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Scripts;
import io.distlock.redis.core.Subscriber;
import io.distlock.redis.core.Subscription;
import io.distlock.spi.Deadlines;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiting threads of one provider, grouped by lock name; for each name, the provider's place in
 * the lock's wake-up queue on the nodes and its wake channel.
 *
 * <p>A name with local waiters is one <em>member</em> of the lock's queue on each node ({@code
 * REDLOCK_ACQUIRE_QUEUED} queues it where a waiter's try was refused) and has its own wake channel
 * ({@code <lock channel>:<provider id>}), subscribed once per node through that node's {@link
 * Subscriber} (one pub/sub connection per node per provider, never one per waiter). A release wakes
 * only the first live member of the queue on each node it deleted from ({@code REDLOCK_RELEASE}), so
 * one provider hears of it, not every provider with a waiter; the queue decides nothing else (an
 * acquisition is still a majority of grants with its fencing round). Every node's message lands in
 * the same group: the first message of a release wakes <em>one</em> local waiter, the first
 * registered one that is not trying already; messages that arrive while that waiter is trying wake
 * nobody else. If its try fails, a message that arrived after the try started sends it straight
 * back; otherwise it waits again. A waiter that gives up hands the wake-up on to the next local one.
 *
 * <p>A member that gets the lock stays first in line until the holder's release takes it off the
 * queue (or sends it to the back, if other local waiters share it), so a woken try that loses to a
 * release still in progress on other nodes keeps its place and is woken again by them. When the
 * last local waiter gives up, the member leaves the queue on every node ({@code REDLOCK_LEAVE},
 * which wakes the next member if the lock is free there: a release may have woken the leaving one),
 * and a provider's wake channel of a lock stays subscribed for a while after its last waiter left,
 * so that the next waiter of the same lock finds it confirmed (a busy lock costs no {@code
 * SUBSCRIBE} per hand-off).
 *
 * <p>Locking: the subscribers call {@link Group} under their own lock, which then takes this class's
 * lock; so this class never calls a subscriber while holding its lock.
 */
final class Waiters {
    private static final Logger log = LoggerFactory.getLogger(Waiters.class);

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
    private final RedisKeys keys;
    /** Random; names this provider's wake channels and queue members. */
    private final String providerId = Owners.newOwner();

    /**
     * How long a name's wake channel stays subscribed after its last local waiter left, for the
     * next waiter of the name to find it confirmed (no subscription round trip per hand-off on a
     * busy lock): 10 s.
     */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(10);

    /**
     * How long a waiter chosen by a release's first wake message waits for the messages of a
     * majority of nodes before it tries anyway: 1 ms. A release deletes on every node at about the
     * same time; a try sent on the first message alone often reaches nodes the release has not
     * reached yet, and needs another round.
     */
    private static final long BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final int majority;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Group> groups = new HashMap<>();
    /** Closed groups whose subscriptions linger, by name, with the ticker reading they end at. */
    private final Map<String, Lingering> lingering = new HashMap<>();

    private long groupSequence; // guarded by lock
    private boolean closed;

    private record Lingering(Group group, long until) {}

    Waiters(List<Node> nodes, Ticker ticker, RedisKeys keys) {
        this.nodes = nodes;
        this.ticker = ticker;
        this.keys = keys;
        this.majority = nodes.size() / 2 + 1;
    }

    /**
     * Registers a waiter for lock {@code name} and, if it is the first local waiter of that name,
     * subscribes the name's wake channel on every node.
     */
    Waiter join(String name) {
        Group g;
        Waiter w;
        boolean first;
        Lingering previous = null;
        List<Group> ended;
        lock.lock();
        try {
            g = groups.get(name);
            first = g == null;
            if (first) {
                g = new Group(name, providerId + ":" + ++groupSequence);
                groups.put(name, g);
                previous = lingering.remove(name);
            }
            w = new Waiter(g);
            g.queue.addLast(w);
            w.seenReleases = g.releases;
            w.seenMissed = g.missed;
            ended = endLingering();
        } finally {
            lock.unlock();
        }
        if (first) {
            g.subscribe(); // on a lingering channel: confirmed already, no request
        }
        if (previous != null) {
            previous.group().unsubscribe();
        }
        ended.forEach(Group::unsubscribe);
        return w;
    }

    /** Takes the lingering subscriptions whose time is up off the map (call holding the lock). */
    private List<Group> endLingering() {
        if (lingering.isEmpty()) {
            return List.of();
        }
        long now = ticker.read();
        List<Group> ended = new ArrayList<>(0);
        for (Iterator<Lingering> it = lingering.values().iterator(); it.hasNext(); ) {
            Lingering l = it.next();
            if (now - l.until() >= 0) {
                ended.add(l.group());
                it.remove();
            }
        }
        return ended;
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

    /** The waiters of one lock name: its queue member and its wake channel, one subscription per node. */
    final class Group implements Subscriber.Listener {
        private final String name;
        private final String member;
        private final String channel;
        private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
        private long releases; // wake messages from any node
        /** {@link #releases} before the first message of the release that chose {@link #woken}. */
        private long burstStart;
        /** When that first message arrived (ticker reading). */
        private long burstAt;

        private long missed; // events that may have hidden a release
        private Waiter woken; // the waiter trying because of a wake message, or null
        /** Whether a try queued the member (on some nodes); guarded by the waiters' lock. */
        private boolean queued;
        /** Whether the last local waiter left; guarded by the waiters' lock. */
        private boolean closed;
        // subscriptions: written once by the thread that created the group, under this monitor
        private Subscriber[] subscribers;
        private Subscription[] channels;
        private boolean unsubscribed;

        Group(String name, String member) {
            this.name = name;
            this.member = member;
            this.channel = keys.channel(name) + ":" + providerId;
        }

        /** This group's member of the lock's queue on the nodes. */
        String member() {
            return member;
        }

        /** The channel on which a node wakes this group. */
        String channel() {
            return channel;
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

        /**
         * Whether local waiters still share the member: a holder that acquired through it then sends
         * the member to the back of the line on release instead of taking it off the queue.
         */
        boolean isOpen() {
            lock.lock();
            try {
                return !closed;
            } finally {
                lock.unlock();
            }
        }

        /** Ends this group's subscriptions (idempotent). */
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

        /**
         * The last local waiter left. If it {@code acquired} the lock, the member stays queued until
         * the holder's release takes it off. If it gave up, the member leaves the queue on every node
         * (if a try ever queued it). The wake channel lingers (see {@link #LINGER_NANOS}); a wake
         * message that reaches it now finds no waiter, which is why a member that gives up wakes
         * the next one where the lock is free.
         */
        private void close(boolean acquired) {
            boolean leave;
            Lingering previous;
            List<Group> ended;
            lock.lock();
            try {
                leave = queued && !acquired;
                previous = lingering.put(name, new Lingering(this, Deadlines.after(ticker.read(), LINGER_NANOS)));
                ended = endLingering();
            } finally {
                lock.unlock();
            }
            if (previous != null) {
                previous.group().unsubscribe();
            }
            ended.forEach(Group::unsubscribe);
            if (!leave) {
                return;
            }
            List<String> leaveKeys = List.of(keys.lockKey(name), keys.queueKey(name), keys.waitersKey(name));
            for (Node n : nodes) {
                n.<Object>run(Scripts.REDLOCK_LEAVE, leaveKeys, List.of(member)).whenComplete((r, e) -> {
                    if (e != null) {
                        // the entry runs out with its deadline; a release passes over it once
                        // nobody listens here
                        log.debug("distlock.redlock.leave_failed lock={} node={}", name, n.address(), e);
                    }
                });
            }
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
                        burstStart = releases - 1;
                        burstAt = ticker.read();
                        head.wake.signal();
                    }
                } else if (woken.chosen) {
                    woken.wake.signal(); // one more node's message of the release it waits for
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
        private boolean chosen; // a wake message chose this waiter to try
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

        /** Call before a try that queues the group's member ({@code REDLOCK_ACQUIRE_QUEUED}). */
        void queueing() {
            lock.lock();
            try {
                group.queued = true;
            } finally {
                lock.unlock();
            }
        }

        /**
         * After a failed try: waits until a wake message chooses this waiter, an event that may have
         * hidden a release, {@code deadlineNanos}, or close. Returns at once if a wake message
         * arrived after the last try started and no other waiter is trying for it.
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
                    long left = Deadlines.remaining(ticker, deadlineNanos);
                    if (chosen) {
                        // the nodes' messages of one release arrive close together: wait for a
                        // majority of them (the lock is free on a majority then), or a moment
                        long more = BURST_NANOS - (ticker.read() - group.burstAt);
                        if (group.releases - group.burstStart >= majority || more <= 0 || left <= 0) {
                            chosen = false;
                            return Wake.RELEASE;
                        }
                        wake.awaitNanos(Math.min(more, left));
                        continue;
                    }
                    if (group.missed != seenMissed) {
                        return Wake.MAYBE_MISSED;
                    }
                    if (group.woken == null && group.releases != seenReleases) {
                        group.woken = this; // a release during our try that nobody tried for
                        return Wake.RELEASE;
                    }
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
         * Leaves the group (acquired, or gave up); the last waiter of a name closes it ({@link
         * Group#close}). A waiter that gives up while chosen hands the wake-up on to the next one.
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
                last = group.queue.isEmpty() && groups.get(group.name) == group;
                if (last) {
                    groups.remove(group.name);
                    group.closed = true;
                }
            } finally {
                lock.unlock();
            }
            if (last) {
                group.close(acquired);
            }
        }
    }
}
