package io.distlock.redis.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import io.distlock.redis.core.RedisErrors;
import io.distlock.redis.core.ScriptRunner;
import io.distlock.redis.core.Scripts;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * Sends one script of a lock through the provider's Jedis client and reads its failure: a pooled
 * connection that died while idle is retried on another one, a Redis Cluster {@code TRYAGAIN} (the
 * script's keys are on both sides of a slot being migrated) is retried with a short backoff for up
 * to the request timeout ({@code MOVED} and {@code ASK} are followed by Jedis), a refusal of the
 * configuration (credentials, a permission, the TLS trust) is a {@link LockConfigurationException},
 * anything else a {@link BackendUnavailableException} naming the lock.
 */
final class ScriptCalls {
    private static final Logger log = LoggerFactory.getLogger(ScriptCalls.class);
    private static final String BACKEND = "redis";
    /** Most retries of a request whose pooled connection died while idle. */
    private static final int STALE_RETRIES = 2;
    /** First and longest pause before a request answered {@code TRYAGAIN} is sent again. */
    private static final long TRY_AGAIN_FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private static final long TRY_AGAIN_MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final UnifiedJedis client;
    private final int requiredReplicas;
    private final long replicaAckTimeoutMillis;
    /** How long a request answered {@code TRYAGAIN} is sent again. */
    private final long tryAgainNanos;

    /** The outcome of one script call, with the number of replicas that acknowledged it. */
    record Reply(Object value, long acks) {}

    /**
     * @param requiredReplicas replicas a replicated call waits for ({@code WAIT}); 0 for none
     * @param requestTimeout how long a request answered {@code TRYAGAIN} is sent again
     */
    ScriptCalls(UnifiedJedis client, int requiredReplicas, long replicaAckTimeoutMillis, Duration requestTimeout) {
        this.client = client;
        this.requiredReplicas = requiredReplicas;
        this.replicaAckTimeoutMillis = replicaAckTimeoutMillis;
        this.tryAgainNanos = requestTimeout.toNanos();
    }

    /**
     * Runs {@code script} ({@link ScriptRunner}: EVALSHA, EVAL on NOSCRIPT). With {@code replicate}
     * and {@code requiredReplicas > 0}, pipelines {@code WAIT n timeout} behind it on the same
     * connection.
     *
     * @throws LockConfigurationException if the server refused the configuration
     * @throws BackendUnavailableException for any other failure
     */
    Reply run(Scripts.Script script, String lockName, List<String> keys, List<String> args, boolean replicate) {
        // A pooled connection may have died while idle (server restart, proxy reset): such a failure
        // is retried on another connection, at most STALE_RETRIES times. Every script is idempotent
        // for its owner value, so a retry after a lost reply does no harm. Timeouts are not retried.
        // A TRYAGAIN was not run at all: it is sent again until the slot's keys are on one side.
        int stale = 0;
        long tryAgainSince = 0;
        long pause = TRY_AGAIN_FIRST_PAUSE_NANOS;
        while (true) {
            try {
                return runOnce(script, lockName, keys, args, replicate);
            } catch (BackendUnavailableException e) {
                if (isTryAgain(e.getCause())) {
                    long now = System.nanoTime();
                    if (tryAgainSince == 0) {
                        tryAgainSince = now;
                    } else if (now - tryAgainSince >= tryAgainNanos) {
                        throw e;
                    }
                    log.debug("distlock.redis.try_again lock={}", lockName);
                    LockSupport.parkNanos(pause);
                    pause = Math.min(TRY_AGAIN_MAX_PAUSE_NANOS, pause * 2);
                    continue;
                }
                boolean pipelined = replicate && requiredReplicas > 0;
                boolean moved = pipelined && refreshTopology(e.getCause());
                if (stale++ >= STALE_RETRIES || !(moved || RedisErrors.isStaleConnection(e.getCause()))) {
                    throw e;
                }
                log.debug("distlock.redis.retry_on_new_connection lock={} attempt={}", lockName, stale);
            }
        }
    }

    /**
     * After {@code failure} of a pipeline on Redis Cluster (which, unlike a single request, does not
     * follow redirections or notice a failover by itself): a {@code MOVED}/{@code ASK} or a node that
     * cannot be reached makes the client read the cluster's slot map again. Returns whether it did
     * (the request is then worth sending again).
     */
    boolean refreshTopology(Throwable failure) {
        if (!(failure instanceof JedisRedirectionException) && !(failure instanceof JedisConnectionException)) {
            return false;
        }
        try {
            if (client instanceof RedisClusterClient c) {
                c.refreshClusterTopology();
                return true;
            }
            if (client instanceof JedisCluster c) {
                c.refreshClusterTopology();
                return true;
            }
        } catch (JedisException e) {
            log.debug("distlock.redis.cluster_topology_refresh_failed", e);
        }
        return false;
    }

    /** Redis Cluster's {@code TRYAGAIN}: a multi-key request on a slot whose keys are being moved. */
    static boolean isTryAgain(Throwable failure) {
        return failure instanceof JedisDataException d
                && d.getMessage() != null
                && d.getMessage().startsWith("TRYAGAIN");
    }

    private Reply runOnce(
            Scripts.Script script, String lockName, List<String> keys, List<String> args, boolean replicate) {
        try {
            if (!replicate || requiredReplicas == 0) {
                return new Reply(ScriptRunner.run(client, script, keys, args), 0);
            }
            ScriptRunner.Replicated r =
                    ScriptRunner.runAndWait(client, script, keys, args, requiredReplicas, replicaAckTimeoutMillis);
            return new Reply(r.value(), r.acks());
        } catch (JedisException e) {
            throw failure(e, lockName);
        }
    }

    /**
     * What a Jedis failure of a request for {@code lockName} means: a {@link
     * LockConfigurationException} if the server refused the configuration, else a {@link
     * BackendUnavailableException}.
     */
    static RuntimeException failure(JedisException e, String lockName) {
        Optional<String> problem = RedisErrors.configurationProblem(e);
        if (problem.isPresent()) {
            return new LockConfigurationException(
                    "Redis refused the request for lock '" + lockName + "': " + problem.get(), BACKEND, e);
        }
        if (e instanceof JedisDataException) {
            return new BackendUnavailableException(
                    "Redis rejected the lock script: " + e.getMessage(), lockName, BACKEND, e);
        }
        return new BackendUnavailableException("Redis request failed: " + e.getMessage(), lockName, BACKEND, e);
    }

    /** The provider's Jedis client. */
    UnifiedJedis client() {
        return client;
    }

    /** Replicas a replicated call waits for ({@code WAIT}); 0 for none. */
    int requiredReplicas() {
        return requiredReplicas;
    }

    long replicaAckTimeoutMillis() {
        return replicaAckTimeoutMillis;
    }
}
