package io.distlock.redlock.internal;

import io.distlock.Ticker;
import io.distlock.redis.core.Scripts;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;

/**
 * A node's direct connections: plain-TCP connections a round's own thread writes its request to
 * (no I/O thread hop), at most {@code poolSize}, opened in the background on the node's I/O
 * threads, the one given back last used first. Not used with TLS (the socket's byte count says
 * nothing about decrypted data, so a reply cannot be polled).
 */
final class DirectPath {
    private static final Logger log = LoggerFactory.getLogger(DirectPath.class);

    private final Node node;
    private final HostAndPort hostAndPort;
    private final JedisClientConfig clientConfig;
    private final Ticker ticker;
    private final int max;
    /** How long after a failed connection attempt the next one may start. */
    private final long retryNanos;
    /** Idle connections, the one given back last first. */
    private final ConcurrentLinkedDeque<DirectConnection> idle = new ConcurrentLinkedDeque<>();

    private final AtomicInteger open = new AtomicInteger();
    private final AtomicBoolean opening = new AtomicBoolean();
    /** Every open connection (closed by {@link #closeAll}, also those a round is using). */
    private final Set<DirectConnection> all = ConcurrentHashMap.newKeySet();

    private volatile long retryAt;
    /** Requests written by a round's own thread, and those whose reply an I/O thread read (tests read them). */
    private final LongAdder sends = new LongAdder();

    private final LongAdder handOffs = new LongAdder();

    DirectPath(
            Node node,
            HostAndPort hostAndPort,
            JedisClientConfig clientConfig,
            Ticker ticker,
            int max,
            long retryNanos) {
        this.node = node;
        this.hostAndPort = hostAndPort;
        this.clientConfig = clientConfig;
        this.ticker = ticker;
        this.max = max;
        this.retryNanos = retryNanos;
    }

    /**
     * Sends {@code script} on an idle direct connection from the calling thread, completing {@code
     * f} once {@link DirectRequest#poll} or {@link DirectRequest#handOff} read the reply (a hand-off
     * goes to {@code lane}). Returns null (nothing sent) if no connection is idle (none opened yet,
     * all in use, closing) or the write failed: the caller then sends through the I/O threads. Opens
     * another connection in the background when none is idle.
     */
    <T> DirectRequest<T> send(
            Scripts.Script script,
            List<String> keys,
            List<String> args,
            BooleanSupplier send,
            CompletableFuture<T> f,
            Lane lane) {
        if (node.isClosing()) {
            return null;
        }
        DirectConnection c = idle.pollFirst();
        if (c == null) {
            openInBackground();
            return null;
        }
        if (!send.getAsBoolean()) {
            giveBack(c);
            f.completeExceptionally(new Node.StaleRequestException());
            return new DirectRequest<>(node, this, null, script, keys, args, f, lane);
        }
        try {
            c.send(script, keys, args);
            sends.increment();
        } catch (RuntimeException e) {
            drop(c); // died while idle (node restart): the I/O threads send it on a new connection
            return null;
        }
        return new DirectRequest<>(node, this, c, script, keys, args, f, lane);
    }

    /** Opens another connection on the node's I/O threads, unless enough are open or one is opening. */
    void openInBackground() {
        if (open.get() >= max || ticker.read() - retryAt < 0 || !opening.compareAndSet(false, true)) {
            return;
        }
        try {
            node.ioLane().execute(() -> {
                try {
                    if (node.isClosing() || open.get() >= max) {
                        return;
                    }
                    DirectConnection c = DirectConnection.open(hostAndPort, clientConfig);
                    open.incrementAndGet();
                    all.add(c);
                    giveBack(c);
                } catch (RuntimeException e) {
                    // the rounds go through the I/O threads meanwhile; they report the node's errors
                    retryAt = ticker.read() + retryNanos;
                    log.debug(
                            "distlock.redlock.direct_connect_failed node={} error={}",
                            node.address(),
                            RoundReport.reason(e));
                } finally {
                    opening.set(false);
                }
            });
        } catch (RejectedExecutionException e) {
            opening.set(false);
        }
    }

    /** Makes {@code c} idle again (closed at once if the node is closing). */
    void giveBack(DirectConnection c) {
        idle.offerFirst(c);
        if (node.isClosing() && idle.remove(c)) {
            drop(c);
        }
    }

    /** Closes {@code c} and forgets it. */
    void drop(DirectConnection c) {
        if (all.remove(c)) {
            open.decrementAndGet();
        }
        c.close();
    }

    /** Counts a direct request whose reply was handed to an I/O thread. */
    void handedOff() {
        handOffs.increment();
    }

    /** Closes every connection, also one an I/O thread is reading a reply on (which unblocks it). */
    void closeAll() {
        idle.clear();
        for (DirectConnection c : List.copyOf(all)) {
            drop(c);
        }
    }

    /** Requests written by a round's own thread so far. */
    long sends() {
        return sends.sum();
    }

    /** Direct requests whose reply an I/O thread read (the round's thread stopped polling) so far. */
    long handOffs() {
        return handOffs.sum();
    }

    /** Open connections (idle or in use). */
    int connections() {
        return all.size();
    }
}
