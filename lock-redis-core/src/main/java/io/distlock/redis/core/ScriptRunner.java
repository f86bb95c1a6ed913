package io.distlock.redis.core;

import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Sends a {@link Scripts.Script}: {@code EVALSHA} first (the SHA-1 is computed locally, so no
 * {@code SCRIPT LOAD} is needed), and {@code EVAL} with the script's text only when the server
 * answers {@code NOSCRIPT} (it restarted, or its script cache was flushed). One request in the usual
 * case, two after a restart. Jedis exceptions pass through unchanged.
 */
public final class ScriptRunner {

    private ScriptRunner() {}

    /** The reply of a script and the number of replicas that acknowledged it ({@code WAIT}). */
    public record Replicated(Object value, long acks) {}

    /** Runs {@code script} on {@code client} and returns its reply. */
    public static Object run(UnifiedJedis client, Scripts.Script script, List<String> keys, List<String> args) {
        return bySha(
                bySha -> bySha ? client.evalsha(script.sha(), keys, args) : client.eval(script.text(), keys, args));
    }

    /**
     * Runs {@code script} with {@code WAIT replicas timeoutMillis} pipelined behind it on the same
     * connection (one client round trip; the reply waits for the replicas' acknowledgement). The
     * {@code WAIT} goes to the connection of {@code keys.get(0)}, the script's first key.
     */
    public static Replicated runAndWait(
            UnifiedJedis client,
            Scripts.Script script,
            List<String> keys,
            List<String> args,
            int replicas,
            long timeoutMillis) {
        return bySha(bySha -> {
            try (AbstractPipeline p = client.pipelined()) {
                Response<Object> value =
                        bySha ? p.evalsha(script.sha(), keys, args) : p.eval(script.text(), keys, args);
                Response<Long> acks = p.waitReplicas(keys.get(0), replicas, timeoutMillis);
                p.sync();
                Object v = value.get();
                return new Replicated(v, acks.get());
            }
        });
    }

    /** Whether {@code e} is the server's {@code NOSCRIPT} (the script is not in its cache). */
    public static boolean isNoScript(JedisDataException e) {
        String m = e.getMessage();
        return m != null && m.startsWith("NOSCRIPT");
    }

    /** {@code call.apply(true)} (by SHA-1), and {@code call.apply(false)} (by text) after NOSCRIPT. */
    private static <T> T bySha(Function<Boolean, T> call) {
        try {
            return call.apply(true);
        } catch (JedisDataException e) {
            if (!isNoScript(e)) {
                throw e;
            }
            return call.apply(false);
        }
    }
}
