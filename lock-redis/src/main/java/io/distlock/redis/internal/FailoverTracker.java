package io.distlock.redis.internal;

import io.distlock.Ticker;
import io.distlock.redis.core.Subscriber;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisSentinelClient;

/**
 * What a provider on a Sentinel-monitored master does about failovers: it notices one (its
 * subscriber lost its connection to the master, then the Sentinel client names another), and then
 *
 * <ul>
 *   <li>for a while, its queue scripts pass over queue entries not refreshed since the connection was
 *       lost ({@link #purgeMillis}): the promoted replica may hold entries of waiters that were
 *       served or left on the old master while replication lagged;
 *   <li>it sends the releases of the last lease again ({@link #remember}): a promoted replica that
 *       lagged may still hold the keys of holds that ended on the old master, which would block
 *       everyone until their TTL runs out — also when the process that held them cannot act.
 * </ul>
 *
 * Without Sentinel (standalone, Cluster, a client given by the caller that is not a {@link
 * RedisSentinelClient}) it does nothing.
 */
final class FailoverTracker {
    private static final Logger log = LoggerFactory.getLogger(FailoverTracker.class);
    /** Most releases remembered for a replay after a failover. */
    private static final int MAX_REPLAYS = 1_000;

    /** The client that knows the current master; null without Sentinel. */
    private final RedisSentinelClient sentinel;

    private final Subscriber subscriber;
    private final Ticker ticker;
    private final long leaseNanos;
    /** How long after a failover the queue scripts pass over entries from before it. */
    private final long purgeWindowNanos;

    private final LockScripts scripts;
    private final boolean queued;
    private final BooleanSupplier closed;
    /** The master of the last look, and the subscriber's connection losses counted then. */
    private volatile HostAndPort knownMaster;

    private long knownLosses; // guarded by this
    /** Whether a failover was seen (a lost connection, then another master), and when the loss was. */
    private volatile boolean failedOver;

    private volatile long failoverCutoff;
    /**
     * Owner values released within the last lease (at most {@link #MAX_REPLAYS}): this provider's own
     * releases, and those named by the release messages its subscriber received (other processes'
     * releases of locks it waited for).
     */
    private final ArrayDeque<Released> recentReleases = new ArrayDeque<>();

    private record Released(String channel, String owner, long at) {}

    /**
     * @param purgeWindowNanos how long after a failover entries from before it are passed over
     * @param queued whether releases go through the queue script (hand-off on)
     * @param closed whether the provider is closed (no replay then)
     */
    FailoverTracker(
            RedisSentinelClient sentinel,
            Subscriber subscriber,
            Ticker ticker,
            long leaseNanos,
            long purgeWindowNanos,
            LockScripts scripts,
            boolean queued,
            BooleanSupplier closed) {
        this.sentinel = sentinel;
        this.subscriber = subscriber;
        this.ticker = ticker;
        this.leaseNanos = leaseNanos;
        this.purgeWindowNanos = purgeWindowNanos;
        this.scripts = scripts;
        this.queued = queued;
        this.closed = closed;
        this.knownMaster = sentinel == null ? null : sentinel.getCurrentMaster();
    }

    /** Whether it tracks anything (a Sentinel deployment). */
    boolean active() {
        return sentinel != null;
    }

    /**
     * Listens to the subscriber: after each (re)connection a failover seen then is acted on at once;
     * every released owner value a release message names is remembered. Call before the subscriber
     * starts.
     */
    void attach() {
        if (sentinel != null) {
            subscriber.onConnected(this::checkFailover);
            subscriber.onReleasedOwner(this::remember);
        }
    }

    /**
     * The queue scripts' purge argument: after this provider lost its connection to the master and
     * the Sentinel client then switched to another master (a failover), the promoted replica may
     * hold queue entries from before it, of waiters that have since been served or have left on the
     * old master (replication lags); for a while, tries and releases pass over entries not
     * refreshed since the connection was lost. 0 otherwise (standalone, Cluster, no failover, a
     * failover without a lost connection, where nothing was lost either).
     */
    long purgeMillis(long now) {
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

    /** On the subscriber thread after each (re)connection: a failover seen then is acted on at once. */
    private void checkFailover() {
        HostAndPort m = sentinel.getCurrentMaster();
        if (m != knownMaster && noteMaster(m)) {
            replayReleases();
        }
    }

    /** Remembers that {@code owner}'s hold of the lock with release channel {@code channel} ended. */
    void remember(String channel, String owner) {
        if (sentinel == null) {
            return;
        }
        long now = ticker.read();
        synchronized (recentReleases) {
            Released first;
            while ((first = recentReleases.peekFirst()) != null && now - first.at() > leaseNanos) {
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
        long now = ticker.read();
        Set<String> done = new HashSet<>();
        for (Released r : replay) {
            String suffix = ":released";
            if (closed.getAsBoolean()
                    || now - r.at() > leaseNanos
                    || !r.channel().endsWith(suffix)
                    || !done.add(r.channel() + ' ' + r.owner())) {
                continue;
            }
            String base = r.channel().substring(0, r.channel().length() - suffix.length());
            try {
                ScriptCalls.Reply reply = queued
                        ? scripts.releaseQueued(
                                r.channel(),
                                List.of(base + ":lock", base + ":token", base + ":queue", base + ":waiters"),
                                r.owner(),
                                r.channel(),
                                purgeMillis(now))
                        : scripts.release(r.channel(), base + ":lock", r.owner(), r.channel());
                log.debug(
                        "distlock.redis.release_replayed channel={} stale_key_deleted={}",
                        r.channel(),
                        ((Long) reply.value()) != 0L);
            } catch (RuntimeException e) {
                log.debug("distlock.redis.release_replay_failed channel={}", r.channel(), e);
            }
        }
    }
}
