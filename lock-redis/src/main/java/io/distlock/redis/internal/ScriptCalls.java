package io.distlock.redis.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.LockConfigurationException;
import io.distlock.redis.core.RedisErrors;
import io.distlock.redis.core.ScriptRunner;
import io.distlock.redis.core.Scripts;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Sends one script of a lock through the provider's Jedis client and reads its failure: a pooled
 * connection that died while idle is retried on another one, a refusal of the configuration
 * (credentials, a permission, the TLS trust) is a {@link LockConfigurationException}, anything else
 * a {@link BackendUnavailableException} naming the lock.
 */
final class ScriptCalls {
    private static final Logger log = LoggerFactory.getLogger(ScriptCalls.class);
    private static final String BACKEND = "redis";
    /** Most retries of a request whose pooled connection died while idle. */
    private static final int STALE_RETRIES = 2;

    private final UnifiedJedis client;
    private final int requiredReplicas;
    private final long replicaAckTimeoutMillis;

    /** The outcome of one script call, with the number of replicas that acknowledged it. */
    record Reply(Object value, long acks) {}

    /**
     * @param requiredReplicas replicas a replicated call waits for ({@code WAIT}); 0 for none
     */
    ScriptCalls(UnifiedJedis client, int requiredReplicas, long replicaAckTimeoutMillis) {
        this.client = client;
        this.requiredReplicas = requiredReplicas;
        this.replicaAckTimeoutMillis = replicaAckTimeoutMillis;
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
        for (int attempt = 0; ; attempt++) {
            try {
                return runOnce(script, lockName, keys, args, replicate);
            } catch (BackendUnavailableException e) {
                if (attempt >= STALE_RETRIES || !RedisErrors.isStaleConnection(e.getCause())) {
                    throw e;
                }
                log.debug("distlock.redis.retry_on_new_connection lock={} attempt={}", lockName, attempt + 1);
            }
        }
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
