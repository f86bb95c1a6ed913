package io.distlock.redis.internal;

import io.distlock.redis.core.Scripts;
import java.util.List;

/**
 * The scripts one lock sends, with their arguments: the lease and the fencing counter's retention
 * (fixed per provider), the owner value and the queue settings (per call). Every method is one
 * request ({@link ScriptCalls}).
 */
final class LockScripts {
    private final ScriptCalls calls;
    private final String leaseMillis;
    private final String counterTtlMillis;
    private final String marginMillis;

    /**
     * @param leaseMillis the lease, as the scripts' TTL argument
     * @param counterTtlMillis how long a fencing counter outlives the lock's last acquisition
     * @param marginMillis a queue entry's slack after its waiter's next planned retry
     */
    LockScripts(ScriptCalls calls, long leaseMillis, long counterTtlMillis, long marginMillis) {
        this.calls = calls;
        this.leaseMillis = Long.toString(leaseMillis);
        this.counterTtlMillis = Long.toString(counterTtlMillis);
        this.marginMillis = Long.toString(marginMillis);
    }

    /** {@link Scripts#ACQUIRE} (keys: lock, counter), followed by {@code WAIT} if replicas are required. */
    ScriptCalls.Reply acquire(String lockName, List<String> keys, String owner) {
        return calls.run(Scripts.ACQUIRE, lockName, keys, List.of(owner, leaseMillis, counterTtlMillis), true);
    }

    /**
     * {@link Scripts#ACQUIRE_QUEUED} (keys: lock, counter, queue, waiters): a try that queues {@code
     * owner} for {@code registerMillis} if it fails ({@code 0}: a single try), passing over queue
     * entries not refreshed within {@code purgeMillis} ({@code 0}: none); a grant is to be published
     * on {@code grantChannel} (null: on the lock's channel).
     */
    ScriptCalls.Reply acquireQueued(
            String lockName,
            List<String> keys,
            String owner,
            long registerMillis,
            long purgeMillis,
            String grantChannel) {
        List<String> args = grantChannel == null
                ? List.of(
                        owner,
                        leaseMillis,
                        counterTtlMillis,
                        Long.toString(registerMillis),
                        marginMillis,
                        Long.toString(purgeMillis))
                : List.of(
                        owner,
                        leaseMillis,
                        counterTtlMillis,
                        Long.toString(registerMillis),
                        marginMillis,
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

    /** {@link Scripts#RENEW}: compare-and-{@code PEXPIRE}, followed by {@code WAIT} if replicas are required. */
    ScriptCalls.Reply renew(String lockName, String lockKey, String owner) {
        return calls.run(Scripts.RENEW, lockName, List.of(lockKey), List.of(owner, leaseMillis), true);
    }
}
