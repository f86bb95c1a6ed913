package io.distlock.redis.internal;

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
 * Every message on a channel increments that channel's generation and wakes its waiters. When the
 * connection drops, the thread reconnects with a backoff, resubscribes and bumps every generation
 * (messages may have been missed meanwhile, so every waiter retries once).
 *
 * <p>All sends on the connection happen under this object's monitor, together with the reference
 * count changes, so the order on the wire matches the order of the state changes.
 */
final class Subscriber implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Subscriber.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final long MAX_BACKOFF_MS = 1_000;

    private final UnifiedJedis client;
    private final Ticker ticker;
    private final String controlChannel;
    private final Thread thread;
    private final Map<String, Channel> channels = new HashMap<>();
    private PubSub active; // subscribed and confirmed; null while (re)connecting
    private boolean closed;

    /** Per-channel state; guarded by the subscriber's monitor. */
    static final class Channel {
        final String name;
        int refs;
        long generation;
        boolean confirmed;

        Channel(String name) {
            this.name = name;
        }
    }

    Subscriber(UnifiedJedis client, String prefix, Ticker ticker) {
        this.client = client;
        this.ticker = ticker;
        byte[] id = new byte[8];
        new SecureRandom().nextBytes(id);
        this.controlChannel = prefix + ":subscriber:" + HexFormat.of().formatHex(id);
        this.thread = new Thread(this::run, "distlock-redis-subscriber-" + SEQUENCE.incrementAndGet());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Registers one waiter's interest in {@code channel}; subscribes if it is the first. */
    synchronized Channel register(String channel) {
        Channel ch = channels.computeIfAbsent(channel, Channel::new);
        ch.refs++;
        if (ch.refs == 1 && active != null) {
            try {
                active.subscribe(channel);
            } catch (RuntimeException e) {
                // the loop notices the broken connection, reconnects and subscribes everything
                log.debug("distlock.redis.subscribe_failed channel={}", channel, e);
            }
        }
        return ch;
    }

    /** Removes one waiter's interest; unsubscribes when it was the last one. */
    synchronized void unregister(Channel ch) {
        if (ch.refs <= 0) {
            return;
        }
        ch.refs--;
        if (ch.refs == 0) {
            channels.remove(ch.name);
            if (active != null) {
                try {
                    active.unsubscribe(ch.name);
                } catch (RuntimeException e) {
                    log.debug("distlock.redis.unsubscribe_failed channel={}", ch.name, e);
                }
            }
        }
    }

    /** The channel's current generation (take it before the attempt whose failure you will wait on). */
    synchronized long generation(Channel ch) {
        return ch.generation;
    }

    /** Waits until the server confirmed the subscription, the deadline passes, or close. */
    synchronized boolean awaitConfirmed(Channel ch, long deadlineNanos) throws InterruptedException {
        while (!ch.confirmed && !closed) {
            long left = Deadlines.remaining(ticker, deadlineNanos);
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return ch.confirmed;
    }

    /** Whether the subscription is confirmed and the connection up. */
    synchronized boolean isConfirmed(Channel ch) {
        return ch.confirmed && active != null;
    }

    /**
     * Waits until a message arrived on {@code ch} after generation {@code seen}, the deadline passes,
     * or close.
     */
    synchronized void awaitMessage(Channel ch, long seen, long deadlineNanos) throws InterruptedException {
        while (ch.generation == seen && !closed) {
            long left = Deadlines.remaining(ticker, deadlineNanos);
            if (left <= 0) {
                return;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Number of channels with waiters (for tests). */
    synchronized int channelCount() {
        return channels.size();
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (active != null) {
                try {
                    active.unsubscribe();
                } catch (RuntimeException e) {
                    log.debug("distlock.redis.subscriber_close_unsubscribe_failed", e);
                }
            }
            notifyAll();
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

    private void run() {
        long backoff = 10;
        while (true) {
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            PubSub ps = new PubSub();
            try {
                client.subscribe(ps, controlChannel); // blocks until every channel is unsubscribed
                backoff = 10;
            } catch (RuntimeException e) {
                log.debug("distlock.redis.subscriber_disconnected thread={}", thread.getName(), e);
            } finally {
                synchronized (this) {
                    active = null;
                    for (Channel ch : channels.values()) {
                        ch.confirmed = false;
                        ch.generation++; // messages may have been missed: every waiter retries
                    }
                    notifyAll();
                }
            }
            synchronized (this) {
                if (closed) {
                    return;
                }
                try {
                    TimeUnit.MILLISECONDS.timedWait(this, backoff);
                } catch (InterruptedException e) {
                    return;
                }
            }
            backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
        }
    }

    private final class PubSub extends JedisPubSub {
        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            synchronized (Subscriber.this) {
                if (channel.equals(controlChannel)) {
                    if (closed) {
                        unsubscribe();
                        return;
                    }
                    active = this;
                    List<String> pending = new ArrayList<>(channels.keySet());
                    if (!pending.isEmpty()) {
                        subscribe(pending.toArray(new String[0]));
                    }
                    return;
                }
                Channel ch = channels.get(channel);
                if (ch != null) {
                    ch.confirmed = true;
                    // a release may have happened before the subscription took effect: retry once
                    ch.generation++;
                    Subscriber.this.notifyAll();
                }
            }
        }

        @Override
        public void onMessage(String channel, String message) {
            synchronized (Subscriber.this) {
                Channel ch = channels.get(channel);
                if (ch != null) {
                    ch.generation++;
                    Subscriber.this.notifyAll();
                }
            }
        }
    }
}
