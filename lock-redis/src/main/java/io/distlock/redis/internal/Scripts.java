package io.distlock.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The three Lua scripts; each runs atomically on the server in one round trip. */
final class Scripts {

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
    static final Script ACQUIRE = new Script(String.join(
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
    static final Script RELEASE = new Script(String.join(
            "\n",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('DEL', KEYS[1])",
            "  redis.call('PUBLISH', ARGV[2], '1')",
            "  return 1",
            "end",
            "return 0"));

    /** KEYS: lock. ARGV: owner, lease ms. Compare-and-PEXPIRE. Returns 1 or 0. */
    static final Script RENEW = new Script(String.join(
            "\n",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  return redis.call('PEXPIRE', KEYS[1], ARGV[2])",
            "end",
            "return 0"));

    private Scripts() {}

    /** A script and its SHA-1 (computed locally, so EVALSHA needs no SCRIPT LOAD first). */
    record Script(String text, String sha) {
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
