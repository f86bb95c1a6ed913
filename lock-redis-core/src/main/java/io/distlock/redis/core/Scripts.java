package io.distlock.redis.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts of lock-redis and lock-redlock; each runs atomically on the server in one round
 * trip. lock-redis runs {@link #ACQUIRE}, {@link #ACQUIRE_QUEUED}, {@link #RELEASE_QUEUED}, {@link
 * #RELEASE}, {@link #RELEASE_AFTER}, {@link #RENEW}, {@link #RENEW_MANY} and {@link #RENEW_PACKED}; lock-redlock runs {@link
 * #REDLOCK_ACQUIRE}, {@link #REDLOCK_ACQUIRE_QUEUED}, {@link #REDLOCK_RAISE}, {@link #RENEW}, {@link #RENEW_PACKED}, {@link
 * #REDLOCK_RELEASE}, {@link #REDLOCK_RELEASE_AFTER}, {@link #REDLOCK_LEAVE} and (to undo a failed try)
 * {@link #RELEASE} on each of its independent masters. {@link ScriptRunner} sends them.
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

    /**
     * Acquire with a FIFO waiter queue (the hand-off path). KEYS: lock, counter, queue (ZSET owner →
     * arrival sequence), waiters (HASH owner → "deadlineMs ttlMs refreshedMs[ grantChannel]"). ARGV:
     * owner, lease ms, counter TTL ms, register ms (how long the caller will still wait; 0 = a single
     * try, never queued), margin ms, optionally purge ms (0 or absent: none), and optionally the
     * channel on which a release is to publish the grant for {@code owner} (the waiter's provider's
     * own subscriber channel; absent or empty: the lock's channel).
     *
     * <p>Grant channel: a grant published on the lock's channel reaches every provider that has a
     * waiter of the lock, and each of their subscriber threads wakes to find the grant is not for
     * it. Published on the grantee's provider's channel it wakes that provider alone.
     *
     * <p>Purge ({@code ARGV[6] > 0}, sent by a client that lost its connection to the previous
     * master and now talks to a promoted replica): if the lock is not held by {@code owner}, every
     * other entry not refreshed within the last {@code purge} ms of server time is removed first.
     * Such entries come from before the failover: the replica may hold entries whose waiters were
     * served or left on the old master after replication lagged. A live waiter re-registers (its
     * next try, prompted by its own subscriber's reconnection) and keeps or regains a place.
     *
     * <p>Returns {@code {1, token}} when it took the free lock (no live waiter queued ahead of
     * {@code owner}); {@code {2, token, pttl}} when the key already holds {@code owner} (handed over
     * by a release, or a retry after a lost reply: validity must then be counted from {@code pttl},
     * not from the lease); or {@code {0, hint ms, server time µs}}: {@code hint} is the holder's
     * remaining TTL (or, if the lock is free but a live waiter is ahead, that waiter's remaining
     * deadline). With {@code register > 0} a failed try enqueues {@code owner} (or keeps its place)
     * with deadline {@code now + min(register, hint + margin)}, after which a release skips it.
     * Entries at the head whose deadline passed are removed here; the queue keys expire by
     * themselves ({@code PEXPIRE}) shortly after the last deadline in them.
     */
    public static final Script ACQUIRE_QUEUED = new Script(String.join(
            "\n",
            "local function grant(nowUs)",
            "  local token = (tonumber(redis.call('GET', KEYS[2])) or 0) + 1",
            "  if nowUs > token then token = nowUs end",
            "  local s = string.format('%.0f', token)",
            "  redis.call('SET', KEYS[2], s, 'PX', ARGV[3])",
            "  return s",
            "end",
            "local function now()",
            "  local t = redis.call('TIME')",
            "  return tonumber(t[1]) * 1000000 + tonumber(t[2])",
            "end",
            "if redis.call('EXISTS', KEYS[3]) == 0 and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then",
            "  return {1, grant(now())}",
            "end",
            "local cur = redis.call('GET', KEYS[1])",
            "if cur == ARGV[1] then",
            "  return {2, redis.call('GET', KEYS[2]) or '0', redis.call('PTTL', KEYS[1])}",
            "end",
            "local nowUs = now()",
            "local nowMs = math.floor(nowUs / 1000)",
            "local purge = tonumber(ARGV[6] or '0')",
            "if purge > 0 and redis.call('EXISTS', KEYS[3]) == 1 then",
            "  local cutoff = nowMs - purge",
            "  for _, h in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do",
            "    if h ~= ARGV[1] then",
            "      local w = redis.call('HGET', KEYS[4], h)",
            "      local r = w and tonumber(string.match(w, '^%d+ %d+ (%d+)'))",
            "      if not r or r < cutoff then",
            "        redis.call('ZREM', KEYS[3], h)",
            "        redis.call('HDEL', KEYS[4], h)",
            "      end",
            "    end",
            "  end",
            "  if redis.call('ZCARD', KEYS[3]) == 0 then redis.call('DEL', KEYS[3], KEYS[4]) end",
            "end",
            "local hint",
            "if cur then",
            "  hint = redis.call('PTTL', KEYS[1])",
            "  if hint < 0 then hint = tonumber(ARGV[2]) end",
            "else",
            "  local mine = false",
            "  while true do",
            "    local h = redis.call('ZRANGE', KEYS[3], 0, 0)[1]",
            "    if not h then break end",
            "    if h == ARGV[1] then mine = true break end",
            "    local w = redis.call('HGET', KEYS[4], h)",
            "    local d = w and tonumber(string.match(w, '^(%d+)'))",
            "    if d and d > nowMs then hint = d - nowMs break end",
            "    redis.call('ZREM', KEYS[3], h)",
            "    redis.call('HDEL', KEYS[4], h)",
            "  end",
            "  if not hint then",
            "    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])",
            "    local s = grant(nowUs)",
            "    if mine then",
            "      redis.call('ZREM', KEYS[3], ARGV[1])",
            "      redis.call('HDEL', KEYS[4], ARGV[1])",
            "    end",
            "    if redis.call('ZCARD', KEYS[3]) == 0 then redis.call('DEL', KEYS[3], KEYS[4]) end",
            "    return {1, s}",
            "  end",
            "end",
            "local reg = tonumber(ARGV[4])",
            "if reg > 0 then",
            "  local bound = hint + tonumber(ARGV[5])",
            "  if bound > reg then bound = reg end",
            "  if not redis.call('ZSCORE', KEYS[3], ARGV[1]) then",
            "    local seq = nowUs",
            "    local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')",
            "    if last[2] and tonumber(last[2]) >= seq then seq = tonumber(last[2]) + 1 end",
            "    redis.call('ZADD', KEYS[3], string.format('%.0f', seq), ARGV[1])",
            "  end",
            "  local entry = string.format('%.0f', nowMs + bound) .. ' ' .. ARGV[2] .. ' ' .. string.format('%.0f', nowMs)",
            "  if ARGV[7] and ARGV[7] ~= '' then entry = entry .. ' ' .. ARGV[7] end",
            "  redis.call('HSET', KEYS[4], ARGV[1], entry)",
            "  local keep = bound + 1000",
            "  if redis.call('PTTL', KEYS[3]) < keep then redis.call('PEXPIRE', KEYS[3], keep) end",
            "  if redis.call('PTTL', KEYS[4]) < keep then redis.call('PEXPIRE', KEYS[4], keep) end",
            "end",
            "return {0, hint, string.format('%.0f', nowUs)}"));

    /**
     * Release and leave for the queued path. KEYS: lock, counter, queue, waiters. ARGV: owner,
     * channel, counter TTL ms, and optionally purge ms (as in {@link #ACQUIRE_QUEUED}: entries not
     * refreshed within that many ms are passed over). If the key holds {@code owner}: pops queue
     * entries until one whose deadline has not passed (and, with purge, that was refreshed since), hands the lock to it ({@code SET lock waiter PX waiterTtl}, raises the
     * counter as {@link #ACQUIRE} does) and publishes {@code "g <waiter> <token> <server µs> <owner>"}
     * on the waiter's grant channel if its entry names one (else on {@code channel}), returning 2; with no live waiter it deletes the lock (and the emptied queue), publishes {@code
     * "1 <owner>"} and
     * returns 1. If the key does not hold {@code owner}: removes {@code owner} from the queue (a
     * waiter leaving) and returns 0.
     *
     * <p>The hand-off path is the one script a waiter's acquisition waits for, and it runs on a
     * server that was idle during the hold (each {@code redis.call} then costs several µs), so it
     * makes as few calls as it can: it reads the first two entries at once ({@code ZRANGE 0 1}), so
     * it knows without {@code ZCARD} whether the head is the last one; the last entry is removed
     * by deleting both queue keys, which the emptied queue needed anyway, instead of {@code ZREM} +
     * {@code HDEL} + {@code DEL}: 10 calls with one waiter, 11 with more. The uncontended release
     * makes 4 ({@code EXISTS} on a missing key is cheaper than {@code ZRANGE}).
     */
    public static final Script RELEASE_QUEUED = new Script(String.join(
            "\n",
            "if redis.call('GET', KEYS[1]) ~= ARGV[1] then",
            "  if redis.call('ZREM', KEYS[3], ARGV[1]) == 1 then",
            "    redis.call('HDEL', KEYS[4], ARGV[1])",
            "    if redis.call('ZCARD', KEYS[3]) == 0 then redis.call('DEL', KEYS[3], KEYS[4]) end",
            "  end",
            "  return 0",
            "end",
            "if redis.call('EXISTS', KEYS[3]) == 0 then",
            "  redis.call('DEL', KEYS[1])",
            "  redis.call('PUBLISH', ARGV[2], '1 ' .. ARGV[1])",
            "  return 1",
            "end",
            "local t = redis.call('TIME')",
            "local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])",
            "local nowMs = math.floor(nowUs / 1000)",
            "local purge = tonumber(ARGV[4] or '0')",
            "local head = redis.call('ZRANGE', KEYS[3], 0, 1)",
            "while head[1] do",
            "  local h = head[1]",
            "  local last = not head[2]",
            "  local w = redis.call('HGET', KEYS[4], h)",
            "  local d, ttl, r, c",
            "  if w then d, ttl, r, c = string.match(w, '^(%d+) (%d+) ?(%d*) ?(%S*)$') end",
            "  if last then",
            "    redis.call('DEL', KEYS[3], KEYS[4])",
            "  else",
            "    redis.call('ZREM', KEYS[3], h)",
            "    if w then redis.call('HDEL', KEYS[4], h) end",
            "  end",
            "  if d and tonumber(d) > nowMs and (purge == 0 or (tonumber(r) or 0) >= nowMs - purge) then",
            "    redis.call('SET', KEYS[1], h, 'PX', ttl)",
            "    local token = (tonumber(redis.call('GET', KEYS[2])) or 0) + 1",
            "    if nowUs > token then token = nowUs end",
            "    local s = string.format('%.0f', token)",
            "    redis.call('SET', KEYS[2], s, 'PX', ARGV[3])",
            "    if not c or c == '' then c = ARGV[2] end",
            "    redis.call('PUBLISH', c, 'g ' .. h .. ' ' .. s .. ' ' .. string.format('%.0f', nowUs) .. ' ' .. ARGV[1])",
            "    return 2",
            "  end",
            "  if last then break end",
            "  head = redis.call('ZRANGE', KEYS[3], 0, 1)",
            "end",
            "redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])",
            "redis.call('PUBLISH', ARGV[2], '1 ' .. ARGV[1])",
            "return 1"));

    /**
     * KEYS: lock. ARGV: owner, channel. Compare-and-delete, then wake waiters with {@code "1
     * <owner>"} (the released owner value, which opens nothing any more; see {@link
     * Subscriber#onReleasedOwner}). Returns 1 or 0.
     */
    public static final Script RELEASE = new Script(String.join(
            "\n",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('DEL', KEYS[1])",
            "  redis.call('PUBLISH', ARGV[2], '1 ' .. ARGV[1])",
            "  return 1",
            "end",
            "return 0"));

    /**
     * KEYS: lock. ARGV: owner, delay ms, channel. A delayed release: if the key holds {@code owner},
     * sets its TTL to {@code delay} instead of deleting it and publishes {@code "e <owner> <delay>"}
     * on {@code channel}, which tells waiters that the lock now expires {@code delay} ms from now
     * (no hand-off: the lock stays taken until then). Returns 1, or 0 if the key does not hold
     * {@code owner} (nothing is changed then).
     */
    public static final Script RELEASE_AFTER = new Script(String.join(
            "\n",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  redis.call('PEXPIRE', KEYS[1], ARGV[2])",
            "  redis.call('PUBLISH', ARGV[3], 'e ' .. ARGV[1] .. ' ' .. ARGV[2])",
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
     * Many renewals in one call. KEYS: lock keys (on Redis Cluster all in one hash slot). ARGV: for
     * the i-th key, its owner value at {@code 2i - 1} and its lease ms at {@code 2i}. Each key is
     * compare-and-{@code PEXPIRE}d as {@link #RENEW} does. Returns one 1 or 0 per key, in order.
     */
    public static final Script RENEW_MANY = new Script(String.join(
            "\n",
            "local r = {}",
            "for i = 1, #KEYS do",
            "  if redis.call('GET', KEYS[i]) == ARGV[2 * i - 1] then",
            "    r[i] = redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])",
            "  else",
            "    r[i] = 0",
            "  end",
            "end",
            "return r"));

    /**
     * Many renewals in one call, packed into one argument so that the server reads the call in one
     * or two socket reads whatever the number of locks ({@link PackedRenewals}). No KEYS: the lock
     * keys are {@code ARGV[1] .. tag .. ARGV[2]}, one per line of {@code ARGV[3]}, which reads
     * {@code "<tag> <owner> <lease ms>\n"} per lock (tags are {@code LockNames.encode}d: letters,
     * digits, {@code _ - %}; owners hex). Not for Redis Cluster, whose scripts must declare their
     * keys. Each key is compare-and-{@code PEXPIRE}d as {@link #RENEW} does. Returns one character
     * per line, in order: {@code 1} renewed, {@code 0} gone or another owner's.
     */
    public static final Script RENEW_PACKED = new Script(String.join(
            "\n",
            "local r = {}",
            "local i = 0",
            "for tag, owner, ms in string.gmatch(ARGV[3], '(%S+) (%x+) (%d+)\\n') do",
            "  i = i + 1",
            "  local key = ARGV[1] .. tag .. ARGV[2]",
            "  if redis.call('GET', key) == owner then",
            "    redis.call('PEXPIRE', key, ms)",
            "    r[i] = '1'",
            "  else",
            "    r[i] = '0'",
            "  end",
            "end",
            "return table.concat(r)"));

    /**
     * Redlock round 1 on one node. KEYS: lock, counter. ARGV: owner, lease ms. {@code SET lock owner
     * NX PX lease}; returns {@code {1, c}} if the lock is (now) held by {@code owner}, else {@code
     * {0, '0', pttl}} (a refusal's counter is of no use to the caller, so it is not read). On a grant, in the same script (so while holding the lock here), the
     * node's fencing counter is incremented (GET and SET, which the documented ACL rule already
     * allows) and {@code c} is its new value; a node without a counter (a new lock name, or a
     * restart without persistence) starts it at the server time in µs, so that {@code c} is above
     * earlier tokens after the counter was lost, unless the node's clock is behind the clock that
     * produced them (a counter grows by at most one per grant, far slower than a clock in µs). A
     * retry after a lost reply ({@code owner} already holds the lock) returns the counter
     * unchanged: its increment already happened. Values are decimal strings, exact in Lua's doubles
     * until the year 2255.
     */
    public static final Script REDLOCK_ACQUIRE = new Script(String.join(
            "\n",
            "if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then",
            "  if redis.call('GET', KEYS[1]) ~= ARGV[1] then",
            "    return {0, '0', redis.call('PTTL', KEYS[1])}",
            "  end",
            "  return {1, redis.call('GET', KEYS[2]) or '0'}",
            "end",
            Lua.REDLOCK_COUNTER,
            "return {1, c}"));

    /**
     * {@link #REDLOCK_ACQUIRE} for a waiter of a provider, which it also queues to be woken. KEYS:
     * lock, counter, queue (ZSET member → arrival sequence), waiters (HASH member → "deadlineMs
     * wakeChannel"). ARGV: owner, lease ms, member (the provider's waiters of this lock), register
     * ms, wake channel.
     *
     * <p>Granted: as {@link #REDLOCK_ACQUIRE}; the member stays queued (first in line, usually)
     * until the holder's release takes it off ({@link #REDLOCK_RELEASE}), so a try that loses keeps
     * its place. Refused: the member is queued (kept in place if it is already) with the deadline
     * {@code now + register} (a later deadline of the same member is kept), and the queue keys
     * expire a second after the last deadline. The queue orders whom a release wakes; it grants
     * nothing: an acquisition is still this script's {@code SET NX} on a majority. Returns what
     * {@link #REDLOCK_ACQUIRE} returns.
     */
    public static final Script REDLOCK_ACQUIRE_QUEUED = new Script(String.join(
            "\n",
            "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then",
            Lua.REDLOCK_COUNTER,
            "  return {1, c}",
            "end",
            "if redis.call('GET', KEYS[1]) == ARGV[1] then",
            "  return {1, redis.call('GET', KEYS[2]) or '0'}",
            "end",
            "local reg = tonumber(ARGV[4])",
            "if reg > 0 then",
            "  local t = redis.call('TIME')",
            "  local nowUs = tonumber(t[1]) * 1000000 + tonumber(t[2])",
            "  if not redis.call('ZSCORE', KEYS[3], ARGV[3]) then",
            "    local seq = nowUs",
            "    local last = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')",
            "    if last[2] and tonumber(last[2]) >= seq then seq = tonumber(last[2]) + 1 end",
            "    redis.call('ZADD', KEYS[3], string.format('%.0f', seq), ARGV[3])",
            "  end",
            "  local d = math.floor(nowUs / 1000) + reg",
            "  local w = redis.call('HGET', KEYS[4], ARGV[3])",
            "  local old = w and tonumber(string.match(w, '^(%d+)'))",
            "  if not old or old < d then",
            "    redis.call('HSET', KEYS[4], ARGV[3], string.format('%.0f', d) .. ' ' .. ARGV[5])",
            "  end",
            "  local keep = reg + 1000",
            "  if redis.call('PTTL', KEYS[3]) < keep then redis.call('PEXPIRE', KEYS[3], keep) end",
            "  if redis.call('PTTL', KEYS[4]) < keep then redis.call('PEXPIRE', KEYS[4], keep) end",
            "end",
            "return {0, '0', redis.call('PTTL', KEYS[1])}"));

    /**
     * Redlock release on one node. KEYS: lock, queue, waiters (as in {@link
     * #REDLOCK_ACQUIRE_QUEUED}). ARGV: owner, the lock's channel, the holder's queue member (empty
     * if it acquired without waiting), requeue ({@code 1}: the member has other waiters, which go to
     * the back of the line). The member leaves the queue (or goes to its back), whether or not the
     * node still holds the lock for {@code owner}; then compare-and-delete, and the first queued
     * member whose deadline has not passed and whose wake channel someone
     * listens to ({@code PUBLISH} reaches at least one subscriber) is woken with {@code "1
     * <owner>"} there; the members passed over are removed (their provider is gone or gave up).
     * With nobody to wake, {@code "1 <owner>"} goes to the lock's channel. Returns 1 if the key held
     * {@code owner}, else 0 (nothing changed).
     */
    public static final Script REDLOCK_RELEASE = new Script(String.join(
            "\n",
            Lua.HOLDER_LEAVES,
            "redis.call('DEL', KEYS[1])",
            "if not wake('1 ' .. ARGV[1]) then",
            "  redis.call('PUBLISH', ARGV[2], '1 ' .. ARGV[1])",
            "end",
            "return 1"));

    /**
     * Redlock delayed release on one node. KEYS: lock, queue, waiters. ARGV: owner, delay ms, the
     * holder's member, requeue (as in {@link #REDLOCK_RELEASE}). Takes the member off the queue (or
     * to its back); if the key holds {@code owner}, sets its time to live to the delay and wakes the
     * first queued member as {@link #REDLOCK_RELEASE} does, so that it learns the shorter time to live and tries
     * when it runs out. Returns 1 if the key held {@code owner}, else 0.
     */
    public static final Script REDLOCK_RELEASE_AFTER = new Script(String.join(
            "\n", Lua.HOLDER_LEAVES, "redis.call('PEXPIRE', KEYS[1], ARGV[2])", "wake('1 ' .. ARGV[1])", "return 1"));

    /**
     * A member leaves a Redlock node's queue (its provider has no waiter of the lock any more).
     * KEYS: lock, queue, waiters. ARGV: member. If it was queued and the lock is free, the next
     * member is woken as {@link #REDLOCK_RELEASE} does: a release may have woken the leaving member
     * just before it left. Returns 1 if it was queued, else 0.
     */
    public static final Script REDLOCK_LEAVE = new Script(String.join(
            "\n",
            Lua.WAKE_FIRST,
            "if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then",
            "  return 0",
            "end",
            "redis.call('HDEL', KEYS[3], ARGV[1])",
            "if redis.call('EXISTS', KEYS[1]) == 0 then",
            "  wake('1 ' .. ARGV[1])",
            "end",
            "return 1"));

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

    /** Lua shared by several scripts. */
    private static final class Lua {
        /**
         * Redlock's counter move on a grant (KEYS[2]: counter): {@code c} = counter + 1, or the
         * server time in µs for a node without a counter; written without TTL.
         */
        static final String REDLOCK_COUNTER = String.join(
                "\n",
                "local c = redis.call('GET', KEYS[2])",
                "if c then",
                "  c = string.format('%.0f', tonumber(c) + 1)",
                "else",
                "  local t = redis.call('TIME')",
                "  c = string.format('%.0f', tonumber(t[1]) * 1000000 + tonumber(t[2]))",
                "end",
                "redis.call('SET', KEYS[2], c)");

        /**
         * {@code wake(msg)} for Redlock's queue (KEYS[2]: queue, KEYS[3]: waiters): publishes {@code
         * msg} to the first member whose deadline has not passed and whose wake channel has a
         * subscriber, removing the members passed over; true if one was woken.
         */
        static final String WAKE_FIRST = String.join(
                "\n",
                "local function wake(msg)",
                "  if redis.call('EXISTS', KEYS[2]) == 0 then return false end",
                "  local t = redis.call('TIME')",
                "  local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)",
                "  while true do",
                "    local h = redis.call('ZRANGE', KEYS[2], 0, 0)[1]",
                "    if not h then return false end",
                "    local w = redis.call('HGET', KEYS[3], h)",
                "    local d, ch",
                "    if w then d, ch = string.match(w, '^(%d+) (%S+)$') end",
                "    if d and tonumber(d) > nowMs and redis.call('PUBLISH', ch, msg) > 0 then return true end",
                "    redis.call('ZREM', KEYS[2], h)",
                "    if w then redis.call('HDEL', KEYS[3], h) end",
                "  end",
                "end");

        /**
         * {@code dequeue(member, requeue)} for Redlock's queue (KEYS[2]: queue, KEYS[3]: waiters):
         * nothing for an empty member; with requeue {@code '1'} a queued member goes to the back of
         * the line; otherwise it is removed.
         */
        static final String DEQUEUE = String.join(
                "\n",
                "local function dequeue(m, requeue)",
                "  if m == '' then return end",
                "  if requeue == '1' then",
                "    if redis.call('ZSCORE', KEYS[2], m) then",
                "      local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')",
                "      redis.call('ZADD', KEYS[2], string.format('%.0f', tonumber(last[2]) + 1), m)",
                "    end",
                "  elseif redis.call('ZREM', KEYS[2], m) == 1 then",
                "    redis.call('HDEL', KEYS[3], m)",
                "  end",
                "end");

        /**
         * The start of a Redlock release (KEYS: lock, queue, waiters; ARGV[1]: owner, ARGV[3]:
         * member, ARGV[4]: requeue): defines {@code wake}, takes the holder's member off the queue
         * (or to its back), and returns 0 if the lock is not {@code owner}'s.
         */
        static final String HOLDER_LEAVES = String.join(
                "\n",
                WAKE_FIRST,
                DEQUEUE,
                "dequeue(ARGV[3], ARGV[4])",
                "if redis.call('GET', KEYS[1]) ~= ARGV[1] then",
                "  return 0",
                "end");

        private Lua() {}
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
