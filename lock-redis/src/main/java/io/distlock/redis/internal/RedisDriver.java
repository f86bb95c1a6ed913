package io.distlock.redis.internal;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.core.Owners;
import io.distlock.redis.core.RedisErrors;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.ScriptRunner;
import io.distlock.redis.core.Scripts;
import io.distlock.redis.core.Subscriber;
import io.distlock.spi.AcquireContext;
import io.distlock.spi.Contender;
import io.distlock.spi.Deadlines;
import io.distlock.spi.HeldLock;
import io.distlock.spi.LockDriver;
import io.distlock.spi.RenewalMode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The Redis driver: one Lua script per acquisition, release and renewal, waiting through the
 * provider's single {@link Subscriber}.
 */
public final class RedisDriver implements LockDriver, RedisInternals {
    private static final Logger log = LoggerFactory.getLogger(RedisDriver.class);
    private static final String BACKEND = "redis";
    private static final int STALE_RETRIES = 2;
    /** Wait cap while the subscription is not confirmed (degraded mode: polling). */
    private static final long UNCONFIRMED_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private static final long MIN_MARGIN_MS = 250;
    private static final long MAX_MARGIN_MS = 5_000;
    /** Longest registration asked for by a waiter without a deadline (it refreshes long before). */
    private static final long MAX_REGISTER_MS = TimeUnit.DAYS.toMillis(1);
    /** Drift allowance on a granted lease's start: 1 % of the time measured on the server clock. */
    private static final long GRANT_DRIFT_DIVISOR = 100;
    /** Constant part of the drift allowance (TIME granularity, scheduling of the script). */
    private static final long GRANT_DRIFT_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Most releases remembered for a replay after a failover (Sentinel). */
    private static final int MAX_REPLAYS = 1_000;

    private final UnifiedJedis client;
    private final boolean ownsClient;
    private final RedisLockOptions options;
    private final LockOptions lockOptions;
    private final RedisKeys keys;
    private final Capabilities capabilities;
    private final Subscriber subscriber;
    private final String leaseMillis;
    private final String counterTtlMillis;
    /** Whether waiters queue and releases hand the lock over (see {@link RedisLockOptions#handOff()}). */
    private final boolean queued;
    /** Queue-entry slack after the next planned retry of a waiter: {@code clamp(lease / 4, 250 ms, 5 s)}. */
    private final String marginMillis;

    /** Sentinel: the client that knows the current master (for failover detection); else null. */
    private final RedisSentinelClient sentinel;
    /** How long after a failover the queue scripts pass over entries from before it. */
    private final long purgeWindowNanos;
    /** The master of the last look, and the subscriber's connection losses counted then. */
    private volatile HostAndPort knownMaster;

    private long knownLosses; // guarded by this
    /** Whether a failover was seen (a lost connection, then another master), and when the loss was. */
    private volatile boolean failedOver;

    private volatile long failoverCutoff;
    /**
     * Owner values of waiting attempts whose contender the engine replaced after a failure (same
     * {@link AcquireContext}, weakly held): the next contender of the attempt keeps the value, so a
     * queue entry it may have left (also on a replica that is promoted meanwhile) is still its own.
     */
    private final Map<AcquireContext, String> carriedOwners = Collections.synchronizedMap(new WeakHashMap<>());

    private volatile boolean anyCarried;
    /**
     * Sentinel only: owner values released within the last lease (at most {@link #MAX_REPLAYS}):
     * this provider's own releases, and those named by the release messages its subscriber
     * received (other processes' releases of locks it waited for). A promoted replica that lagged
     * may still hold their keys; after a failover these releases are sent again (owner-only
     * compare-and-delete), so stale keys of holds that ended on the old master do not block
     * everyone until their TTL runs out — also when the process that held them cannot act (frozen).
     */
    private final ArrayDeque<Released> recentReleases = new ArrayDeque<>();

    private record Released(String channel, String owner, long at) {}

    private volatile boolean closed;

    private RedisDriver(UnifiedJedis client, boolean ownsClient, RedisLockOptions options, LockOptions lockOptions) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.options = options;
        this.lockOptions = lockOptions;
        this.keys = new RedisKeys(options.keyPrefix());
        this.capabilities = Capabilities.builder()
                .fencing(Capabilities.Fencing.MONOTONIC_PER_LOCK)
                .fencingSurvivesServerRestart(options.assumePersistence())
                .automaticRenewal(true)
                .wakeUp(Capabilities.WakeUp.NOTIFICATION)
                .fifo(false)
                .reentrant(false)
                .failover(Capabilities.Failover.MAY_GRANT_TWICE)
                .build();
        long lease = lockOptions.leaseTime().toMillis();
        this.leaseMillis = Long.toString(lease);
        long retention = options.counterRetention().toMillis();
        this.counterTtlMillis = Long.toString(Math.max(retention, Math.multiplyExact(lease, 10)));
        this.queued = options.handOff() && options.requiredReplicas() == 0;
        this.marginMillis = Long.toString(Math.max(MIN_MARGIN_MS, Math.min(MAX_MARGIN_MS, lease / 4)));
        this.subscriber = new Subscriber(client, options.keyPrefix(), lockOptions.ticker());
        this.sentinel = client instanceof RedisSentinelClient s ? s : null;
        this.knownMaster = sentinel == null ? null : sentinel.getCurrentMaster();
        // an entry written before the failover lives at most hint (≤ a lease) + margin after its
        // last refresh, which was before the lost connection
        this.purgeWindowNanos =
                TimeUnit.MILLISECONDS.toNanos(lease + Long.parseLong(marginMillis) + TimeUnit.SECONDS.toMillis(1));
    }

    /**
     * The queue scripts' purge argument: after this provider lost its connection to the master and
     * the Sentinel client then switched to another master (a failover), the promoted replica may
     * hold queue entries from before it, of waiters that have since been served or have left on the
     * old master (replication lags); for a while, tries and releases pass over entries not
     * refreshed since the connection was lost. 0 otherwise (standalone, Cluster, no failover, a
     * failover without a lost connection, where nothing was lost either).
     */
    private long purgeMillis(long now) {
        if (sentinel == null) {
            return 0;
        }
        HostAndPort m = sentinel.getCurrentMaster();
        if (m != knownMaster && noteMaster(m)) {
            replayReleases();
        }
        if (!failedOver) {
            return 0;
        }
        long since = now - failoverCutoff;
        if (since >= purgeWindowNanos || since < 0) {
            return 0;
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(since));
    }

    /** Returns true if {@code m} shows a failover that was not seen before. */
    private synchronized boolean noteMaster(HostAndPort m) {
        HostAndPort old = knownMaster;
        if (m == old) {
            return false;
        }
        if (m != null && m.equals(old)) {
            knownMaster = m; // the same address in a new object: not a failover, keep the loss count
            return false;
        }
        long losses = subscriber.losses();
        boolean failover = old != null && m != null && losses != knownLosses;
        if (failover) {
            failoverCutoff = subscriber.lastLossNanos();
            failedOver = true;
            log.debug("distlock.redis.failover_seen old_master={} new_master={}", old, m);
        }
        knownLosses = losses;
        knownMaster = m;
        return failover;
    }

    /** On the subscriber thread after each (re)connection (Sentinel): a failover seen then is acted on at once. */
    private void checkFailover() {
        HostAndPort m = sentinel.getCurrentMaster();
        if (m != knownMaster && noteMaster(m)) {
            replayReleases();
        }
    }

    private void remember(String channel, String owner) {
        long now = lockOptions.ticker().read();
        long window = lockOptions.leaseTime().toNanos();
        synchronized (recentReleases) {
            Released first;
            while ((first = recentReleases.peekFirst()) != null && now - first.at() > window) {
                recentReleases.pollFirst();
            }
            if (recentReleases.size() < MAX_REPLAYS) {
                recentReleases.addLast(new Released(channel, owner, now));
            }
        }
    }

    /** Sends the releases of the last lease again, to the new master (see {@link #recentReleases}). */
    private void replayReleases() {
        List<Released> replay;
        synchronized (recentReleases) {
            replay = new ArrayList<>(recentReleases);
            recentReleases.clear();
        }
        long now = lockOptions.ticker().read();
        long window = lockOptions.leaseTime().toNanos();
        java.util.Set<String> done = new java.util.HashSet<>();
        for (Released r : replay) {
            String suffix = ":released";
            if (closed
                    || now - r.at() > window
                    || !r.channel().endsWith(suffix)
                    || !done.add(r.channel() + ' ' + r.owner())) {
                continue;
            }
            String base = r.channel().substring(0, r.channel().length() - suffix.length());
            try {
                Reply reply = queued
                        ? run(
                                Scripts.RELEASE_QUEUED,
                                r.channel(),
                                List.of(base + ":lock", base + ":token", base + ":queue", base + ":waiters"),
                                List.of(r.owner(), r.channel(), counterTtlMillis, Long.toString(purgeMillis(now))),
                                false)
                        : run(
                                Scripts.RELEASE,
                                r.channel(),
                                List.of(base + ":lock"),
                                List.of(r.owner(), r.channel()),
                                false);
                log.debug(
                        "distlock.redis.release_replayed channel={} stale_key_deleted={}",
                        r.channel(),
                        ((Long) reply.value()) != 0L);
            } catch (RuntimeException e) {
                log.debug("distlock.redis.release_replay_failed channel={}", r.channel(), e);
            }
        }
    }

    /**
     * A driver on {@code client}, which it closes on {@link #close()} only if {@code ownsClient}.
     * Starts the subscriber thread.
     */
    public static RedisDriver create(
            UnifiedJedis client, boolean ownsClient, RedisLockOptions options, LockOptions lockOptions) {
        RedisDriver d = new RedisDriver(client, ownsClient, options, lockOptions);
        if (d.sentinel != null) {
            d.subscriber.onConnected(d::checkFailover);
            d.subscriber.onReleasedOwner(d::remember);
        }
        d.subscriber.start();
        return d;
    }

    @Override
    public RedisKeys keys() {
        return keys;
    }

    /** The Jedis client (for tests and fault hooks). */
    public UnifiedJedis client() {
        return client;
    }

    @Override
    public int subscribedChannels() {
        return subscriber.channelCount();
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public Capabilities capabilities() {
        return capabilities;
    }

    @Override
    public RenewalMode renewalMode() {
        return RenewalMode.WATCHDOG;
    }

    @Override
    public Contender contender(AcquireContext ctx) {
        return new RedisContender(ctx);
    }

    @Override
    public void close() {
        closed = true;
        try {
            subscriber.close();
        } finally {
            if (ownsClient) {
                client.close();
            }
        }
    }

    /** The outcome of one script call, with the number of replicas that acknowledged it. */
    private record Reply(Object value, long acks) {}

    /**
     * Runs {@code script}: EVALSHA, falling back to EVAL on NOSCRIPT. With {@code requiredReplicas >
     * 0}, pipelines {@code WAIT n timeout} behind it on the same connection.
     */
    private Reply run(
            Scripts.Script script, String lockName, List<String> keyList, List<String> args, boolean replicate) {
        // A pooled connection may have died while idle (server restart, proxy reset): such a failure
        // is retried on another connection, at most STALE_RETRIES times. Every script is idempotent
        // for its owner value, so a retry after a lost reply does no harm. Timeouts are not retried.
        for (int attempt = 0; ; attempt++) {
            try {
                return runOnce(script, lockName, keyList, args, replicate);
            } catch (BackendUnavailableException e) {
                if (attempt >= STALE_RETRIES || !RedisErrors.isStaleConnection(e.getCause())) {
                    throw e;
                }
                log.debug("distlock.redis.retry_on_new_connection lock={} attempt={}", lockName, attempt + 1);
            }
        }
    }

    /**
     * Releases {@code owner}'s hold, or its queue entry, with the queue script: hands the lock to the
     * first live queued waiter if {@code owner} held it (waiter leaving, or holder releasing).
     */
    private Reply releaseQueued(
            String lockName, List<String> queuedKeys, String owner, String channel, AcquireContext ctx) {
        return run(
                Scripts.RELEASE_QUEUED,
                lockName,
                queuedKeys,
                List.of(
                        owner,
                        channel,
                        counterTtlMillis,
                        Long.toString(purgeMillis(ctx.ticker().read()))),
                false);
    }

    private Reply runOnce(
            Scripts.Script script, String lockName, List<String> keyList, List<String> args, boolean replicate) {
        try {
            if (!replicate || options.requiredReplicas() == 0) {
                return new Reply(ScriptRunner.run(client, script, keyList, args), 0);
            }
            ScriptRunner.Replicated r = ScriptRunner.runAndWait(
                    client,
                    script,
                    keyList,
                    args,
                    options.requiredReplicas(),
                    options.replicaAckTimeout().toMillis());
            return new Reply(r.value(), r.acks());
        } catch (JedisException e) {
            Optional<String> problem = RedisErrors.configurationProblem(e);
            if (problem.isPresent()) {
                throw new LockConfigurationException(
                        "Redis refused the request for lock '" + lockName + "': " + problem.get(), BACKEND, e);
            }
            if (e instanceof JedisDataException) {
                throw new BackendUnavailableException(
                        "Redis rejected the lock script: " + e.getMessage(), lockName, BACKEND, e);
            }
            throw new BackendUnavailableException("Redis request failed: " + e.getMessage(), lockName, BACKEND, e);
        }
    }

    private final class RedisContender implements Contender {
        private final AcquireContext ctx;
        private final String name;
        private final String lockKey;
        private final String tokenKey;
        private final String channel;
        private final List<String> acquireKeys;
        private final List<String> queuedKeys; // null unless queued
        private Subscriber.Channel interest;
        private long seenEpoch;
        private long holderTtlNanos;
        // queued path: one owner value for every try of this attempt, so its queue entry and a
        // grant to it are recognised
        private final String owner;
        private Subscriber.Grant grant;
        private long waitDeadline;
        private boolean registered; // a queue entry may exist on the server
        private boolean timed; // lastSentAt / lastServerMicros hold a registration's times
        private long lastSentAt;
        private long lastServerMicros;

        RedisContender(AcquireContext ctx) {
            this.ctx = ctx;
            this.name = ctx.lockName();
            String tag = RedisKeys.tag(name); // encoded once per attempt, not once per key
            this.lockKey = keys.lockKeyOfTag(tag);
            this.tokenKey = keys.tokenKeyOfTag(tag);
            this.channel = keys.channelOfTag(tag);
            this.acquireKeys = List.of(lockKey, tokenKey);
            // the queue keys only where they are used: the queued (hand-off) path
            this.queuedKeys =
                    queued ? List.of(lockKey, tokenKey, keys.queueKeyOfTag(tag), keys.waitersKeyOfTag(tag)) : null;
            String carried = queued && anyCarried ? carriedOwners.remove(ctx) : null;
            this.owner = carried != null ? carried : queued ? Owners.newOwner() : null;
            // a carried owner's entry may still be queued: leaving must remove it
            this.registered = carried != null;
        }

        @Override
        public Optional<HeldLock> tryAcquire() {
            if (closed) {
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
            Reply reply = run(Scripts.ACQUIRE, name, acquireKeys, List.of(owner, leaseMillis, counterTtlMillis), true);
            List<?> result = (List<?>) reply.value();
            long flag = (Long) result.get(0);
            if (flag != 1) {
                holderTtlNanos = holderTtl((Long) result.get(1));
                return Optional.empty();
            }
            long token = Long.parseLong(String.valueOf(result.get(1)));
            Held held = new Held(ctx, owner, lockKey, channel, token, ctx.validUntil(sentAt), null);
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
            long purgeMillis = purgeMillis(sentAt);
            long registerMs = 0;
            if (grant != null) {
                registered = true; // before sending: a lost reply may still have queued us
                long left = waitDeadline == Deadlines.NEVER ? Long.MAX_VALUE : waitDeadline - sentAt;
                registerMs = left == Long.MAX_VALUE
                        ? MAX_REGISTER_MS
                        : Math.min(MAX_REGISTER_MS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left) + 1));
            }
            List<String> args = grant == null
                    ? List.of(
                            owner,
                            leaseMillis,
                            counterTtlMillis,
                            Long.toString(registerMs),
                            marginMillis,
                            Long.toString(purgeMillis))
                    // queueing: a grant is to be published on our subscriber's own channel only
                    : List.of(
                            owner,
                            leaseMillis,
                            counterTtlMillis,
                            Long.toString(registerMs),
                            marginMillis,
                            Long.toString(purgeMillis),
                            subscriber.grantChannel());
            Reply reply = run(Scripts.ACQUIRE_QUEUED, name, queuedKeys, args, false);
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
            Subscriber.Grant g = grant;
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
            Held held = new Held(ctx, owner, lockKey, channel, token, validUntil, queuedKeys);
            leave();
            return Optional.of(held);
        }

        @Override
        public void awaitChange(long deadlineNanos) throws InterruptedException {
            if (closed) {
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
                    Reply r;
                    try {
                        r = releaseQueued(name, queuedKeys, owner, channel, ctx);
                    } catch (RuntimeException e) {
                        // Our entry may still be queued (perhaps replicated to a replica about to be
                        // promoted). If the engine goes on with a new contender for this attempt, it
                        // keeps our owner value, so that entry (or a grant to it) stays ours.
                        carriedOwners.put(ctx, owner);
                        anyCarried = true;
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
            Subscriber.Grant g = grant;
            Subscriber.Channel i = interest;
            if (g != null || i != null) {
                grant = null;
                interest = null;
                subscriber.leave(i, g); // nothing left to do if our grant arrived (the subscriber dropped both)
            }
        }
    }

    private final class Held implements HeldLock {
        private final AcquireContext ctx;
        private final String owner;
        private final String lockKey;
        private final String channel;
        private final long token;
        private final List<String> queuedKeys; // null: the non-queued path
        private volatile long validUntil;

        Held(
                AcquireContext ctx,
                String owner,
                String lockKey,
                String channel,
                long token,
                long validUntil,
                List<String> queuedKeys) {
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
            Reply reply = run(Scripts.RENEW, ctx.lockName(), List.of(lockKey), List.of(owner, leaseMillis), true);
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
            if (deleted && sentinel != null) {
                remember(channel, owner);
            }
            return deleted;
        }

        boolean deleteIfOwner() {
            Reply reply = queuedKeys == null
                    ? run(Scripts.RELEASE, ctx.lockName(), List.of(lockKey), List.of(owner, channel), false)
                    : releaseQueued(ctx.lockName(), queuedKeys, owner, channel, ctx);
            boolean deleted = ((Long) reply.value()) != 0L;
            if (!deleted) {
                log.debug("distlock.redis.release_not_owner lock={}", ctx.lockName());
            }
            return deleted;
        }
    }
}
