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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * One independent master: its own connection pool and its own small set of I/O threads (a {@link
 * Lane}, plus one for releases), so a slow or dead node never holds up requests to the others
 * (latency isolation); its direct connections ({@link DirectPath}, none with TLS); whether it is
 * warm, suspect as a probe leader or failing; and its pub/sub subscriber.
 */
final class Node implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Node.class);
    private static final int STALE_RETRIES = 2;
    /** How long a node that failed a request or a leader probe is passed over as probe leader. */
    private static final long SUSPECT_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Requests that find every I/O thread busy wait in a queue of at most this many. */
    private static final int QUEUE_CAPACITY = 1024;
    /** An I/O thread without work for this long stops (a new one starts on demand). */
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int index;
    private final String address;
    private final UnifiedJedis client;
    private final Lane io;
    private final Lane releases;
    /** The direct connections; null with TLS. */
    private final DirectPath direct;
    /** See {@link #replied}. */
    private volatile long usualReplyNanos;
    /** Requests run by the I/O threads (tests read them). */
    private final LongAdder ioSends = new LongAdder();
    /** Pipelines of batch renewals sent, retries included (tests and benchmarks read them). */
    private final LongAdder pipelines = new LongAdder();

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
    private final long releaseGraceNanos;

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
        JedisClientConfig clientConfig = JedisConfigs.dataNode(connection, credentials);
        // TLS: the socket's byte count says nothing about decrypted data, so rounds use the I/O threads
        this.direct = options.tls().isEnabled()
                ? null
                : new DirectPath(this, hostAndPort, clientConfig, ticker, options.poolSize(), SUSPECT_NANOS);
        this.client = RedisClient.builder()
                .hostAndPort(hostAndPort)
                .clientConfig(clientConfig)
                .poolConfig(pool)
                .build();
        String prefix = threadPrefix + "-node" + index + "-";
        this.io = new Lane(prefix, options.poolSize(), QUEUE_CAPACITY, IDLE_NANOS);
        this.releases = new Lane(prefix + "release-", options.poolSize(), QUEUE_CAPACITY, IDLE_NANOS);
        this.releaseGraceNanos = 2 * options.nodeTimeout().toNanos();
    }

    int index() {
        return index;
    }

    /**
     * Records how long after its round started a reply (or failure) of this node arrived, read
     * directly or by the I/O thread: a moving average over about the last 8 replies. Updated without
     * a lock by the threads that read replies; a lost update only delays the average a little.
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

    /** Whether {@link #close()} has begun (requests cut short now are not the node's failure). */
    boolean isClosing() {
        return closing;
    }

    /** The I/O threads' lane. */
    Lane ioLane() {
        return io;
    }

    /**
     * This node's pub/sub subscriber (one connection and one thread {@code
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
     * so a retry after a lost reply does no harm. Timeouts and configuration errors are not retried.
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

    /**
     * Runs {@code calls} of {@code script} in one pipeline on this node's I/O executor (one round
     * trip, two if the node lost its script cache; {@link ScriptRunner#runAll}), retried on another
     * connection as {@link #run} retries; the future fails if the connection does or the server
     * answers any call with an error. {@code send} as in {@link #run(Scripts.Script, List, List,
     * BooleanSupplier)}.
     */
    CompletableFuture<List<ScriptRunner.Outcome>> runAll(
            Scripts.Script script, List<ScriptRunner.Call> calls, BooleanSupplier send) {
        return submit(io, c -> {
            if (!send.getAsBoolean()) {
                throw new StaleRequestException();
            }
            ioSends.increment();
            return retried(() -> {
                pipelines.increment();
                List<ScriptRunner.Outcome> outcomes = ScriptRunner.runAll(c::pipelined, script, calls, 0, 0);
                for (ScriptRunner.Outcome o : outcomes) {
                    if (o.failure() != null) {
                        throw o.failure();
                    }
                }
                return outcomes;
            });
        });
    }

    /** Runs {@code script} on {@code lane}, as {@link #run} does (a direct request's retry). */
    <T> CompletableFuture<T> call(Lane lane, Scripts.Script script, List<String> keys, List<String> args) {
        return submit(lane, c -> call(c, script, keys, args));
    }

    @SuppressWarnings("unchecked")
    private <T> T call(UnifiedJedis c, Scripts.Script script, List<String> keys, List<String> args) {
        return retried(() -> (T) ScriptRunner.run(c, script, keys, args));
    }

    /**
     * {@code request}'s reply; a pooled connection that died while idle is retried on another, at
     * most {@link #STALE_RETRIES} times. Records that the node answered, or failed.
     */
    private <T> T retried(Supplier<T> request) {
        for (int attempt = 0; ; attempt++) {
            try {
                T reply = request.get();
                answered();
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

    /** The node answered a request: it is warm and not suspect; logged once if it failed before. */
    void answered() {
        warm = true;
        suspect = false;
        succeeded();
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
    void failed(Throwable e) {
        if (closing) {
            return; // requests cut short by close() are not the node's failure
        }
        if (failing.compareAndSet(false, true)) {
            log.warn("distlock.redlock.node_failed node={} error={}", address, RoundReport.reason(e));
        }
    }

    /**
     * Sends {@code script} from the calling thread on an idle direct connection ({@link
     * DirectPath#send}); null if there is none (or TLS): the caller then sends through the I/O
     * threads.
     */
    <T> DirectRequest<T> sendDirect(
            Scripts.Script script, List<String> keys, List<String> args, BooleanSupplier send, CompletableFuture<T> f) {
        return direct == null ? null : direct.send(script, keys, args, send, f, io);
    }

    /** Like {@link #sendDirect}, for a release: handed off to the release lane. */
    <T> DirectRequest<T> sendReleaseDirect(
            Scripts.Script script, List<String> keys, List<String> args, BooleanSupplier send, CompletableFuture<T> f) {
        return direct == null ? null : direct.send(script, keys, args, send, f, releases);
    }

    /** Requests written by a round's own thread on a direct connection so far. */
    long directSends() {
        return direct == null ? 0 : direct.sends();
    }

    /** Requests sent by this node's I/O threads (no direct connection idle, TLS, retries) so far. */
    long ioSends() {
        return ioSends.sum();
    }

    /** Pipelines of batch renewals ({@link #runAll}) sent so far. */
    long pipelines() {
        return pipelines.sum();
    }

    /** Direct requests whose reply an I/O thread read (the round's thread stopped polling) so far. */
    long handOffs() {
        return direct == null ? 0 : direct.handOffs();
    }

    /** Open direct connections (idle or in use). */
    int directConnections() {
        return direct == null ? 0 : direct.connections();
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
                    } else if (direct != null) {
                        direct.openInBackground();
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

    /**
     * Stops taking releases; those already handed over still run (see {@link #closeBy}). Lets a
     * provider start every node's drain before it waits for any.
     */
    void stopTakingReleases() {
        releases.shutdown();
    }

    @Override
    public void close() {
        closeBy(System.nanoTime() + releaseGraceNanos);
    }

    /** The grace {@link #close()} gives releases already handed over: two node timeouts. */
    long releaseGraceNanos() {
        return releaseGraceNanos;
    }

    /**
     * Closes the node. Releases already handed over (queued, sent, or awaiting a slow node's reply)
     * run until {@code drainDeadline} ({@link System#nanoTime()}): dropping one would leave the key
     * on this node until it expires. A node that has not answered by then is left to expire it.
     */
    void closeBy(long drainDeadline) {
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
        releases.shutdown();
        try {
            releases.awaitTermination(Math.max(0, drainDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        releases.shutdownNow();
        if (direct != null) {
            direct.closeAll(); // also unblocks an I/O thread reading a reply on a direct connection
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
