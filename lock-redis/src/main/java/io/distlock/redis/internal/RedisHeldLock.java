package io.distlock.redis.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.redis.RedisLockOptions;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.HeldLock;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock this provider holds: renewed and extended by compare-and-{@code PEXPIRE}, released by
 * compare-and-delete (plain path) or by the queue script, which hands the lock to the first live
 * queued waiter (queued path), or left to expire after a delay by compare-and-{@code PEXPIRE}. All
 * only while the key holds this hold's owner value.
 *
 * <p>Requests that set the key's TTL (renewal, extension, delayed release) are sent one at a time
 * ({@link #ttlLock}): two of them in flight at once could reach the server in either order, and the
 * validity deadline must follow the TTL the server ends up with.
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
    /** Held while a request that sets the key's TTL is in flight. */
    final ReentrantLock ttlLock = new ReentrantLock();
    /** The lease time on the server: the attempt's, or the last extension's; guarded by ttlLock. */
    private Duration leaseTime;
    /** Whether the hold ended (released, or left to expire): no TTL is set any more. */
    private volatile boolean ended;

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
        this.leaseTime = ctx.leaseTime();
    }

    @Override
    public OptionalLong fencingToken() {
        return OptionalLong.of(token);
    }

    @Override
    public long validUntilNanos() {
        return validUntil;
    }

    String lockName() {
        return ctx.lockName();
    }

    String lockKey() {
        return lockKey;
    }

    String owner() {
        return owner;
    }

    @Override
    public boolean renew() {
        ttlLock.lock();
        try {
            if (ended) {
                return false;
            }
            return setTtl(leaseTime, "renewal");
        } finally {
            ttlLock.unlock();
        }
    }

    @Override
    public boolean extend(Duration newLeaseTime) {
        ttlLock.lock();
        try {
            if (ended) {
                return false;
            }
            return setTtl(newLeaseTime, "extension");
        } finally {
            ttlLock.unlock();
        }
    }

    /** Sets the key's TTL to {@code lease} if it holds our owner value; moves the validity. Holding ttlLock. */
    private boolean setTtl(Duration lease, String what) {
        long sentAt = ctx.ticker().read();
        ScriptCalls.Reply reply = driver.scripts().renew(ctx.lockName(), lockKey, owner, lease.toMillis());
        if (((Long) reply.value()) != 1L) {
            return false;
        }
        checkAcks(reply.acks(), what);
        leaseTime = lease;
        validUntil = validUntil(sentAt);
        return true;
    }

    /**
     * The validity deadline after a request that set the TTL to this hold's lease time, sent at
     * {@code sentAt}. Holding ttlLock.
     */
    private long validUntil(long sentAt) {
        return leaseTime.equals(ctx.leaseTime()) ? ctx.validUntil(sentAt) : ctx.validUntil(sentAt, leaseTime);
    }

    /** The lease time on the server (holding ttlLock). */
    Duration leaseTime() {
        return leaseTime;
    }

    /** Whether the hold ended. */
    boolean ended() {
        return ended;
    }

    /** A batched renewal set the TTL with a request sent at {@code sentAt} (holding ttlLock). */
    void renewed(long sentAt) {
        validUntil = validUntil(sentAt);
    }

    /**
     * Extended on the master only if fewer replicas than required acknowledged: a failover now could
     * bring back the old TTL. The validity stays; the engine reports the lease lost if this persists
     * past it.
     */
    void checkAcks(long acks, String what) {
        if (options.requiredReplicas() > 0 && acks < options.requiredReplicas()) {
            throw new BackendUnavailableException(
                    "only " + acks + " of " + options.requiredReplicas() + " required replicas acknowledged the "
                            + what,
                    ctx.lockName(),
                    BACKEND,
                    null);
        }
    }

    @Override
    public boolean releaseAfter(Duration delay) {
        ttlLock.lock();
        try {
            if (ended) {
                return false;
            }
            ended = true;
            long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(delay.toNanos() + 999_999));
            ScriptCalls.Reply reply = driver.scripts().releaseAfter(ctx.lockName(), lockKey, owner, millis, channel);
            boolean owned = ((Long) reply.value()) != 0L;
            if (!owned) {
                log.debug("distlock.redis.release_not_owner lock={}", ctx.lockName());
            }
            return owned;
        } finally {
            ttlLock.unlock();
        }
    }

    @Override
    public boolean release() {
        // no ttlLock: a renewal still in flight finds the key gone or another owner's, and changes
        // nothing
        ended = true;
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
