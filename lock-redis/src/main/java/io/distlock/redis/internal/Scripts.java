package io.distlock.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The Lua scripts; each runs atomically on the server in one round trip. Public for lock-redlock,
 * which runs {@link #RELEASE}, {@link #RENEW} and the two {@code REDLOCK_*} scripts on each of its
 * independent masters through {@link #run}.
 */
public final class Scripts {

    /**
     * KEYS: lock, counter. ARGV: owner, lease ms, counter TTL ms. Returns {@code {1, token}} (token
     * as a decimal string) or {@code {0, pttl}} with the holder's remaining TTL in ms. Idempotent
     * for one owner value: if the key already holds {@code owner} (a retry after a lost reply), it
     * returns the token that acquisition got, without touching the TTL.
     *
     * <p>Token = {@code max(counter + 1, server time in µs)}: strictly increasing while the counter
     * exists, and still above every earlier token after the counter expired or was lost (restart
     * without persistence), unless the server clock went back. Lua numbers are doubles, exact to
     * 2^53 (µs since 1970 stay below that until the year 2255); {@code %.0f} prints them exactly.
     */
    public static final Script ACQUIRE = new Script(String.join(
            "\n",
            "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then",
            "  local t = redis.call('TIME')",
            "  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])",
            "  local token = (tonumber(redis.call('GET', KEYS[2])) or 0) + 1",
            "  if now > token then token = now end",
            "  local s = string.format('%.0f', token)",
            "  redis.call('SET', KEYS[2], s, 'PX', ARGV[3])",
            "  return {1, s}",
            "end",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  return {1, redis.call('GET', KEYS[2]) or '0'}",
            "end",
            "return {0, redis.call('PTTL', KEYS[1])}"));

    /** KEYS: lock. ARGV: owner, channel. Compare-and-delete, then wake waiters. Returns 1 or 0. */
    public static final Script RELEASE = new Script(String.join(
            "\n",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('DEL', KEYS[1])",
            "  redis.call('PUBLISH', ARGV[2], '1')",
            "  return 1",
            "end",
            "return 0"));

    /** KEYS: lock. ARGV: owner, lease ms. Compare-and-PEXPIRE. Returns 1 or 0. */
    public static final Script RENEW = new Script(String.join(
            "\n",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  return redis.call('PEXPIRE', KEYS[1], ARGV[2])",
            "end",
            "return 0"));

    /**
     * Redlock round 1 on one node. KEYS: lock, counter. ARGV: owner, lease ms. {@code SET lock owner
     * NX PX lease}; returns {@code {1, c}} if the lock is (now) held by {@code owner} (also on a
     * retry after a lost reply), else {@code {0, c, pttl}}, where {@code c = max(counter, server
     * time in µs)} as a decimal string. The counter is read in the same script, so {@code c} is at
     * least every value raised on this node by an earlier holder of the lock; the server time
     * floor keeps {@code c} above earlier tokens after the counter was lost (restart without
     * persistence), as {@link #ACQUIRE}'s does, unless the node's clock is behind the clock that
     * produced them (exact in Lua's doubles until the year 2255).
     */
    public static final Script REDLOCK_ACQUIRE = new Script(String.join(
            "\n",
            "local c = tonumber(redis.call('GET', KEYS[2]) or '0')",
            "local t = redis.call('TIME')",
            "local now = tonumber(t[1]) * 1000000 + tonumber(t[2])",
            "if now > c then c = now end",
            "c = string.format('%.0f', c)",
            "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then",
            "  return {1, c}",
            "end",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  return {1, c}",
            "end",
            "return {0, c, redis.call('PTTL', KEYS[1])}"));

    /**
     * Redlock round 2 on one node (the max-register write). KEYS: lock, counter. ARGV: owner, t.
     * Only while the node still holds {@code owner}: raises the counter (no TTL) to {@code t} if it
     * is below. Returns 1 if the counter now equals {@code t} under our lock (raised now, or by our
     * own earlier try), 0 if the lock is not ours or the counter is already above {@code t}.
     */
    public static final Script REDLOCK_RAISE = new Script(String.join(
            "\n",
            "if redis.call('GET', KEYS[1]) ~= ARGV[1] then",
            "  return 0",
            "end",
            "local c = tonumber(redis.call('GET', KEYS[2]) or '0')",
            "local t = tonumber(ARGV[2])",
            "if c < t then",
            "  redis.call('SET', KEYS[2], ARGV[2])",
            "  return 1",
            "end",
            "if c == t then",
            "  return 1",
            "end",
            "return 0"));

    private Scripts() {}

    /**
     * Runs {@code script} on {@code client}: EVALSHA, falling back to EVAL when the server does not
     * know the script yet (NOSCRIPT). Jedis exceptions pass through.
     */
    public static Object run(UnifiedJedis client, Script script, List<String> keys, List<String> args) {
        try {
            return client.evalsha(script.sha(), keys, args);
        } catch (JedisDataException e) {
            String m = e.getMessage();
            if (m == null || !m.startsWith("NOSCRIPT")) {
                throw e;
            }
            return client.eval(script.text(), keys, args);
        }
    }

    /** A script and its SHA-1 (computed locally, so EVALSHA needs no SCRIPT LOAD first). */
    public record Script(String text, String sha) {
        Script(String text) {
            this(text, sha1(text));
        }

        private static String sha1(String text) {
            try {
                return HexFormat.of()
                        .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-1 is required by the Java platform", e);
            }
        }
    }
}
