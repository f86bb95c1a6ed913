package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.Scenario;
import io.distlock.compare.cli.peers.RedissonRedLockClient;
import io.distlock.redis.core.RedisKeys;
import io.distlock.redis.core.Scripts;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Redlock: distlock's lock-redlock over five independent redis-server masters, next to Redisson's
 * RedissonRedLock. The floor is one PING to all five at once, written by the calling thread to
 * every node before it reads any reply (no thread hop: the cheapest a round can be); acquire with
 * fencing takes one such round while the nodes' counters are in step (two otherwise) and release
 * one, so the protocol floor is two. Requests are the sum of the nodes' {@code
 * total_reads_processed} (one per request on persistent connections).
 *
 * <p>The bare requests ({@code bare_requests_floor_p50_us}, interleaved like the floor): the two
 * rounds of lock-redlock's uncontended acquire+release with its own scripts ({@code REDLOCK_ACQUIRE}
 * to all five nodes, then {@code RELEASE} to all five), written the same way as the floor's
 * {@code PING}s, on connections of their own, with no library code around them.
 */
final class RedlockBackend extends ServerBackend {
    static final int NODES = 5;

    private RedisServers servers;
    private final List<Jedis> stats = new ArrayList<>();
    private final List<Jedis> pings = new ArrayList<>();
    private final List<Jedis> delayedPings = new ArrayList<>();
    private final List<Jedis> bare = new ArrayList<>();
    private long bareOwners;
    private RedisKeys bareKeys;
    private String cleanedUp;

    @Override
    public String name() {
        return "redlock";
    }

    @Override
    public void start(ServerAddress theirs, RunPrefix runPrefix, boolean delayLine) {
        use(
                theirs,
                () -> {
                    servers = RedisServers.independentMasters(NODES);
                    return new ServerAddress(
                            "redlock",
                            servers.servers().stream().map(RedisServer::address).toList(),
                            null,
                            null,
                            "");
                },
                runPrefix,
                delayLine);
        bareKeys = new RedisKeys(prefix.name() + ":bare");
        for (int i = 0; i < address.nodes().size(); i++) {
            stats.add(RedisNodes.connect(address, i));
            pings.add(RedisNodes.connect(address, i));
            if (line != null) {
                delayedPings.add(RedisNodes.connect(line.route(address), i));
            }
            Jedis b = RedisNodes.connect(address, i);
            b.scriptLoad(Scripts.REDLOCK_ACQUIRE.text());
            b.scriptLoad(Scripts.RELEASE.text());
            bare.add(b);
        }
    }

    private long statsReads;

    /**
     * Parallel rounds: requests read by all nodes ({@code total_reads_processed}, minus these counter
     * reads) divided by the number of nodes, so that one round to every node counts as one.
     */
    private synchronized long commands() {
        long total = 0;
        for (Jedis j : stats) {
            total += Probes.field(j.info("stats"), "total_reads_processed");
        }
        statsReads++;
        return (total - statsReads * stats.size()) / stats.size();
    }

    /**
     * One PING to every node at once: written to all five connections first, then the replies read,
     * from the calling thread. What one Redlock round costs at best (no thread hop per node).
     */
    private synchronized void parallelPing() {
        checkPongs(round(pings, Protocol.Command.PING));
    }

    private synchronized void delayedParallelPing() {
        checkPongs(round(delayedPings, Protocol.Command.PING));
    }

    private static void checkPongs(List<Object> replies) {
        for (Object reply : replies) {
            String pong = reply instanceof byte[] b ? SafeEncoder.encode(b) : String.valueOf(reply);
            if (!"PONG".equals(pong)) {
                throw new IllegalStateException("PING answered " + pong);
            }
        }
    }

    /** The bare requests: round 1 (grant + counter) and the release round, each to all nodes at once. */
    private synchronized void bareRounds() {
        String owner = String.format("%032x", ++bareOwners);
        for (Object reply : round(
                bare,
                Protocol.Command.EVALSHA,
                Scripts.REDLOCK_ACQUIRE.sha(),
                "2",
                bareKeys.lockKey("l"),
                bareKeys.tokenKey("l"),
                owner,
                "10000")) {
            if (!(reply instanceof List<?> l) || !Long.valueOf(1).equals(l.get(0))) {
                throw new IllegalStateException("bare round 1 not granted: " + reply);
            }
        }
        for (Object reply : round(
                bare,
                Protocol.Command.EVALSHA,
                Scripts.RELEASE.sha(),
                "1",
                bareKeys.lockKey("l"),
                owner,
                bareKeys.channel("l"))) {
            if (!Long.valueOf(1).equals(reply)) {
                throw new IllegalStateException("bare release answered " + reply);
            }
        }
    }

    /**
     * One round: {@code command args…} written to every connection of {@code nodes} before any
     * reply is read, then the replies in node order (the calling thread does both: no thread hop).
     */
    private static List<Object> round(List<Jedis> nodes, Protocol.Command command, String... args) {
        for (Jedis j : nodes) {
            j.getConnection().sendCommand(command, args);
            j.getConnection().getMany(0); // flushes, reads nothing
        }
        List<Object> replies = new ArrayList<>(nodes.size());
        for (Jedis j : nodes) {
            replies.add(j.getConnection().getOne());
        }
        return replies;
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version = address.nodes().size() + " x redis "
                + Probes.redisVersion(stats.get(0).info("server"));
        List<ComparisonTarget> direct = at(address, this::parallelPing, peers, version);
        direct.set(0, direct.get(0).withExtraFloor("bare_requests_floor", this::bareRounds));
        if (direct.size() > 1) {
            // five Redisson clients per waiter: 1,000 waiters would be 5,000 Redisson instances
            direct.set(
                    1,
                    direct.get(1)
                            .withLimit(
                                    Scenario.HANDOFF_MANY,
                                    50,
                                    "RedissonRedLock needs a Redisson client per node and waiter"));
        }
        return paired(direct, () -> at(line.route(address), this::delayedParallelPing, peers, version));
    }

    private List<ComparisonTarget> at(ServerAddress a, Runnable floor, boolean peers, String version) {
        String keyPrefix = prefix.name();
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours(
                        "redlock",
                        "redlock://" + a.userInfo() + String.join(",", a.nodes()) + "?leaseTime=10s&keyPrefix="
                                + keyPrefix)
                .withFloor(floor, 2)
                .withServerRequests(counter(this::commands))
                .withServerConnections(connections())
                .withServerVersion(version));
        if (peers) {
            out.add(ComparisonTarget.of(
                            "redisson RedissonRedLock",
                            "redlock",
                            () -> new RedissonRedLockClient(a.nodes(), a.user(), a.password(), keyPrefix))
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
        return where(address.nodes().size() + " independent redis-server masters " + address.describe()
                + " (--save \"\" --appendonly no)");
    }

    /** Deletes every key under the run's prefix on every node and scans again. */
    @Override
    public synchronized String cleanUp() {
        if (cleanedUp == null && !stats.isEmpty()) {
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < stats.size(); i++) {
                parts.add(RedisBackend.cleanupReport(
                        address.nodes().get(i), prefix.name(), RedisNodes.removeKeys(stats.get(i), prefix.name())));
            }
            cleanedUp = String.join("; ", parts);
        }
        return cleanedUp == null ? "nothing created" : cleanedUp;
    }

    @Override
    public void close() {
        RedisNodes.closeAll(stats);
        RedisNodes.closeAll(pings);
        RedisNodes.closeAll(delayedPings);
        RedisNodes.closeAll(bare);
        closeLine();
        if (servers != null) {
            servers.close();
        }
    }
}
