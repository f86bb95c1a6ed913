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
    private Jedis bare;
    private long bareOwners;
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
    private static final String HANDOFF_CHANNEL = "distlock-compare-handoff-floor";

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public void start() {
        server = RedisServer.start();
        stats = new Jedis(server.host(), server.port());
        ping = new Jedis(server.host(), server.port());
        bare = new Jedis(server.host(), server.port());
        bare.scriptLoad(Scripts.ACQUIRE_QUEUED.text());
        bare.scriptLoad(Scripts.RELEASE_QUEUED.text());
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

    /**
     * One hand-off floor sample, in nanoseconds, after {@code idleNanos} idle before the publish:
     * A's {@code PUBLISH} → B's subscriber thread has the message, plus one {@code PING} by B.
     */
    private synchronized long handoffFloor(long idleNanos) {
        try {
            if (handoffSubscriber == null) {
                handoffPublisher = new Jedis(server.host(), server.port());
                handoffPing = new Jedis(server.host(), server.port());
                Jedis subscriber = new Jedis(server.host(), server.port());
                handoffSubscriber = new Thread(
                        () -> {
                            try (subscriber) {
                                subscriber.subscribe(handoffPubSub, HANDOFF_CHANNEL);
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
            handoffPublisher.getConnection().sendCommand(Protocol.Command.PUBLISH, HANDOFF_CHANNEL, "r");
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

    private static final RedisKeys BARE_KEYS = new RedisKeys("distlock-compare-bare");
    private static final List<String> BARE_KEY_LIST = List.of(
            BARE_KEYS.lockKey("l"), BARE_KEYS.tokenKey("l"), BARE_KEYS.queueKey("l"), BARE_KEYS.waitersKey("l"));

    /**
     * The bare requests: an uncontended acquire ({@code ACQUIRE_QUEUED}: 10 s lease, the counter's
     * default retention, a single try) and its release ({@code RELEASE_QUEUED}), as lock-redis sends
     * them, on a dedicated connection.
     */
    private synchronized void bareRequests() {
        String owner = String.format("%032x", ++bareOwners);
        Object granted = bare.evalsha(
                Scripts.ACQUIRE_QUEUED.sha(), BARE_KEY_LIST, List.of(owner, "10000", "604800000", "0", "2500", "0"));
        if (!(granted instanceof List<?> l) || !Long.valueOf(1).equals(l.get(0))) {
            throw new IllegalStateException("bare acquire not granted: " + granted);
        }
        Object released = bare.evalsha(
                Scripts.RELEASE_QUEUED.sha(), BARE_KEY_LIST, List.of(owner, BARE_KEYS.channel("l"), "604800000", "0"));
        if (!Long.valueOf(1).equals(released)) {
            throw new IllegalStateException("bare release answered " + released);
        }
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version = Probes.redisVersion(stats.info("server"));
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("redis", server.uri() + "?leaseTime=10s")
                .withFloor(this::ping, 2)
                .withExtraFloor("bare_requests_floor", this::bareRequests)
                .withHandoffFloor(this::handoffFloor)
                .withServerRequests(counter(this::commands))
                .withServerVersion(version));
        if (peers) {
            String host = server.host();
            int port = server.port();
            out.add(ComparisonTarget.of("redisson RLock", "redis", () -> new RedissonLockClient(host, port))
                    .withFloor(this::ping, 2)
                    .withHandoffFloor(this::handoffFloor)
                    .withServerRequests(counter(this::commands))
                    .withServerVersion(version)
                    .asPeer());
            out.add(ComparisonTarget.of("SETNX + 1 s sleep", "redis", () -> new SetnxSleepLockClient(host, port))
                    .withFloor(this::ping, 2)
                    .withServerRequests(counter(this::commands))
                    .withServerVersion(version)
                    .asPeer());
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return "redis-server " + server.address() + " (--save \"\" --appendonly no)";
    }

    @Override
    public void close() {
        if (stats != null) {
            stats.close();
        }
        if (ping != null) {
            ping.close();
        }
        if (bare != null) {
            bare.close();
        }
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
        if (server != null) {
            server.close();
        }
    }
}
