package io.distlock.redis.internal;

import io.distlock.redis.core.Scripts;
import java.util.List;

/**
 * The scripts one lock sends, with their arguments: the fencing counter's retention (fixed per
 * provider), the lease, the owner value and the queue settings (per call: a handle may have a lease
 * time of its own). Every method is one request ({@link ScriptCalls}).
 */
final class LockScripts {
    private static final long MIN_MARGIN_MS = 250;
    private static final long MAX_MARGIN_MS = 5_000;

    private final ScriptCalls calls;
    private final String counterTtlMillis;

    /**
     * @param counterTtlMillis how long a fencing counter outlives the lock's last acquisition
     */
    LockScripts(ScriptCalls calls, long counterTtlMillis) {
        this.calls = calls;
        this.counterTtlMillis = Long.toString(counterTtlMillis);
    }

    /** A queue entry's slack after its waiter's next planned retry: {@code clamp(lease / 4, 250 ms, 5 s)}. */
    static long marginMillis(long leaseMillis) {
        return Math.max(MIN_MARGIN_MS, Math.min(MAX_MARGIN_MS, leaseMillis / 4));
    }

    /** The calls these scripts go through. */
    ScriptCalls calls() {
        return calls;
    }

    /**
     * {@link Scripts#ACQUIRE} (keys: lock, counter) with a TTL of {@code leaseMillis}, followed by
     * {@code WAIT} if replicas are required.
     */
    ScriptCalls.Reply acquire(String lockName, List<String> keys, String owner, long leaseMillis) {
        return calls.run(
                Scripts.ACQUIRE, lockName, keys, List.of(owner, Long.toString(leaseMillis), counterTtlMillis), true);
    }

    /**
     * {@link Scripts#ACQUIRE_QUEUED} (keys: lock, counter, queue, waiters) with a TTL of {@code
     * leaseMillis}: a try that queues {@code owner} for {@code registerMillis} if it fails ({@code
     * 0}: a single try), passing over queue entries not refreshed within {@code purgeMillis} ({@code
     * 0}: none); a grant is to be published on {@code grantChannel} (null: on the lock's channel).
     */
    ScriptCalls.Reply acquireQueued(
            String lockName,
            List<String> keys,
            String owner,
            long leaseMillis,
            long registerMillis,
            long purgeMillis,
            String grantChannel) {
        String lease = Long.toString(leaseMillis);
        String margin = Long.toString(marginMillis(leaseMillis));
        List<String> args = grantChannel == null
                ? List.of(
                        owner,
                        lease,
                        counterTtlMillis,
                        Long.toString(registerMillis),
                        margin,
                        Long.toString(purgeMillis))
                : List.of(
                        owner,
                        lease,
                        counterTtlMillis,
                        Long.toString(registerMillis),
                        margin,
                        Long.toString(purgeMillis),
                        grantChannel);
        return calls.run(Scripts.ACQUIRE_QUEUED, lockName, keys, args, false);
    }

    /**
     * {@link Scripts#RELEASE_QUEUED} (keys: lock, counter, queue, waiters): releases {@code owner}'s
     * hold, or its queue entry, handing the lock to the first live queued waiter if {@code owner}
     * held it; entries not refreshed within {@code purgeMillis} are passed over.
     */
    ScriptCalls.Reply releaseQueued(
            String lockName, List<String> keys, String owner, String channel, long purgeMillis) {
        return calls.run(
                Scripts.RELEASE_QUEUED,
                lockName,
                keys,
                List.of(owner, channel, counterTtlMillis, Long.toString(purgeMillis)),
                false);
    }

    /** {@link Scripts#RELEASE}: compare-and-delete of {@code lockKey}, then a wake-up on {@code channel}. */
    ScriptCalls.Reply release(String lockName, String lockKey, String owner, String channel) {
        return calls.run(Scripts.RELEASE, lockName, List.of(lockKey), List.of(owner, channel), false);
    }

    /**
     * {@link Scripts#RELEASE_AFTER}: compare-and-{@code PEXPIRE delayMillis} of {@code lockKey}, then
     * a note on {@code channel} that the lock expires then (no hand-off).
     */
    ScriptCalls.Reply releaseAfter(String lockName, String lockKey, String owner, long delayMillis, String channel) {
        return calls.run(
                Scripts.RELEASE_AFTER,
                lockName,
                List.of(lockKey),
                List.of(owner, Long.toString(delayMillis), channel),
                false);
    }

    /**
     * {@link Scripts#RENEW}: compare-and-{@code PEXPIRE leaseMillis} (a renewal or an extension),
     * followed by {@code WAIT} if replicas are required.
     */
    ScriptCalls.Reply renew(String lockName, String lockKey, String owner, long leaseMillis) {
        return calls.run(Scripts.RENEW, lockName, List.of(lockKey), List.of(owner, Long.toString(leaseMillis)), true);
    }
}
