package io.distlock.redis.core;

import io.distlock.Ticker;
import io.distlock.spi.Deadlines;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * The one pub/sub connection of a provider, shared by every waiting thread of every lock name.
 *
 * <p>Its connection ({@link SubscriberConnection}, thread {@code distlock-redis-subscriber-N}) is
 * always subscribed to a private control channel, plus one channel per lock name that has waiters
 * ({@link Subscription}), reference-counted: the first waiter of a name subscribes, the last one to
 * leave unsubscribes. This class is what waiters do; what arrives on the connection, and what it
 * does to the same state, is {@link SubscriberConnection}'s.
 *
 * <p>A release message adds one wake-up permit to its channel and wakes <em>one</em> waiting thread,
 * which takes the permit and tries to acquire: a release does not send every waiter of this JVM to
 * the server at once (no thundering herd). The woken thread always makes its attempt (the engine
 * retries right after the wait returns); if it loses to another client, that client's release
 * publishes again. Events that may have hidden a release (subscription confirmed, reconnection)
 * advance the channel's epoch and wake all its waiters once; so does a delayed release (the holder
 * set a TTL shorter than the one the waiters may have seen), after which each waiter's retry learns
 * the new TTL.
 *
 * <p>A grant message ends its waiter's wait ({@link Grant}). It comes on this subscriber's own
 * channel ({@link #grantChannel()}, named by the waiter when it queued; on the lock's channel for
 * queue entries that name no channel). The subscriber thread wakes that thread and then drops its
 * interest itself (the {@code UNSUBSCRIBE} of a channel left without waiters is written by the
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

    final Ticker ticker;
    final String controlChannel;
    private final SubscriberConnection connection;
    final ReentrantLock lock = new ReentrantLock();
    /** Held for each send on the connection; taken only while holding {@link #lock}. */
    final ReentrantLock sendLock = new ReentrantLock();

    final Condition stateChanged = lock.newCondition(); // confirmations, close, backoff
    final Map<String, Subscription> channels = new HashMap<>();
    final Map<String, Grant> grants = new HashMap<>();
    JedisPubSub active; // subscribed and confirmed; null while (re)connecting; guarded by lock
    boolean closed; // guarded by lock
    /** Number of established connections lost so far, and the ticker reading at the last loss. */
    volatile long losses;

    volatile long lastLossNanos;
    /** Run on the subscriber thread after each (re)connection, outside the lock. */
    volatile Runnable onConnected;
    /** Told of every released owner value a release message names (channel, owner). */
    volatile BiConsumer<String, String> onReleasedOwner;

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

    /** A subscriber on a connection of {@code client}; its control channel is under {@code prefix}. */
    public Subscriber(UnifiedJedis client, String prefix, Ticker ticker) {
        this.ticker = ticker;
        byte[] id = new byte[8];
        new SecureRandom().nextBytes(id);
        this.controlChannel = prefix + ":subscriber:" + HexFormat.of().formatHex(id);
        this.connection = new SubscriberConnection(client, this);
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
    public void onReleasedOwner(BiConsumer<String, String> hook) {
        this.onReleasedOwner = hook;
    }

    /** Starts the subscriber thread. */
    public void start() {
        connection.start();
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
    public Subscription register(String channel) {
        lock.lock();
        try {
            Subscription ch = channels.computeIfAbsent(channel, name -> new Subscription(name, lock));
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
     * until {@link #unregister(Subscription, Listener)}.
     */
    public Subscription register(String channel, Listener listener) {
        lock.lock();
        try {
            Subscription ch = register(channel);
            ch.listeners.add(listener);
            return ch;
        } finally {
            lock.unlock();
        }
    }

    /** Removes {@code listener} and one interest of {@code ch}. */
    public void unregister(Subscription ch, Listener listener) {
        lock.lock();
        try {
            ch.listeners.remove(listener);
            unregister(ch);
        } finally {
            lock.unlock();
        }
    }

    /** Removes one waiter's interest; unsubscribes when it was the last one. */
    public void unregister(Subscription ch) {
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
    public Grant expectGrant(Subscription ch, String owner) {
        lock.lock();
        try {
            Grant g = new Grant(owner, ch, lock);
            grants.put(owner, g);
            ch.grantees.add(g);
            return g;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends a waiter's wait: stops expecting {@code g} (a later grant message for its owner is
     * ignored) and removes the interest in {@code ch} (see {@link #unregister(Subscription)}), unless
     * the subscriber already dropped both when {@code g}'s grant arrived. Either may be null.
     */
    public void leave(Subscription ch, Grant g) {
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
     * Like {@link #awaitWakeUp}, for a queued waiter: also returns when {@code g}'s grant arrived (a
     * wake-up permit is then left for others).
     */
    public void awaitGrant(Subscription ch, Grant g, long seenEpoch, long deadlineNanos) throws InterruptedException {
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
    public long epoch(Subscription ch) {
        lock.lock();
        try {
            return ch.epoch;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until the server confirmed the subscription, the deadline passes, or close. */
    public boolean awaitConfirmed(Subscription ch, long deadlineNanos) throws InterruptedException {
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
    public boolean isConfirmed(Subscription ch) {
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
    public void awaitWakeUp(Subscription ch, long seenEpoch, long deadlineNanos) throws InterruptedException {
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

    /** Number of channels with waiters. */
    public int channelCount() {
        lock.lock();
        try {
            return channels.size();
        } finally {
            lock.unlock();
        }
    }

    /** Unsubscribes, wakes every waiter and stops the subscriber thread (waiting up to 5 s). */
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
            channels.values().forEach(Subscription::broadcast);
        } finally {
            lock.unlock();
        }
        connection.join();
    }
}
