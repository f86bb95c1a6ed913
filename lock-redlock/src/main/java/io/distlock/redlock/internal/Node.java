package io.distlock.redlock.internal;

import io.distlock.Credentials;
import io.distlock.Ticker;
import io.distlock.redis.core.JedisConfigs;
import io.distlock.redis.core.RedisConnectionOptions;
import io.distlock.redis.core.RedisErrors;
import io.distlock.redis.core.ScriptRunner;
import io.distlock.redis.core.Scripts;
import io.distlock.redis.core.Subscriber;
import io.distlock.redlock.RedlockLockOptions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One independent master: its own connection pool and its own small set of I/O threads (a {@link
 * Lane}, plus one for releases), so a slow or dead node never holds up requests to the others
 * (latency isolation).
 */
final class Node implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Node.class);
    private static final int STALE_RETRIES = 2;
    /** How long a node that failed a request or a leader probe is passed over as probe leader. */
    private static final long SUSPECT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final int index;
    private final String address;
    private final UnifiedJedis client;
    /** Requests that find every I/O thread busy wait in a queue of at most this many. */
    private static final int QUEUE_CAPACITY = 1024;
    /** An I/O thread without work for this long stops (a new one starts on demand). */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Lane io;
    private final Lane releases;
    /** Direct connections ({@code null} with TLS): idle ones, the one given back last first. */
    private final ConcurrentLinkedDeque<DirectConnection> idleDirect;

    private final AtomicInteger directOpen = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean directOpening =
            new java.util.concurrent.atomic.AtomicBoolean();
    /** Every open direct connection (closed by {@link #close}, also those a round is using). */
    private final Set<DirectConnection> allDirect = ConcurrentHashMap.newKeySet();

    private final int maxDirect;
    private final HostAndPort hostAndPort;
    private final JedisClientConfig clientConfig;
    private volatile long directRetryAt;
    /** See {@link #replied}. */
    private volatile long usualReplyNanos;
    /** Requests written by a round's own thread, and requests run by the I/O threads (tests read them). */
    private final LongAdder directSends = new LongAdder();

    private final LongAdder ioSends = new LongAdder();
    private final LongAdder handOffs = new LongAdder();
    private volatile boolean warm;
    /** Whether the last request failed (for one WARN per outage, naming the node). */
    private final AtomicBoolean failing = new AtomicBoolean();

    private volatile long suspectUntil;
    private volatile boolean suspect;
    private final String keyPrefix;
    private final Ticker ticker;
    private Subscriber subscriber; // started on first use; guarded by this
    private boolean closed; // guarded by this
    private volatile boolean closing;

    Node(int index, NodeAddress node, RedlockLockOptions options, Ticker ticker, String threadPrefix) {
        HostAndPort hostAndPort = node.hostAndPort();
        this.index = index;
        this.address = node.address();
        this.keyPrefix = options.keyPrefix();
        this.ticker = ticker;
        RedisConnectionOptions connection = options.connection();
        // poolSize for the I/O executor, poolSize for the release lane, 1 for the subscriber
        ConnectionPoolConfig pool = JedisConfigs.pool(2 * options.poolSize() + 1, connection);
        Credentials credentials = node.ownCredentials() != null
                ? node.ownCredentials()
                : connection.credentials().orElse(null);
        this.hostAndPort = hostAndPort;
        this.clientConfig = JedisConfigs.dataNode(connection, credentials);
        this.maxDirect = options.poolSize();
        // TLS: the socket's byte count says nothing about decrypted data, so rounds use the I/O threads
        this.idleDirect = options.tls().isEnabled() ? null : new ConcurrentLinkedDeque<>();
        this.client = RedisClient.builder()
                .hostAndPort(hostAndPort)
                .clientConfig(clientConfig)
                .poolConfig(pool)
                .build();
        String prefix = threadPrefix + "-node" + index + "-";
        this.io = new Lane(prefix, options.poolSize(), QUEUE_CAPACITY, IDLE_NANOS);
        this.releases = new Lane(prefix + "release-", options.poolSize(), QUEUE_CAPACITY, IDLE_NANOS);
    }

    int index() {
        return index;
    }

    /**
     * Records how long after its round started a reply (or failure) of this node arrived, read
     * directly or by the I/O thread: a moving average over about the last 8 replies. Updated without a lock by the
     * threads that read replies; a lost update only delays the average a little.
     */
    void replied(long nanos) {
        long u = usualReplyNanos;
        usualReplyNanos = u + ((Math.max(0, nanos) - u) >> 3);
    }

    /** About how long this node's replies usually take (0 before the first one). */
    long usualReplyNanos() {
        return usualReplyNanos;
    }

    /** {@code host:port}. */
    String address() {
        return address;
    }

    /** Whether this node has answered at least once (its connection and scripts are ready). */
    boolean isWarm() {
        return warm;
    }

    /**
     * This node's pub/sub subscriber (lock-redis's, one connection and one thread {@code
     * distlock-redis-subscriber-N}), started on first use; null once the node is closed.
     */
    synchronized Subscriber subscriber() {
        if (closed) {
            return null;
        }
        if (subscriber == null) {
            subscriber = new Subscriber(client, keyPrefix, ticker);
            subscriber.start();
        }
        return subscriber;
    }

    UnifiedJedis client() {
        return client;
    }

    /**
     * Runs {@code script} on this node's I/O executor (EVALSHA, EVAL on NOSCRIPT). A pooled
     * connection that died while idle (node restart, proxy reset) is retried on another connection,
     * at most {@link #STALE_RETRIES} times; every Redlock script is idempotent for its owner value,
     * so a retry after a lost reply does no harm. Timeouts are not retried.
     */
    <T> CompletableFuture<T> run(Scripts.Script script, List<String> keys, List<String> args) {
        return run(script, keys, args, null);
    }

    /**
     * Like {@link #run(Scripts.Script, List, List)}, but {@code send} is asked right before the
     * request goes on the wire: if it says no (its round is over), the request is dropped with
     * {@link StaleRequestException}, since sending it would only delay the next rounds behind a node
     * that was stalled.
     */
    <T> CompletableFuture<T> run(Scripts.Script script, List<String> keys, List<String> args, BooleanSupplier send) {
        return submit(io, c -> {
            if (send != null && !send.getAsBoolean()) {
                throw new StaleRequestException();
            }
            ioSends.increment();
            return call(c, script, keys, args);
        });
    }

    /**
     * Runs a release on this node's release lane (its own threads and connections), so it never
     * waits behind acquisition rounds or clean-ups queued on the I/O executor. {@code send} is told
     * on the lane thread right before the request is sent.
     */
    <T> CompletableFuture<T> runRelease(
            Scripts.Script script, List<String> keys, List<String> args, BooleanSupplier send) {
        return submit(releases, c -> {
            send.getAsBoolean(); // a release is always sent: this only records when
            ioSends.increment();
            return call(c, script, keys, args);
        });
    }

    private <T> T call(UnifiedJedis c, Scripts.Script script, List<String> keys, List<String> args) {
        for (int attempt = 0; ; attempt++) {
            try {
                @SuppressWarnings("unchecked")
                T reply = (T) ScriptRunner.run(c, script, keys, args);
                warm = true;
                suspect = false;
                succeeded();
                return reply;
            } catch (JedisConnectionException e) {
                if (attempt >= STALE_RETRIES || !RedisErrors.isStaleConnection(e)) {
                    markSuspect();
                    failed(e);
                    throw e;
                }
            } catch (RuntimeException e) {
                failed(e);
                throw e;
            }
        }
    }

    /**
     * Whether every I/O thread of this node is busy (requests queue behind earlier ones, as behind
     * a stalled node), as opposed to a free thread that has not been scheduled yet.
     */
    boolean backlogged() {
        return io.allBusy();
    }

    /** Passes this node over as probe leader for a while (it failed or did not answer in time). */
    void markSuspect() {
        suspectUntil = ticker.read() + SUSPECT_NANOS;
        suspect = true;
    }

    /** Whether this node answered before and has not failed recently: fit to lead a probe. */
    boolean fitToLead() {
        return warm && (!suspect || ticker.read() - suspectUntil > 0);
    }

    /** Logs once (INFO) that this node answers again after a failure. */
    private void succeeded() {
        if (failing.get() && failing.compareAndSet(true, false)) {
            log.info("distlock.redlock.node_recovered node={}", address);
        }
    }

    /**
     * Logs once per outage (WARN) that this node failed, naming it by {@code host:port} and saying
     * why (e.g. the server's {@code WRONGPASS}); never the credentials.
     */
    private void failed(Throwable e) {
        if (closing) {
            return; // requests cut short by close() are not the node's failure
        }
        if (failing.compareAndSet(false, true)) {
            log.warn("distlock.redlock.node_failed node={} error={}", address, Round.reason(e));
        }
    }

    /**
     * Sends {@code script} on an idle direct connection from the calling thread, completing {@code
     * f} once {@link DirectRequest#poll} or {@link DirectRequest#handOff} read the reply. Returns
     * null (nothing sent) if this node has no idle direct connection (TLS, none opened yet, all in
     * use, closing) or the write failed: the caller then sends through the I/O threads. Opens
     * another direct connection in the background when none is idle.
     */
    <T> DirectRequest<T> sendDirect(
            Scripts.Script script, List<String> keys, List<String> args, BooleanSupplier send, CompletableFuture<T> f) {
        return sendDirect(script, keys, args, send, f, io);
    }

    /** Like {@link #sendDirect}, for a release: handed off to the release lane. */
    <T> DirectRequest<T> sendReleaseDirect(
            Scripts.Script script, List<String> keys, List<String> args, BooleanSupplier send, CompletableFuture<T> f) {
        return sendDirect(script, keys, args, send, f, releases);
    }

    private <T> DirectRequest<T> sendDirect(
            Scripts.Script script,
            List<String> keys,
            List<String> args,
            BooleanSupplier send,
            CompletableFuture<T> f,
            Lane lane) {
        if (idleDirect == null || closing) {
            return null;
        }
        DirectConnection c = idleDirect.pollFirst();
        if (c == null) {
            openDirectInBackground();
            return null;
        }
        if (!send.getAsBoolean()) {
            giveBack(c);
            f.completeExceptionally(new StaleRequestException());
            return new DirectRequest<>(null, script, keys, args, f, lane);
        }
        try {
            c.send(script, keys, args);
            directSends.increment();
        } catch (RuntimeException e) {
            dropDirect(c); // died while idle (node restart): the I/O threads send it on a new connection
            return null;
        }
        return new DirectRequest<>(c, script, keys, args, f, lane);
    }

    private void openDirectInBackground() {
        if (directOpen.get() >= maxDirect
                || ticker.read() - directRetryAt < 0
                || !directOpening.compareAndSet(false, true)) {
            return;
        }
        try {
            io.execute(() -> {
                try {
                    if (closing || directOpen.get() >= maxDirect) {
                        return;
                    }
                    DirectConnection c = DirectConnection.open(hostAndPort, clientConfig);
                    directOpen.incrementAndGet();
                    allDirect.add(c);
                    giveBack(c);
                } catch (RuntimeException e) {
                    // the rounds go through the I/O threads meanwhile; they report the node's errors
                    directRetryAt = ticker.read() + SUSPECT_NANOS;
                    log.debug("distlock.redlock.direct_connect_failed node={} error={}", address, Round.reason(e));
                } finally {
                    directOpening.set(false);
                }
            });
        } catch (RejectedExecutionException e) {
            directOpening.set(false);
        }
    }

    private void giveBack(DirectConnection c) {
        idleDirect.offerFirst(c);
        if (closing && idleDirect.remove(c)) {
            dropDirect(c);
        }
    }

    private void dropDirect(DirectConnection c) {
        if (allDirect.remove(c)) {
            directOpen.decrementAndGet();
        }
        c.close();
    }

    /**
     * A request written by the calling thread on a direct connection, its reply not read yet. The
     * round's thread {@link #poll}s it; if the round's outcome needs the reply no sooner, it is
     * {@link #handOff handed} to the node's I/O threads, which wait for it (the round's thread may
     * still poll it at its deadline). Exactly one of them reads the reply and gives the connection
     * back.
     */
    final class DirectRequest<T> {
        private final DirectConnection connection;
        private final Scripts.Script script;
        private final List<String> keys;
        private final List<String> args;
        private final CompletableFuture<T> future;
        private final Lane lane;
        /**
         * Set by whoever reads the reply: the round's thread polling, or, once handed off, the I/O
         * thread; the round's thread may still take a handed-off reply that has arrived when the
         * I/O thread has not run yet (a loaded machine), so an answer in time is not lost.
         */
        private final AtomicBoolean claimed = new AtomicBoolean();

        DirectRequest(
                DirectConnection connection,
                Scripts.Script script,
                List<String> keys,
                List<String> args,
                CompletableFuture<T> future,
                Lane lane) {
            this.lane = lane;
            this.connection = connection;
            this.script = script;
            this.keys = keys;
            this.args = args;
            this.future = future;
        }

        /** Reads the reply if it has arrived (without blocking otherwise); whether it did. */
        boolean poll() {
            if (connection == null || claimed.get()) {
                return true; // not sent (its round was over), or read by an I/O thread
            }
            if (!connection.ready()) {
                return false;
            }
            if (claimed.compareAndSet(false, true)) {
                readReply();
            }
            return true;
        }

        /** Lets one of the node's I/O threads wait for the reply. */
        void handOff() {
            if (connection == null) {
                return;
            }
            handOffs.increment();
            try {
                lane.execute(() -> {
                    if (claimed.compareAndSet(false, true)) {
                        readReply();
                    }
                });
            } catch (RejectedExecutionException e) {
                if (claimed.compareAndSet(false, true)) {
                    dropDirect(connection);
                    future.completeExceptionally(e);
                }
            }
        }

        private void readReply() {
            Object reply;
            try {
                reply = connection.read();
            } catch (JedisDataException e) {
                giveBack(connection); // a script error leaves the connection fine
                if (RedisErrors.configurationProblem(e).isPresent()) {
                    failed(e); // NOPERM: the same request on another connection gets the same answer
                    future.completeExceptionally(e);
                    return;
                }
                // e.g. NOSCRIPT after a restart: the I/O threads' path runs it again with its EVAL
                // fallback (every script is idempotent)
                retryOnIoThreads();
                return;
            } catch (RuntimeException e) {
                dropDirect(connection);
                if (!closing && RedisErrors.isStaleConnection(e)) {
                    retryOnIoThreads(); // died while idle (restart, reset): on a new connection
                    return;
                }
                markSuspect();
                failed(e);
                future.completeExceptionally(e);
                return;
            }
            if (connection.usable()) {
                giveBack(connection);
            } else {
                dropDirect(connection);
            }
            warm = true;
            suspect = false;
            succeeded();
            @SuppressWarnings("unchecked")
            T t = (T) reply;
            future.complete(t);
        }

        private void retryOnIoThreads() {
            Node.this.<T>submit(lane, c -> call(c, script, keys, args)).whenComplete((v, e) -> {
                if (e != null) {
                    future.completeExceptionally(e.getCause() != null ? e.getCause() : e);
                } else {
                    future.complete(v);
                }
            });
        }
    }

    /** Requests written by a round's own thread on a direct connection so far. */
    long directSends() {
        return directSends.sum();
    }

    /** Requests sent by this node's I/O threads (no direct connection idle, TLS, retries) so far. */
    long ioSends() {
        return ioSends.sum();
    }

    /** Direct requests whose reply an I/O thread read (the round's thread stopped polling) so far. */
    long handOffs() {
        return handOffs.sum();
    }

    /** Open direct connections (idle or in use). */
    int directConnections() {
        return allDirect.size();
    }

    /** Loads the scripts in the background and opens a connection, so the first round is fast. */
    void warmUp(List<Scripts.Script> scripts) {
        submit(io, c -> {
                    for (Scripts.Script s : scripts) {
                        c.scriptLoad(s.text());
                    }
                    warm = true;
                    succeeded();
                    return null;
                })
                .whenComplete((r, e) -> {
                    if (e != null) {
                        failed(e.getCause() != null ? e.getCause() : e);
                    } else {
                        openDirectInBackground();
                    }
                });
    }

    /** Runs {@code call} on {@code executor}. A full or stopped executor fails the future. */
    private <T> CompletableFuture<T> submit(Lane executor, Function<UnifiedJedis, T> call) {
        try {
            return CompletableFuture.supplyAsync(() -> call.apply(client), executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void close() {
        Subscriber sub;
        closing = true;
        synchronized (this) {
            closed = true;
            sub = subscriber;
        }
        if (sub != null) {
            sub.close();
        }
        io.shutdownNow();
        releases.shutdownNow();
        if (idleDirect != null) {
            idleDirect.clear();
            for (DirectConnection c : List.copyOf(allDirect)) {
                dropDirect(c); // also unblocks an I/O thread reading a reply on it
            }
        }
        try {
            client.close();
        } finally {
            try {
                io.awaitTermination(2, TimeUnit.SECONDS);
                releases.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A request dropped because its round was over before it could be sent. */
    static final class StaleRequestException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StaleRequestException() {
            super("not sent: the node was still busy with earlier requests when the round ended", null, false, false);
        }
    }

    @Override
    public String toString() {
        return address;
    }
}
