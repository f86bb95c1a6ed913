package io.distlock.redis.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

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
     *
     * @throws JedisConnectionException if the connection failed, or (Redis Cluster) the node of the
     *     key could not be reached and the pipeline left the call unanswered
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
                try {
                    Object v = value.get();
                    return new Replicated(v, acks.get());
                } catch (IllegalStateException noReply) {
                    // a Cluster pipeline leaves the calls of a node it could not reach unanswered
                    throw new JedisConnectionException("no reply: " + noReply.getMessage(), noReply);
                }
            }
        });
    }

    /** One call of a script: its keys and arguments. */
    public record Call(List<String> keys, List<String> args) {}

    /**
     * The outcome of one call of {@link #runAll}: the script's reply and, with replicas required,
     * the number that acknowledged it; or why there is none ({@code failure} set): the error the
     * server answered (a {@link JedisDataException}), or, on Redis Cluster, the failure of the node
     * the call went to (a {@link JedisConnectionException}; the other nodes' calls have their
     * replies).
     */
    public record Outcome(Object value, long acks, JedisException failure) {}

    /**
     * Runs {@code script} once per call, all in one pipeline from {@code pipelines} (one round trip
     * per connection: one for a single server, one per node on Redis Cluster, where each call goes
     * to the node of its first key), each followed by {@code WAIT replicas timeoutMillis} if {@code
     * replicas > 0}. Calls answered {@code NOSCRIPT} are sent again by text in a second pipeline. An
     * error the server answered to a call, or a Cluster node that could not be reached, is that
     * call's outcome; a failure of the whole pipeline throws.
     */
    public static List<Outcome> runAll(
            Supplier<AbstractPipeline> pipelines,
            Scripts.Script script,
            List<Call> calls,
            int replicas,
            long timeoutMillis) {
        Outcome[] outcomes = new Outcome[calls.size()];
        List<Integer> todo = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            todo.add(i);
        }
        for (boolean bySha : new boolean[] {true, false}) {
            List<Integer> noScript = new ArrayList<>();
            try (AbstractPipeline p = pipelines.get()) {
                List<Response<Object>> values = new ArrayList<>(todo.size());
                List<Response<Long>> acks = new ArrayList<>(todo.size());
                for (int i : todo) {
                    Call c = calls.get(i);
                    values.add(
                            bySha
                                    ? p.evalsha(script.sha(), c.keys(), c.args())
                                    : p.eval(script.text(), c.keys(), c.args()));
                    // the WAIT goes where the call went: its first key's node (a call without keys: one server)
                    String sample = c.keys().isEmpty() ? "" : c.keys().get(0);
                    acks.add(replicas > 0 ? p.waitReplicas(sample, replicas, timeoutMillis) : null);
                }
                p.sync();
                for (int k = 0; k < todo.size(); k++) {
                    int i = todo.get(k);
                    try {
                        Object v = values.get(k).get();
                        outcomes[i] = new Outcome(
                                v, acks.get(k) == null ? 0 : acks.get(k).get(), null);
                    } catch (JedisDataException e) {
                        if (bySha && isNoScript(e)) {
                            noScript.add(i);
                        } else {
                            outcomes[i] = new Outcome(null, 0, e);
                        }
                    } catch (JedisException e) {
                        outcomes[i] = new Outcome(null, 0, e);
                    } catch (IllegalStateException noReply) {
                        // a Cluster pipeline leaves the calls of a node it could not reach unanswered
                        outcomes[i] = new Outcome(
                                null, 0, new JedisConnectionException("no reply: " + noReply.getMessage(), noReply));
                    }
                }
            }
            if (noScript.isEmpty()) {
                break;
            }
            todo = noScript;
        }
        return Arrays.asList(outcomes);
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
