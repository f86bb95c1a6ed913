package io.distlock.redis.core;

import io.distlock.Ticker;
import io.distlock.spi.Deadlines;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * The one pub/sub connection of a provider, shared by every waiting thread of every lock name.
 *
 * <p>A daemon thread ({@code distlock-redis-subscriber-N}) runs a Jedis pub/sub loop that is always
 * subscribed to a private control channel, plus one channel per lock name that has waiters,
 * reference-counted: the first waiter of a name subscribes, the last one to leave unsubscribes.
 *
 * <p>A release message adds one wake-up permit to its channel and wakes <em>one</em> waiting thread,
 * which takes the permit and tries to acquire: a release does not send every waiter of this JVM to
 * the server at once (no thundering herd). The woken thread always makes its attempt (the engine
 * retries right after the wait returns); if it loses to another client, that client's release
 * publishes again. Events that may have hidden a release (subscription confirmed, reconnection)
 * advance the channel's epoch and wake all its waiters once.
 *
 * <p>A grant message ends its waiter's wait. It comes on this subscriber's own channel ({@link
 * #grantChannel()}, named by the waiter when it queued; on the lock's channel for queue entries that
 * name no channel). The subscriber thread wakes that thread and then drops its interest itself (the {@code UNSUBSCRIBE} of a channel left without waiters is written by the
 * subscriber thread, after the waiting thread was woken), so the woken thread returns without a
 * write on the connection.
 *
 * <p>All sends on the connection happen under {@link #sendLock}, which is taken while holding
 * {@link #lock}, together with the reference count changes, so the order on the wire matches the
 * order of the state changes; only the grant path releases {@link #lock} before its send is
 * written (the woken waiter needs {@link #lock}, not the connection).
 *
 * <p>lock-redis runs one per provider, lock-redlock one per node of a provider.
 */
public final class Subscriber implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Subscriber.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final long MAX_BACKOFF_MS = 1_000;

    private final UnifiedJedis client;
    private final Ticker ticker;
    private final String controlChannel;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    /** Held for each send on the connection; taken only while holding {@link #lock}. */
    private final ReentrantLock sendLock = new ReentrantLock();

    private final Condition stateChanged = lock.newCondition(); // confirmations, close, backoff
    private final Map<String, Channel> channels = new HashMap<>();
    private final Map<String, Grant> grants = new HashMap<>();
    private PubSub active; // subscribed and confirmed; null while (re)connecting
    private boolean closed;
    /** Number of established connections lost so far, and the ticker reading at the last loss. */
    private volatile long losses;

    private volatile long lastLossNanos;
    /** Run on the subscriber thread after each (re)connection, outside the lock. */
    private volatile Runnable onConnected;
    /** Told of every released owner value a release message names (channel, owner). */
    private volatile java.util.function.BiConsumer<String, String> onReleasedOwner;

    /** Per-channel state; guarded by {@link #lock}. */
    public final class Channel {
        final String name;
        final Condition wake = lock.newCondition();
        int refs;
        long permits;
        long epoch;
        boolean confirmed;
        final List<Listener> listeners = new ArrayList<>(1);
        final List<Grant> grantees = new ArrayList<>(1);

        Channel(String name) {
            this.name = name;
        }

        /** Wakes one sleeper: a thread waiting in {@link #awaitWakeUp} or else the oldest grantee. */
        void wakeOne() {
            if (lock.hasWaiters(wake)) {
                wake.signal();
                return;
            }
            for (Grant g : grantees) {
                if (lock.hasWaiters(g.wake)) {
                    g.wake.signal();
                    return;
                }
            }
        }

        void broadcast() {
            epoch++;
            wake.signalAll();
            for (Grant g : grantees) {
                g.wake.signal();
            }
            for (Listener l : listeners) {
                l.maybeMissed();
            }
        }
    }

    /**
     * A queued waiter's mailbox for the grant message {@code "g <owner> <token> <server µs>"} that a
     * release publishes when it hands the lock to {@code owner}. Fields guarded by {@link #lock}.
     */
    public final class Grant {
        final String owner;
        final Channel channel;
        final Condition wake = lock.newCondition();
        boolean arrived;
        /** The subscriber dropped the waiter's interest when the grant arrived (see {@link #leave}). */
        boolean dropped;

        long token;
        long serverMicros;

        Grant(String owner, Channel channel) {
            this.owner = owner;
            this.channel = channel;
        }

        /** Whether the grant message arrived. */
        public boolean arrived() {
            lock.lock();
            try {
                return arrived;
            } finally {
                lock.unlock();
            }
        }

        /** The fencing token in the grant message (valid once {@link #arrived()}). */
        public long token() {
            lock.lock();
            try {
                return token;
            } finally {
                lock.unlock();
            }
        }

        /** The server's {@code TIME} (µs) when it granted (valid once {@link #arrived()}). */
        public long serverMicros() {
            lock.lock();
            try {
                return serverMicros;
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * Told of a channel's events, on the subscriber thread while it holds the subscriber's lock: a
     * listener must return quickly and must not call back into this subscriber (lock-redlock merges
     * the release messages of all its nodes through one).
     */
    public interface Listener {
        /** A release message arrived on the channel. */
        void released();

        /** An event that may have hidden a release (subscription confirmed, reconnection, close). */
        void maybeMissed();
    }

    public Subscriber(UnifiedJedis client, String prefix, Ticker ticker) {
        this.client = client;
        this.ticker = ticker;
        byte[] id = new byte[8];
        new SecureRandom().nextBytes(id);
        this.controlChannel = prefix + ":subscriber:" + HexFormat.of().formatHex(id);
        this.thread = new Thread(this::run, "distlock-redis-subscriber-" + SEQUENCE.incrementAndGet());
        this.thread.setDaemon(true);
    }

    /**
     * Sets what runs on the subscriber thread each time its connection is (re)established (before
     * the lock channels' subscriptions are confirmed, so before waiters are woken by them). It must
     * not call back into this subscriber; exceptions are logged and ignored. Call before {@link
     * #start()}.
     */
    public void onConnected(Runnable hook) {
        this.onConnected = hook;
    }

    /**
     * Sets what is told, on the subscriber thread while it holds the subscriber's lock (so it must
     * be quick and must not call back), of each owner value that a release message on a subscribed
     * channel names as released ({@code "1 <owner>"}, or the last field of a grant message). A
     * released owner value opens nothing any more, except a stale copy of its key on a replica that
     * is promoted after missing the release. Call before {@link #start()}.
     */
    public void onReleasedOwner(java.util.function.BiConsumer<String, String> hook) {
        this.onReleasedOwner = hook;
    }

    public void start() {
        thread.start();
    }

    /**
     * This subscriber's own channel ({@code <prefix>:subscriber:<random 64 bits>}), subscribed for as
     * long as the connection is up, before any lock channel. A release that hands a lock to one of
     * this provider's waiters publishes the grant here (the waiter named it when it queued), so the
     * grant wakes this provider alone, not every provider waiting for the lock.
     */
    public String grantChannel() {
        return controlChannel;
    }

    /** Registers one waiter's interest in {@code channel}; subscribes if it is the first. */
    public Channel register(String channel) {
        lock.lock();
        try {
            Channel ch = channels.computeIfAbsent(channel, Channel::new);
            ch.refs++;
            if (ch.refs == 1 && active != null) {
                sendLock.lock();
                try {
                    active.subscribe(channel);
                } catch (RuntimeException e) {
                    // the loop notices the broken connection, reconnects and subscribes everything
                    log.debug("distlock.redis.subscribe_failed channel={}", channel, e);
                } finally {
                    sendLock.unlock();
                }
            }
            return ch;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Like {@link #register(String)}, and {@code listener} is told of every event of the channel
     * until {@link #unregister(Channel, Listener)}.
     */
    public Channel register(String channel, Listener listener) {
        lock.lock();
        try {
            Channel ch = register(channel);
            ch.listeners.add(listener);
            return ch;
        } finally {
            lock.unlock();
        }
    }

    /** Removes {@code listener} and one interest of {@code ch}. */
    public void unregister(Channel ch, Listener listener) {
        lock.lock();
        try {
            ch.listeners.remove(listener);
            unregister(ch);
        } finally {
            lock.unlock();
        }
    }

    /** Removes one waiter's interest; unsubscribes when it was the last one. */
    public void unregister(Channel ch) {
        lock.lock();
        try {
            if (ch.refs <= 0) {
                return;
            }
            ch.refs--;
            if (ch.refs == 0) {
                channels.remove(ch.name);
                if (active != null) {
                    sendLock.lock();
                    try {
                        active.unsubscribe(ch.name);
                    } catch (RuntimeException e) {
                        log.debug("distlock.redis.unsubscribe_failed channel={}", ch.name, e);
                    } finally {
                        sendLock.unlock();
                    }
                }
            } else if (ch.permits > 0) {
                // a permit may have been meant for the waiter that left: hand it on
                ch.wakeOne();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Expects a grant for {@code owner} on {@code ch} (a registered channel): a grant message for
     * {@code owner} is kept in the returned mailbox and wakes the thread waiting in {@link
     * #awaitGrant}; it also ends that waiter's interest in {@code ch} (the caller's one
     * registration), which {@link #leave} then leaves alone. Call before the request that may queue
     * {@code owner} is sent.
     */
    public Grant expectGrant(Channel ch, String owner) {
        lock.lock();
        try {
            Grant g = new Grant(owner, ch);
            grants.put(owner, g);
            ch.grantees.add(g);
            return g;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends a waiter's wait: stops expecting {@code g} (a later grant message for its owner is
     * ignored) and removes the interest in {@code ch} (see {@link #unregister(Channel)}), unless the
     * subscriber already dropped both when {@code g}'s grant arrived. Either may be null.
     */
    public void leave(Channel ch, Grant g) {
        lock.lock();
        try {
            if (g != null) {
                if (g.dropped) {
                    return; // the grant's interest was ch's (one per waiter), dropped with it
                }
                grants.remove(g.owner, g);
                g.channel.grantees.remove(g);
                if (g.channel.permits > 0) {
                    g.channel.wakeOne();
                }
            }
            if (ch != null) {
                unregister(ch);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the subscriber dropped {@code g} and its waiter's interest because its grant arrived:
     * a waiter that goes on waiting after that must register again.
     */
    public boolean dropped(Grant g) {
        lock.lock();
        try {
            return g.dropped;
        } finally {
            lock.unlock();
        }
    }

    /**
     * On a grant's arrival (holding {@link #lock}): the waiter's wait is over, so its mailbox and its
     * interest are dropped here. Returns the channel to unsubscribe (the waiter was its last), or
     * null.
     */
    private String drop(Grant g, PubSub reader) {
        grants.remove(g.owner, g);
        Channel ch = g.channel;
        ch.grantees.remove(g);
        g.dropped = true;
        if (ch.refs <= 0) {
            return null;
        }
        ch.refs--;
        if (ch.refs == 0) {
            channels.remove(ch.name);
            return active == reader && !closed ? ch.name : null;
        }
        if (ch.permits > 0) {
            ch.wakeOne();
        }
        return null;
    }

    /**
     * Like {@link #awaitWakeUp}, for a queued waiter: also returns when {@code g}'s grant arrived (a
     * wake-up permit is then left for others).
     */
    public void awaitGrant(Channel ch, Grant g, long seenEpoch, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (!g.arrived && ch.permits == 0 && ch.epoch == seenEpoch && !closed) {
                long left = Deadlines.remaining(ticker, deadlineNanos);
                if (left <= 0) {
                    return;
                }
                g.wake.awaitNanos(left);
            }
            if (!g.arrived && ch.permits > 0) {
                ch.permits--;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The channel's epoch (take it before the attempt whose failure you will wait on). */
    public long epoch(Channel ch) {
        lock.lock();
        try {
            return ch.epoch;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the server confirmed the subscription, the deadline passes, or close. */
    public boolean awaitConfirmed(Channel ch, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (!ch.confirmed && !closed) {
                long left = Deadlines.remaining(ticker, deadlineNanos);
                if (left <= 0) {
                    return false;
                }
                stateChanged.awaitNanos(left);
            }
            return ch.confirmed;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the subscription is confirmed and the connection up. */
    public boolean isConfirmed(Channel ch) {
        lock.lock();
        try {
            return ch.confirmed && active != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until a wake-up permit is available on {@code ch} (and takes it), the channel's epoch
     * moves past {@code seenEpoch}, the deadline passes, or close.
     */
    public void awaitWakeUp(Channel ch, long seenEpoch, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (ch.permits == 0 && ch.epoch == seenEpoch && !closed) {
                long left = Deadlines.remaining(ticker, deadlineNanos);
                if (left <= 0) {
                    return;
                }
                ch.wake.awaitNanos(left);
            }
            if (ch.permits > 0) {
                ch.permits--;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Number of established connections lost so far (a master killed, a connection reset); a
     * failed attempt to reconnect does not count.
     */
    public long losses() {
        return losses;
    }

    /** Ticker reading at which the last established connection was found lost (see {@link #losses()}). */
    public long lastLossNanos() {
        return lastLossNanos;
    }

    /** Number of channels with waiters (for tests). */
    public int channelCount() {
        lock.lock();
        try {
            return channels.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (active != null) {
                sendLock.lock();
                try {
                    active.unsubscribe();
                } catch (RuntimeException e) {
                    log.debug("distlock.redis.subscriber_close_unsubscribe_failed", e);
                } finally {
                    sendLock.unlock();
                }
            }
            stateChanged.signalAll();
            channels.values().forEach(Channel::broadcast);
        } finally {
            lock.unlock();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("distlock.redis.subscriber_still_running thread={}", thread.getName());
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

    private void run() {
        long backoff = 10;
        while (!isClosed()) {
            PubSub ps = new PubSub();
            try {
                client.subscribe(ps, controlChannel); // blocks until every channel is unsubscribed
                backoff = 10;
            } catch (RuntimeException e) {
                log.debug("distlock.redis.subscriber_disconnected thread={}", thread.getName(), e);
            } finally {
                lock.lock();
                try {
                    if (active == ps) {
                        // an established connection broke (not a failed reconnection attempt)
                        lastLossNanos = ticker.read();
                        losses++;
                    }
                    active = null;
                    for (Channel ch : channels.values()) {
                        ch.confirmed = false;
                        ch.broadcast(); // messages may have been missed: every waiter retries once
                    }
                } finally {
                    lock.unlock();
                }
            }
            lock.lock();
            try {
                if (closed) {
                    return;
                }
                stateChanged.await(backoff, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
        }
    }

    private final class PubSub extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            if (connected(channel)) {
                Runnable hook = onConnected;
                if (hook != null) {
                    try {
                        hook.run();
                    } catch (RuntimeException e) {
                        log.debug("distlock.redis.subscriber_on_connected_failed", e);
                    }
                }
                return;
            }
            lock.lock();
            try {
                Channel ch = channels.get(channel);
                if (ch != null) {
                    ch.confirmed = true;
                    stateChanged.signalAll();
                    // a release may have happened before the subscription took effect: retry once
                    ch.broadcast();
                }
            } finally {
                lock.unlock();
            }
        }

        private void releasedOwner(String channel, String owner) {
            java.util.function.BiConsumer<String, String> hook = onReleasedOwner;
            if (hook != null) {
                try {
                    hook.accept(channel, owner);
                } catch (RuntimeException e) {
                    log.debug("distlock.redis.released_owner_hook_failed channel={}", channel, e);
                }
            }
        }

        /** Handles the control channel's confirmation; true if the connection is now established. */
        private boolean connected(String channel) {
            if (!channel.equals(controlChannel)) {
                return false;
            }
            lock.lock();
            try {
                if (closed) {
                    unsubscribe();
                    return false;
                }
                active = this;
                List<String> pending = new ArrayList<>(channels.keySet());
                if (!pending.isEmpty()) {
                    sendLock.lock();
                    try {
                        subscribe(pending.toArray(new String[0]));
                    } finally {
                        sendLock.unlock();
                    }
                }
                return true;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void onMessage(String channel, String message) {
            String unsubscribe = null;
            lock.lock();
            try {
                boolean own = channel.equals(controlChannel);
                Channel ch = own ? null : channels.get(channel);
                if ((ch != null || own) && message.startsWith("g ")) {
                    // "g <owner> <token> <server µs> <released owner>": the lock was handed to
                    // <owner>; it is held now, so nobody else is woken. On our own channel: a grant
                    // to one of our waiters, whichever lock it waits for (owner values are unique)
                    String[] parts = message.split(" ", 5);
                    Grant g = parts.length >= 4 ? grants.get(parts[1]) : null;
                    if (parts.length == 5 && (!own || g != null)) {
                        releasedOwner(own ? g.channel.name : channel, parts[4]);
                    }
                    if (g != null && (own || g.channel == ch)) {
                        try {
                            g.token = Long.parseLong(parts[2]);
                            g.serverMicros = Long.parseLong(parts[3]);
                            g.arrived = true;
                            g.wake.signal();
                            unsubscribe = drop(g, this);
                            if (unsubscribe != null) {
                                // taken before the lock is released: no other send can come first
                                sendLock.lock();
                            }
                        } catch (NumberFormatException e) {
                            log.debug("distlock.redis.bad_grant_message channel={}", channel);
                        }
                    }
                    return;
                }
                if (own) {
                    return; // only grants are published on our own channel
                }
                if (message.startsWith("1 ")) {
                    releasedOwner(channel, message.substring(2));
                }
                if (ch != null) {
                    ch.permits++;
                    ch.wakeOne();
                    for (Listener l : ch.listeners) {
                        l.released();
                    }
                }
            } finally {
                lock.unlock(); // wakes the granted waiter now, before the write below
                if (unsubscribe != null) {
                    try {
                        unsubscribe(unsubscribe);
                    } catch (RuntimeException e) {
                        log.debug("distlock.redis.unsubscribe_failed channel={}", unsubscribe, e);
                    } finally {
                        sendLock.unlock();
                    }
                }
            }
        }
    }
}
