package io.distlock.redis.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.redis.RedisLockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.HeldLock;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock this provider holds: renewed by compare-and-{@code PEXPIRE}, released by
 * compare-and-delete (plain path) or by the queue script, which hands the lock to the first live
 * queued waiter (queued path). Both only while the key holds this hold's owner value.
 */
final class RedisHeldLock implements HeldLock {
    private static final Logger log = LoggerFactory.getLogger(RedisHeldLock.class);
    private static final String BACKEND = "redis";

    private final RedisDriver driver;
    private final RedisLockOptions options;
    private final AcquireContext ctx;
    private final String owner;
    private final String lockKey;
    private final String channel;
    private final long token;
    private final List<String> queuedKeys; // null: the plain path
    private volatile long validUntil;

    RedisHeldLock(
            RedisDriver driver,
            AcquireContext ctx,
            String owner,
            String lockKey,
            String channel,
            long token,
            long validUntil,
            List<String> queuedKeys) {
        this.driver = driver;
        this.options = driver.options();
        this.ctx = ctx;
        this.queuedKeys = queuedKeys;
        this.owner = owner;
        this.lockKey = lockKey;
        this.channel = channel;
        this.token = token;
        this.validUntil = validUntil;
    }

    @Override
    public OptionalLong fencingToken() {
        return OptionalLong.of(token);
    }

    @Override
    public long validUntilNanos() {
        return validUntil;
    }

    @Override
    public boolean renew() {
        long sentAt = ctx.ticker().read();
        ScriptCalls.Reply reply = driver.scripts().renew(ctx.lockName(), lockKey, owner);
        if (((Long) reply.value()) != 1L) {
            return false;
        }
        if (options.requiredReplicas() > 0 && reply.acks() < options.requiredReplicas()) {
            // Extended on the master only: a failover now could bring back the old TTL. Keep the
            // old validity; the engine reports the lease lost if this persists past it.
            throw new BackendUnavailableException(
                    "only " + reply.acks() + " of " + options.requiredReplicas()
                            + " required replicas acknowledged the renewal",
                    ctx.lockName(),
                    BACKEND,
                    null);
        }
        validUntil = ctx.validUntil(sentAt);
        return true;
    }

    @Override
    public boolean release() {
        boolean deleted = deleteIfOwner();
        if (deleted) {
            driver.failover().remember(channel, owner);
        }
        return deleted;
    }

    /** Deletes the key (or hands the lock on) if it still holds our owner value; whether it did. */
    boolean deleteIfOwner() {
        ScriptCalls.Reply reply = queuedKeys == null
                ? driver.scripts().release(ctx.lockName(), lockKey, owner, channel)
                : driver.scripts()
                        .releaseQueued(
                                ctx.lockName(),
                                queuedKeys,
                                owner,
                                channel,
                                driver.failover().purgeMillis(ctx.ticker().read()));
        boolean deleted = ((Long) reply.value()) != 0L;
        if (!deleted) {
            log.debug("distlock.redis.release_not_owner lock={}", ctx.lockName());
        }
        return deleted;
    }
}
