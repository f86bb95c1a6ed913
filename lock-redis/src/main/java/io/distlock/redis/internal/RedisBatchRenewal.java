package io.distlock.redis.internal;

import io.distlock.Ticker;
import io.distlock.redis.core.PackedRenewals;
import io.distlock.redis.core.RedisErrors;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.ScriptRunner;
import io.distlock.redis.core.Scripts;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.HeldLock;
import io.distlock.spi.RenewalOutcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Renews the locks of one renewal tick with one round trip per server. On a single server
 * (standalone or behind Sentinel): {@link Scripts#RENEW_PACKED}, up to {@link
 * PackedRenewals#MAX_LOCKS} locks per call packed into one argument, so that the server reads the
 * request in one or two socket reads whatever the number of locks. On Redis Cluster a script's keys
 * must be declared and share a hash slot: {@link Scripts#RENEW_MANY} over up to {@value
 * #CLUSTER_CHUNK} keys of one slot per call, and the pipeline sends each call to its slot's node
 * (one round trip per node). Either way each lock is compare-and-{@code PEXPIRE}d with its own owner
 * value and lease time, and all calls go in one pipeline.
 *
 * <p>A call the server answers with an error is retried lock by lock through the ordinary renewal
 * ({@link HeldLock#renew()}), which follows Cluster redirections ({@code MOVED}, {@code ASK}) and
 * retries {@code TRYAGAIN}; the calls of a Cluster node that could not be reached fail (their locks
 * are tried again at the next tick, after the client has read the slot map again); a failure of the
 * whole pipeline is retried on a new connection if the pooled one had died while idle, otherwise it
 * is every lock's failure.
 *
 * <p>Each lock's TTL-setting requests are sent one at a time ({@link RedisHeldLock#ttlLock}), so the
 * batch holds every lock's while its requests are in flight: an extension or a delayed release
 * never overtakes a renewal of the same lock.
 */
final class RedisBatchRenewal implements BatchRenewal {
    private static final Logger log = LoggerFactory.getLogger(RedisBatchRenewal.class);
    /** Most keys per {@code RENEW_MANY} call on Cluster, where a tick's keys spread over many slots. */
    static final int CLUSTER_CHUNK = 1_000;
    /** Threads that read a Cluster pipeline's replies, one node each at a time. */
    private static final int NODE_READERS = 3;
    /** Most retries of a pipeline whose pooled connection died while idle. */
    private static final int STALE_RETRIES = 2;

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final ScriptCalls calls;
    private final RedisKeys keys;
    private final Ticker ticker;
    private final AtomicLong pipelines = new AtomicLong();
    /** Pipelines of a Cluster client (calls grouped by hash slot, nodes read in parallel); null otherwise. */
    private final Supplier<AbstractPipeline> clusterPipelines;
    /** Reads the nodes' replies of a Cluster pipeline in parallel; null without Cluster. */
    private final ExecutorService nodeReaders;

    RedisBatchRenewal(ScriptCalls calls, RedisKeys keys, Ticker ticker) {
        this.calls = calls;
        this.keys = keys;
        this.ticker = ticker;
        UnifiedJedis client = calls.client();
        if (!(client instanceof RedisClusterClient) && !(client instanceof JedisCluster)) {
            this.nodeReaders = null;
            this.clusterPipelines = null;
        } else {
            int n = SEQUENCE.incrementAndGet();
            AtomicInteger threads = new AtomicInteger();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(
                    NODE_READERS, NODE_READERS, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                        Thread t = new Thread(r, "distlock-redis-renewal-" + n + "-" + threads.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
            pool.allowCoreThreadTimeOut(true); // idle between renewal ticks
            this.nodeReaders = pool;
            this.clusterPipelines = client instanceof RedisClusterClient c
                    ? () -> c.pipelined(pool)
                    : () -> ((JedisCluster) client).pipelined(pool);
        }
    }

    /** Pipelines sent so far (see {@code RedisInternals#renewalPipelines}). */
    long pipelines() {
        return pipelines.get();
    }

    /** Stops the Cluster pipeline's reader threads. */
    void close() {
        if (nodeReaders != null) {
            nodeReaders.shutdownNow();
        }
    }

    @Override
    public List<RenewalOutcome> renewAll(List<HeldLock> due) {
        List<RedisHeldLock> locks = new ArrayList<>(due.size());
        for (HeldLock h : due) {
            locks.add((RedisHeldLock) h);
        }
        RenewalOutcome[] outcomes = new RenewalOutcome[locks.size()];
        int locked = 0;
        try {
            List<List<Integer>> chunks = new ArrayList<>();
            for (; locked < locks.size(); locked++) {
                locks.get(locked).ttlLock.lock();
            }
            Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
            for (int i = 0; i < locks.size(); i++) {
                RedisHeldLock l = locks.get(i);
                if (l.ended()) {
                    outcomes[i] = RenewalOutcome.GONE; // released or left to expire meanwhile
                    continue;
                }
                int group = clusterPipelines != null ? JedisClusterCRC16.getSlot(l.lockKey()) : 0;
                List<Integer> g = groups.computeIfAbsent(group, k -> new ArrayList<>());
                if (g.size() == (clusterPipelines != null ? CLUSTER_CHUNK : PackedRenewals.MAX_LOCKS)) {
                    chunks.add(g);
                    g = new ArrayList<>();
                    groups.put(group, g);
                }
                g.add(i);
            }
            chunks.addAll(groups.values());
            if (!chunks.isEmpty()) {
                send(locks, chunks, outcomes);
            }
        } finally {
            for (int i = 0; i < locked; i++) {
                locks.get(i).ttlLock.unlock();
            }
        }
        return Arrays.asList(outcomes);
    }

    /** Sends the chunks in one pipeline and fills in their locks' outcomes. Holding every ttlLock. */
    private void send(List<RedisHeldLock> locks, List<List<Integer>> chunks, RenewalOutcome[] outcomes) {
        List<ScriptRunner.Call> batch = new ArrayList<>(chunks.size());
        for (List<Integer> chunk : chunks) {
            batch.add(clusterPipelines != null ? renewMany(locks, chunk) : packed(locks, chunk));
        }
        long sentAt = ticker.read();
        List<ScriptRunner.Outcome> replies;
        try {
            replies = runAll(batch);
        } catch (JedisException e) {
            RenewalOutcome failed = RenewalOutcome.failed(
                    ScriptCalls.failure(e, locks.get(chunks.get(0).get(0)).lockName()));
            for (List<Integer> chunk : chunks) {
                chunk.forEach(i -> outcomes[i] = failed);
            }
            return;
        }
        boolean refreshed = false;
        for (int c = 0; c < chunks.size(); c++) {
            List<Integer> chunk = chunks.get(c);
            ScriptRunner.Outcome reply = replies.get(c);
            if (reply.failure() != null) {
                if (!refreshed && clusterPipelines != null) {
                    // MOVED, or a node gone: the next tick's pipeline goes to the right node
                    refreshed = calls.refreshTopology(reply.failure());
                }
                if (reply.failure() instanceof JedisDataException error) {
                    renewOneByOne(locks, chunk, error, outcomes);
                } else {
                    // its node could not be reached: unknown, the next tick tries again
                    RenewalOutcome failed = RenewalOutcome.failed(ScriptCalls.failure(
                            reply.failure(), locks.get(chunk.get(0)).lockName()));
                    chunk.forEach(i -> outcomes[i] = failed);
                }
                continue;
            }
            List<?> results = clusterPipelines != null ? (List<?>) reply.value() : null;
            String answers = results == null ? PackedRenewals.answers(reply.value(), chunk.size()) : null;
            for (int k = 0; k < chunk.size(); k++) {
                int i = chunk.get(k);
                RedisHeldLock l = locks.get(i);
                boolean renewed = results != null ? ((Long) results.get(k)) == 1L : answers.charAt(k) == '1';
                if (!renewed) {
                    outcomes[i] = RenewalOutcome.GONE;
                    continue;
                }
                try {
                    l.checkAcks(reply.acks(), "renewal");
                    l.renewed(sentAt);
                    outcomes[i] = RenewalOutcome.RENEWED;
                } catch (RuntimeException e) {
                    outcomes[i] = RenewalOutcome.failed(e);
                }
            }
        }
    }

    /** A {@code RENEW_MANY} call (Cluster: the keys of one slot) for the locks of {@code chunk}. */
    private static ScriptRunner.Call renewMany(List<RedisHeldLock> locks, List<Integer> chunk) {
        List<String> keys = new ArrayList<>(chunk.size());
        List<String> args = new ArrayList<>(chunk.size() * 2);
        for (int i : chunk) {
            RedisHeldLock l = locks.get(i);
            keys.add(l.lockKey());
            args.add(l.owner());
            args.add(Long.toString(l.leaseTime().toMillis()));
        }
        return new ScriptRunner.Call(keys, args);
    }

    /** A {@code RENEW_PACKED} call (one server) for the locks of {@code chunk}. */
    private ScriptRunner.Call packed(List<RedisHeldLock> locks, List<Integer> chunk) {
        PackedRenewals call = new PackedRenewals(keys, chunk.size());
        for (int i : chunk) {
            RedisHeldLock l = locks.get(i);
            call.add(
                    PackedRenewals.tagOf(keys, l.lockKey()),
                    l.owner(),
                    l.leaseTime().toMillis());
        }
        return call.call();
    }

    /**
     * The pipeline, retried on a new connection if the pooled one had died while idle, or (Cluster)
     * after reading the slot map again if a node could not be reached.
     */
    private List<ScriptRunner.Outcome> runAll(List<ScriptRunner.Call> batch) {
        for (int attempt = 0; ; attempt++) {
            try {
                pipelines.incrementAndGet();
                return ScriptRunner.runAll(
                        clusterPipelines != null ? clusterPipelines : calls.client()::pipelined,
                        clusterPipelines != null ? Scripts.RENEW_MANY : Scripts.RENEW_PACKED,
                        batch,
                        calls.requiredReplicas(),
                        calls.replicaAckTimeoutMillis());
            } catch (JedisException e) {
                boolean refreshed = clusterPipelines != null && calls.refreshTopology(e);
                if (attempt >= STALE_RETRIES || !(refreshed || RedisErrors.isStaleConnection(e))) {
                    throw e;
                }
                log.debug("distlock.redis.batch_renewal_retry_on_new_connection attempt={}", attempt + 1);
            }
        }
    }

    /** A chunk the server answered with an error: its locks renewed one by one (redirections followed). */
    private static void renewOneByOne(
            List<RedisHeldLock> locks, List<Integer> chunk, JedisDataException error, RenewalOutcome[] outcomes) {
        log.debug("distlock.redis.batch_renewal_chunk_failed keys={} error={}", chunk.size(), error.getMessage());
        for (int i : chunk) {
            try {
                outcomes[i] = RenewalOutcome.of(locks.get(i).renew());
            } catch (RuntimeException e) {
                outcomes[i] = RenewalOutcome.failed(e);
            }
        }
    }
}
