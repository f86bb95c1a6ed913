package io.distlock.redis.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.UnifiedJedis;

/**
 * The pub/sub connection of a {@link Subscriber} and what arrives on it: a daemon thread ({@code
 * distlock-redis-subscriber-N}) subscribes to the subscriber's own channel, which keeps the
 * connection open for as long as it lives, and reconnects with a backoff (10 ms doubling to 1 s)
 * when the connection breaks. Its events change the subscriber's state under the subscriber's
 * lock: the connection coming up (every lock channel with waiters is subscribed again), a lock
 * channel confirmed, release and grant messages, the connection lost (every waiter retries once).
 */
final class SubscriberConnection {
    private static final Logger log = LoggerFactory.getLogger(SubscriberConnection.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final long MAX_BACKOFF_MS = 1_000;

    private final UnifiedJedis client;
    private final Subscriber s;
    private final Thread thread;

    SubscriberConnection(UnifiedJedis client, Subscriber subscriber) {
        this.client = client;
        this.s = subscriber;
        this.thread = new Thread(this::run, "distlock-redis-subscriber-" + SEQUENCE.incrementAndGet());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Waits for the thread to end (after the subscriber closed), at most 5 s; logs if it did not. */
    void join() {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("distlock.redis.subscriber_still_running thread={}", thread.getName());
        }
    }

    private void run() {
        long backoff = 10;
        while (!isClosed()) {
            PubSub ps = new PubSub();
            try {
                client.subscribe(ps, s.controlChannel); // blocks until every channel is unsubscribed
                backoff = 10;
            } catch (RuntimeException e) {
                log.debug("distlock.redis.subscriber_disconnected thread={}", thread.getName(), e);
            } finally {
                connectionEnded(ps);
            }
            s.lock.lock();
            try {
                if (s.closed) {
                    return;
                }
                s.stateChanged.await(backoff, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            } finally {
                s.lock.unlock();
            }
            backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
        }
    }

    private boolean isClosed() {
        s.lock.lock();
        try {
            return s.closed;
        } finally {
            s.lock.unlock();
        }
    }

    /** {@code reader}'s connection ended (broken, or unsubscribed on close). */
    private void connectionEnded(JedisPubSub reader) {
        s.lock.lock();
        try {
            if (s.active == reader) {
                // an established connection broke (not a failed reconnection attempt)
                s.lastLossNanos = s.ticker.read();
                s.losses++;
            }
            s.active = null;
            for (Subscription ch : s.channels.values()) {
                ch.confirmed = false;
                ch.broadcast(); // messages may have been missed: every waiter retries once
            }
        } finally {
            s.lock.unlock();
        }
    }

    private final class PubSub extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            if (channel.equals(s.controlChannel)) {
                if (connected()) {
                    Runnable hook = s.onConnected;
                    if (hook != null) {
                        try {
                            hook.run();
                        } catch (RuntimeException e) {
                            log.debug("distlock.redis.subscriber_on_connected_failed", e);
                        }
                    }
                }
                return;
            }
            s.lock.lock();
            try {
                Subscription ch = s.channels.get(channel);
                if (ch != null) {
                    ch.confirmed = true;
                    s.stateChanged.signalAll();
                    // a release may have happened before the subscription took effect: retry once
                    ch.broadcast();
                }
            } finally {
                s.lock.unlock();
            }
        }

        /**
         * The control channel's subscription is confirmed: the connection is up, and every lock
         * channel with waiters is subscribed on it. False if the subscriber closed meanwhile (this
         * connection then unsubscribes, which ends it).
         */
        private boolean connected() {
            s.lock.lock();
            try {
                if (s.closed) {
                    unsubscribe();
                    return false;
                }
                s.active = this;
                List<String> pending = new ArrayList<>(s.channels.keySet());
                if (!pending.isEmpty()) {
                    s.sendLock.lock();
                    try {
                        subscribe(pending.toArray(new String[0]));
                    } finally {
                        s.sendLock.unlock();
                    }
                }
                return true;
            } finally {
                s.lock.unlock();
            }
        }

        /**
         * A grant ({@code "g <owner> <token> <server µs> <released owner>"}) wakes its waiter and
         * drops its interest; a release ({@code "1 <owner>"}) adds a wake-up permit and wakes one
         * waiter; a delayed release ({@code "e <owner> <delay ms>"}) wakes every waiter once.
         */
        @Override
        public void onMessage(String channel, String message) {
            String unsubscribe = null;
            s.lock.lock();
            try {
                boolean own = channel.equals(s.controlChannel);
                Subscription ch = own ? null : s.channels.get(channel);
                if ((ch != null || own) && message.startsWith("g ")) {
                    // "g <owner> <token> <server µs> <released owner>": the lock was handed to
                    // <owner>; it is held now, so nobody else is woken. On our own channel: a grant
                    // to one of our waiters, whichever lock it waits for (owner values are unique)
                    String[] parts = message.split(" ", 5);
                    Grant g = parts.length >= 4 ? s.grants.get(parts[1]) : null;
                    if (parts.length == 5 && (!own || g != null)) {
                        releasedOwner(own ? g.channel.name : channel, parts[4]);
                    }
                    if (g != null && (own || g.channel == ch)) {
                        try {
                            g.token = Long.parseLong(parts[2]);
                            g.serverMicros = Long.parseLong(parts[3]);
                            g.arrived = true;
                            g.wake.signal();
                            unsubscribe = drop(g);
                            if (unsubscribe != null) {
                                // taken before the lock is released: no other send can come first
                                s.sendLock.lock();
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
                if (message.startsWith("e ")) {
                    // "e <owner> <delay ms>": a delayed release; the lock now expires after the
                    // delay, which may be sooner than the TTL the waiters last saw: every waiter
                    // retries once, learns the new TTL and sleeps until then
                    if (ch != null) {
                        ch.broadcast();
                    }
                    return;
                }
                if (message.startsWith("1 ")) {
                    releasedOwner(channel, message.substring(2));
                }
                if (ch != null) {
                    ch.permits++;
                    ch.wakeOne();
                    for (Subscriber.Listener l : ch.listeners) {
                        l.released();
                    }
                }
            } finally {
                s.lock.unlock(); // wakes the granted waiter now, before the write below
                if (unsubscribe != null) {
                    try {
                        unsubscribe(unsubscribe);
                    } catch (RuntimeException e) {
                        log.debug("distlock.redis.unsubscribe_failed channel={}", unsubscribe, e);
                    } finally {
                        s.sendLock.unlock();
                    }
                }
            }
        }

        /**
         * On a grant's arrival (holding the subscriber's lock): the waiter's wait is over, so its
         * mailbox and its interest are dropped here. Returns the channel to unsubscribe (the waiter
         * was its last), or null.
         */
        private String drop(Grant g) {
            s.grants.remove(g.owner, g);
            Subscription ch = g.channel;
            ch.grantees.remove(g);
            g.dropped = true;
            if (ch.refs <= 0) {
                return null;
            }
            ch.refs--;
            if (ch.refs == 0) {
                s.channels.remove(ch.name);
                return s.active == this && !s.closed ? ch.name : null;
            }
            if (ch.permits > 0) {
                ch.wakeOne();
            }
            return null;
        }

        private void releasedOwner(String channel, String owner) {
            BiConsumer<String, String> hook = s.onReleasedOwner;
            if (hook != null) {
                try {
                    hook.accept(channel, owner);
                } catch (RuntimeException e) {
                    log.debug("distlock.redis.released_owner_hook_failed channel={}", channel, e);
                }
            }
        }
    }
}
