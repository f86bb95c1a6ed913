package io.distlock.redis.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.core.Grant;
import io.distlock.redis.core.Owners;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Subscriber;
import io.distlock.redis.core.Subscription;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition attempt on one lock: its tries (one script each) and its waits on the provider's
 * {@link Subscriber}. Two paths:
 *
 * <ul>
 *   <li>plain ({@code handOff} off, or {@code requiredReplicas > 0}): {@code ACQUIRE} with a new owner
 *       value per try; a failed try sleeps until a release message, the holder's TTL or the
 *       deadline;
 *   <li>queued (hand-off): one owner value for every try of the attempt; from its second try on the
 *       attempt is queued on the server, and a release may hand it the lock with a grant message,
 *       which it takes without a request of its own.
 * </ul>
 */
final class RedisContender implements Contender {
    private static final Logger log = LoggerFactory.getLogger(RedisContender.class);
    private static final String BACKEND = "redis";
    /** Wait cap while the subscription is not confirmed (degraded mode: polling). */
    private static final long UNCONFIRMED_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** Longest registration asked for by a waiter without a deadline (it refreshes long before). */
    private static final long MAX_REGISTER_MS = TimeUnit.DAYS.toMillis(1);
    /** Drift allowance on a granted lease's start: 1 % of the time measured on the server clock. */
    private static final long GRANT_DRIFT_DIVISOR = 100;
    /** Constant part of the drift allowance (TIME granularity, scheduling of the script). */
    private static final long GRANT_DRIFT_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final RedisDriver driver;
    private final RedisLockOptions options;
    private final Subscriber subscriber;
    private final LockScripts scripts;
    private final boolean queued;
    private final AcquireContext ctx;
    private final String name;
    private final String lockKey;
    private final String channel;
    private final List<String> acquireKeys;
    private final List<String> queuedKeys; // null unless queued
    /** The TTL of an acquisition: this attempt's lease time (a handle may have its own). */
    private final long leaseMillis;

    private Subscription interest;
    private long seenEpoch;
    private long holderTtlNanos;
    // queued path: one owner value for every try of this attempt, so its queue entry and a
    // grant to it are recognised
    private final String owner;
    private Grant grant;
    private long waitDeadline;
    private boolean registered; // a queue entry may exist on the server
    private boolean timed; // lastSentAt / lastServerMicros hold a registration's times
    private long lastSentAt;
    private long lastServerMicros;

    RedisContender(RedisDriver driver, AcquireContext ctx) {
        this.driver = driver;
        this.options = driver.options();
        this.subscriber = driver.subscriber();
        this.scripts = driver.scripts();
        this.queued = driver.queued();
        this.ctx = ctx;
        this.name = ctx.lockName();
        this.leaseMillis = ctx.leaseTime().toMillis();
        RedisKeys keys = driver.keys();
        String tag = RedisKeys.tag(name); // encoded once per attempt, not once per key
        this.lockKey = keys.lockKeyOfTag(tag);
        String tokenKey = keys.tokenKeyOfTag(tag);
        this.channel = keys.channelOfTag(tag);
        this.acquireKeys = List.of(lockKey, tokenKey);
        // the queue keys only where they are used: the queued (hand-off) path
        this.queuedKeys =
                queued ? List.of(lockKey, tokenKey, keys.queueKeyOfTag(tag), keys.waitersKeyOfTag(tag)) : null;
        String carried = queued ? driver.carriedOwners().take(ctx) : null;
        this.owner = carried != null ? carried : queued ? Owners.newOwner() : null;
        // a carried owner's entry may still be queued: leaving must remove it
        this.registered = carried != null;
    }

    @Override
    public Optional<HeldLock> tryAcquire() {
        if (driver.isClosed()) {
            throw new IllegalStateException("provider is closed (lock '" + name + "', backend redis)");
        }
        if (interest != null) {
            seenEpoch = subscriber.epoch(interest);
        }
        if (queued) {
            return tryQueued();
        }
        String owner = Owners.newOwner();
        long sentAt = ctx.ticker().read();
        ScriptCalls.Reply reply = scripts.acquire(name, acquireKeys, owner, leaseMillis);
        List<?> result = (List<?>) reply.value();
        long flag = (Long) result.get(0);
        if (flag != 1) {
            holderTtlNanos = holderTtl((Long) result.get(1));
            return Optional.empty();
        }
        long token = Long.parseLong(String.valueOf(result.get(1)));
        RedisHeldLock held =
                new RedisHeldLock(driver, ctx, owner, lockKey, channel, token, ctx.validUntil(sentAt), null);
        if (options.requiredReplicas() > 0 && reply.acks() < options.requiredReplicas()) {
            BackendUnavailableException failure = new BackendUnavailableException(
                    "only " + reply.acks() + " of " + options.requiredReplicas()
                            + " required replicas acknowledged the acquisition within "
                            + options.replicaAckTimeout() + "; it was undone",
                    name,
                    BACKEND,
                    null);
            try {
                held.deleteIfOwner();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
            throw failure;
        }
        leave();
        return Optional.of(held);
    }

    private long holderTtl(long pttl) {
        // -1: key without TTL (set by someone else); -2: gone meanwhile. Retry after a lease at most.
        return pttl >= 0
                ? TimeUnit.MILLISECONDS.toNanos(pttl + 1)
                : ctx.leaseTime().toNanos();
    }

    /**
     * The queued path: a grant that arrived needs no round trip; otherwise one script call that
     * acquires, finds the lock already handed to us, or (once this attempt waits) queues us.
     */
    private Optional<HeldLock> tryQueued() {
        Optional<HeldLock> granted = takeGrant();
        if (granted.isPresent()) {
            return granted;
        }
        long sentAt = ctx.ticker().read();
        long purgeMillis = driver.failover().purgeMillis(sentAt);
        long registerMs = 0;
        if (grant != null) {
            registered = true; // before sending: a lost reply may still have queued us
            long left = waitDeadline == Deadlines.NEVER ? Long.MAX_VALUE : waitDeadline - sentAt;
            registerMs = left == Long.MAX_VALUE
                    ? MAX_REGISTER_MS
                    : Math.min(MAX_REGISTER_MS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left) + 1));
        }
        // queueing: a grant is to be published on our subscriber's own channel only
        ScriptCalls.Reply reply = scripts.acquireQueued(
                name,
                queuedKeys,
                owner,
                leaseMillis,
                registerMs,
                purgeMillis,
                grant == null ? null : subscriber.grantChannel());
        List<?> result = (List<?>) reply.value();
        long flag = (Long) result.get(0);
        if (flag == 1) {
            long token = Long.parseLong(String.valueOf(result.get(1)));
            return won(token, ctx.validUntil(sentAt));
        }
        if (flag == 2) {
            // handed to us by a release whose message we did not get (yet): the key was set
            // before this request, so validity counts from its remaining TTL, not from the lease
            long token = Long.parseLong(String.valueOf(result.get(1)));
            long pttl = (Long) result.get(2);
            long validUntil = pttl > 0
                    ? Deadlines.after(
                            sentAt,
                            TimeUnit.MILLISECONDS.toNanos(pttl)
                                    - ctx.options().safetyMargin().toNanos())
                    : sentAt;
            return won(token, validUntil);
        }
        holderTtlNanos = holderTtl((Long) result.get(1));
        if (registerMs > 0) {
            timed = true;
            lastSentAt = sentAt;
            lastServerMicros = Long.parseLong(String.valueOf(result.get(2)));
        }
        // a grant published after our script ran may already be here
        return takeGrant();
    }

    private Optional<HeldLock> takeGrant() {
        Grant g = grant;
        if (g == null || !timed || !g.arrived()) {
            return Optional.empty();
        }
        // Lease start: our last registration was sent at lastSentAt (local) and ran at
        // lastServerMicros (server); the grant ran (serverMicros - lastServerMicros) later on the
        // server clock. If that clock runs at our rate (slewing is fine, a step is not), the grant
        // happened no earlier than lastSentAt + that difference; minus a drift allowance, and
        // never after now (we have the message), this is a lower bound of the grant's time.
        long elapsedNanos = TimeUnit.MICROSECONDS.toNanos(g.serverMicros() - lastServerMicros);
        long drift = Math.abs(elapsedNanos) / GRANT_DRIFT_DIVISOR + GRANT_DRIFT_MIN_NANOS;
        long start = lastSentAt + elapsedNanos - drift;
        long now = ctx.ticker().read();
        if (start - now > 0) {
            start = now;
        }
        return won(g.token(), ctx.validUntil(start));
    }

    private Optional<HeldLock> won(long token, long validUntil) {
        RedisHeldLock held = new RedisHeldLock(driver, ctx, owner, lockKey, channel, token, validUntil, queuedKeys);
        leave();
        return Optional.of(held);
    }

    @Override
    public void awaitChange(long deadlineNanos) throws InterruptedException {
        if (driver.isClosed()) {
            return;
        }
        long now = ctx.ticker().read();
        waitDeadline = deadlineNanos;
        if (grant != null && subscriber.dropped(grant)) {
            // our grant arrived, and the subscriber dropped our interest with it
            if (timed) {
                return; // the engine's next try takes the grant without a request
            }
            // not usable without a registration's times (a carried owner value's grant, which
            // the next try finds as ours on the server): register again
            grant = null;
            interest = null;
        }
        if (interest == null) {
            // Subscribe, wait for the server's confirmation, and return at once so the engine
            // tries again: a release between our failed try and the subscription is not missed.
            // On the queued path that next try queues us; the mailbox for our grant is set up
            // before, so a grant right after the queueing script is not missed either.
            interest = subscriber.register(channel);
            if (queued) {
                grant = subscriber.expectGrant(interest, owner);
            }
            long confirmBy = Math.min(
                    deadlineNanos,
                    Deadlines.after(now, options.timeouts().requestTimeout().toNanos()));
            subscriber.awaitConfirmed(interest, confirmBy);
            return;
        }
        long wait = holderTtlNanos;
        if (!subscriber.isConfirmed(interest)) {
            wait = Math.min(wait, UNCONFIRMED_POLL_NANOS);
        }
        long until = Math.min(deadlineNanos, Deadlines.after(now, wait));
        if (grant != null) {
            subscriber.awaitGrant(interest, grant, seenEpoch, until);
        } else {
            subscriber.awaitWakeUp(interest, seenEpoch, until);
        }
    }

    @Override
    public void abandon() {
        try {
            if (registered) {
                // Leave the queue; if a release handed us the lock meanwhile, hand it on.
                ScriptCalls.Reply r;
                try {
                    r = scripts.releaseQueued(
                            name,
                            queuedKeys,
                            owner,
                            channel,
                            driver.failover().purgeMillis(ctx.ticker().read()));
                } catch (RuntimeException e) {
                    // Our entry may still be queued (perhaps replicated to a replica about to be
                    // promoted). If the engine goes on with a new contender for this attempt, it
                    // keeps our owner value, so that entry (or a grant to it) stays ours.
                    driver.carriedOwners().carry(ctx, owner);
                    log.debug("distlock.redis.owner_carried lock={}", name);
                    throw e;
                }
                registered = false;
                if (((Long) r.value()) != 0L) {
                    log.debug("distlock.redis.grant_handed_on lock={}", name);
                }
            }
        } finally {
            leave();
        }
    }

    private void leave() {
        Grant g = grant;
        Subscription i = interest;
        if (g != null || i != null) {
            grant = null;
            interest = null;
            subscriber.leave(i, g); // nothing left to do if our grant arrived (the subscriber dropped both)
        }
    }
}
