package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.cli.peers.RedissonLockClient;
import io.distlock.compare.cli.peers.SetnxSleepLockClient;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Scripts;
import io.distlock.testing.servers.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Protocol;

/**
 * Redis: distlock's lock-redis, Redisson's RLock and the hand-rolled SETNX + 1 s sleep lock, all on one
 * redis-server ({@code --save "" --appendonly no}). Round trips are counted from the server's
 * {@code total_reads_processed}.
 *
 * <p>Two floors, interleaved with the uncontended run: two {@code PING}s (the round-trip floor), and
 * the bare requests ({@code bare_requests_floor_p50_us}): the two scripts lock-redis sends for an
 * uncontended acquire+release in its default mode ({@code ACQUIRE_QUEUED}, {@code RELEASE_QUEUED}),
 * by {@code EVALSHA} on a connection of their own, with nothing of the library around them. What the
 * server spends running the scripts shows as the bare requests over two {@code PING}s; what the
 * client adds, as ours over the bare requests.
 *
 * <p>Hand-off floor ({@code handoff_floor_p50_us}, next to the hand-off scenarios, as for etcd and
 * ZooKeeper): client A {@code PUBLISH}es on a channel to which client B's subscriber connection
 * (a thread of its own, as a waiter's provider has) is subscribed; the time from A's call to B's
 * subscriber thread receiving the message, plus one {@code PING} by B. The least a waiter that is
 * told of a release and confirms once can need (lock-redis's waiter is granted the lock by the
 * release itself and needs no confirmation, so it can beat it).
 */
final class RedisBackend extends ServerBackend {
    private RedisServer server;
    private Jedis stats;
    private Jedis ping;
    private Jedis delayedPing;
    private Jedis bare;
    private long bareOwners;
    private RedisKeys bareKeys;
    private Jedis handoffPublisher;
    private Jedis handoffPing;
    private Thread handoffSubscriber;
    private final JedisPubSub handoffPubSub = new JedisPubSub() {
        @Override
        public void onMessage(String channel, String message) {
            handoffsSeen.add(System.nanoTime());
        }

        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            handoffSubscribed.countDown();
        }
    };
    private final BlockingQueue<Long> handoffsSeen = new LinkedBlockingQueue<>();
    private final CountDownLatch handoffSubscribed = new CountDownLatch(1);
    private String cleanedUp;

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public void start(ServerAddress theirs, RunPrefix runPrefix, boolean delayLine) {
        use(
                theirs,
                () -> {
                    server = RedisServer.start();
                    return new ServerAddress("redis", List.of(server.address()), null, null, "");
                },
                runPrefix,
                delayLine);
        stats = RedisNodes.connect(address, 0);
        ping = RedisNodes.connect(address, 0);
        if (line != null) {
            delayedPing = RedisNodes.connect(line.route(address), 0);
        }
        bare = RedisNodes.connect(address, 0);
        bare.scriptLoad(Scripts.ACQUIRE_QUEUED.text());
        bare.scriptLoad(Scripts.RELEASE_QUEUED.text());
        bareKeys = new RedisKeys(prefix.name() + ":bare");
    }

    private String handoffChannel() {
        return prefix.name() + ":handoff-floor";
    }

    private long statsReads;

    /**
     * Requests the server has read from clients ({@code total_reads_processed}), not counting the
     * reads of this counter itself. On persistent, unpipelined connections one read is one request,
     * i.e. one round trip; commandstats would also count the commands a Lua script runs inside.
     */
    private synchronized long commands() {
        long reads = Probes.field(stats.info("stats"), "total_reads_processed");
        return reads - (++statsReads);
    }

    private synchronized void ping() {
        ping.ping();
    }

    private synchronized void delayedPing() {
        delayedPing.ping();
    }

    /**
     * One hand-off floor sample, in nanoseconds, after {@code idleNanos} idle before the publish:
     * A's {@code PUBLISH} → B's subscriber thread has the message, plus one {@code PING} by B.
     */
    private synchronized long handoffFloor(long idleNanos) {
        try {
            if (handoffSubscriber == null) {
                handoffPublisher = RedisNodes.connect(address, 0);
                handoffPing = RedisNodes.connect(address, 0);
                Jedis subscriber = RedisNodes.connect(address, 0);
                handoffSubscriber = new Thread(
                        () -> {
                            try (subscriber) {
                                subscriber.subscribe(handoffPubSub, handoffChannel());
                            }
                        },
                        "distlock-compare-redis-handoff-floor");
                handoffSubscriber.setDaemon(true);
                handoffSubscriber.start();
                if (!handoffSubscribed.await(5, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("hand-off floor: not subscribed");
                }
            }
            handoffsSeen.clear();
            if (idleNanos > 0) {
                LockSupport.parkNanos(idleNanos); // as a holder holds
            }
            long t0 = System.nanoTime();
            handoffPublisher.getConnection().sendCommand(Protocol.Command.PUBLISH, handoffChannel(), "r");
            handoffPublisher.getConnection().getMany(0); // flushes, reads nothing: A does not wait for its reply
            Long at = handoffsSeen.poll(5, TimeUnit.SECONDS);
            if (at == null) {
                throw new IllegalStateException("hand-off floor: no message");
            }
            long t1 = System.nanoTime();
            handoffPing.ping();
            long t2 = System.nanoTime();
            Object receivers = handoffPublisher.getConnection().getOne();
            if (!Long.valueOf(1).equals(receivers)) {
                throw new IllegalStateException("hand-off floor: PUBLISH reached " + receivers + " subscribers");
            }
            return (at - t0) + (t2 - t1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("hand-off floor interrupted", e);
        }
    }

    /**
     * The bare requests: an uncontended acquire ({@code ACQUIRE_QUEUED}: 10 s lease, the counter's
     * default retention, a single try) and its release ({@code RELEASE_QUEUED}), as lock-redis sends
     * them, on a dedicated connection.
     */
    private synchronized void bareRequests() {
        String owner = String.format("%032x", ++bareOwners);
        List<String> keys = List.of(
                bareKeys.lockKey("l"), bareKeys.tokenKey("l"), bareKeys.queueKey("l"), bareKeys.waitersKey("l"));
        Object granted = bare.evalsha(
                Scripts.ACQUIRE_QUEUED.sha(), keys, List.of(owner, "10000", "604800000", "0", "2500", "0"));
        if (!(granted instanceof List<?> l) || !Long.valueOf(1).equals(l.get(0))) {
            throw new IllegalStateException("bare acquire not granted: " + granted);
        }
        Object released = bare.evalsha(
                Scripts.RELEASE_QUEUED.sha(), keys, List.of(owner, bareKeys.channel("l"), "604800000", "0"));
        if (!Long.valueOf(1).equals(released)) {
            throw new IllegalStateException("bare release answered " + released);
        }
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version = Probes.redisVersion(stats.info("server"));
        List<ComparisonTarget> direct = at(address, this::ping, peers, version);
        direct.set(
                0,
                direct.get(0)
                        .withExtraFloor("bare_requests_floor", this::bareRequests)
                        .withHandoffFloor(this::handoffFloor));
        if (direct.size() > 1) {
            direct.set(1, direct.get(1).withHandoffFloor(this::handoffFloor));
        }
        return paired(direct, () -> at(line.route(address), this::delayedPing, peers, version));
    }

    /** Our target and the peers, their clients connecting to {@code a}, with {@code floor} as the round trip. */
    private List<ComparisonTarget> at(ServerAddress a, Runnable floor, boolean peers, String version) {
        String keyPrefix = prefix.name();
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours(
                        "redis",
                        "redis://" + a.userInfo() + a.nodes().get(0) + RedisNodes.databasePath(a)
                                + "?leaseTime=10s&keyPrefix=" + keyPrefix)
                .withFloor(floor, 2)
                .withServerRequests(counter(this::commands))
                .withServerConnections(connections())
                .withServerVersion(version));
        if (peers) {
            out.add(ComparisonTarget.of(
                            "redisson RLock",
                            "redis",
                            () -> new RedissonLockClient(
                                    a.nodes().get(0), a.user(), a.password(), RedisNodes.database(a), keyPrefix))
                    .withFloor(floor, 2)
                    .withServerRequests(counter(this::commands))
                    .withServerConnections(connections())
                    .withServerVersion(version)
                    .asPeer());
            out.add(ComparisonTarget.of(
                            "SETNX + 1 s sleep",
                            "redis",
                            () -> new SetnxSleepLockClient(RedisNodes.connect(a, 0), keyPrefix))
                    .withFloor(floor, 2)
                    .withServerRequests(counter(this::commands))
                    .withServerConnections(connections())
                    .withServerVersion(version)
                    .asPeer());
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return where("redis-server " + address.describe() + " (--save \"\" --appendonly no)");
    }

    /** Deletes every key under the run's prefix ({@code SCAN} + {@code UNLINK}) and scans again. */
    @Override
    public synchronized String cleanUp() {
        if (cleanedUp == null && stats != null) {
            long[] r = RedisNodes.removeKeys(stats, prefix.name());
            cleanedUp = RedisBackend.cleanupReport(address.nodes().get(0), prefix.name(), r);
        }
        return cleanedUp == null ? "nothing created" : cleanedUp;
    }

    /** "… removed N keys matching P:* (lock keys, fencing counters, …); none left". */
    static String cleanupReport(String node, String keyPrefix, long[] removedAndLeft) {
        return node + ": removed " + removedAndLeft[0] + " keys matching " + keyPrefix
                + ":* (distlock's fencing counters, any lock or queue key left, the peers' lock keys); "
                + (removedAndLeft[1] == 0 ? "none left" : removedAndLeft[1] + " LEFT");
    }

    @Override
    public void close() {
        List<Jedis> open = new ArrayList<>();
        for (Jedis j : new Jedis[] {stats, ping, delayedPing, bare}) {
            if (j != null) {
                open.add(j);
            }
        }
        RedisNodes.closeAll(open);
        if (handoffSubscriber != null) {
            handoffPubSub.unsubscribe();
            try {
                handoffSubscriber.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            handoffPublisher.close();
            handoffPing.close();
        }
        closeLine();
        if (server != null) {
            server.close();
        }
    }
}
