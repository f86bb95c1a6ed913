package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
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
    private final List<Jedis> bare = new ArrayList<>();
    private long bareOwners;

    @Override
    public String name() {
        return "redlock";
    }

    @Override
    public void start() {
        servers = RedisServers.independentMasters(NODES);
        for (RedisServer s : servers.servers()) {
            stats.add(new Jedis(s.host(), s.port()));
            pings.add(new Jedis(s.host(), s.port()));
            Jedis b = new Jedis(s.host(), s.port());
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
        for (Object reply : round(pings, Protocol.Command.PING)) {
            String pong = reply instanceof byte[] b ? SafeEncoder.encode(b) : String.valueOf(reply);
            if (!"PONG".equals(pong)) {
                throw new IllegalStateException("PING answered " + pong);
            }
        }
    }

    private static final RedisKeys BARE_KEYS = new RedisKeys("distlock-compare-bare");

    /** The bare requests: round 1 (grant + counter) and the release round, each to all nodes at once. */
    private synchronized void bareRounds() {
        String owner = String.format("%032x", ++bareOwners);
        for (Object reply : round(
                bare,
                Protocol.Command.EVALSHA,
                Scripts.REDLOCK_ACQUIRE.sha(),
                "2",
                BARE_KEYS.lockKey("l"),
                BARE_KEYS.tokenKey("l"),
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
                BARE_KEYS.lockKey("l"),
                owner,
                BARE_KEYS.channel("l"))) {
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
        List<String> hostPorts = new ArrayList<>();
        servers.servers().forEach(s -> hostPorts.add(s.host() + ":" + s.port()));
        String version = Probes.redisVersion(stats.get(0).info("server"));
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("redlock", "redlock://" + String.join(",", hostPorts) + "?leaseTime=10s")
                .withFloor(this::parallelPing, 2)
                .withExtraFloor("bare_requests_floor", this::bareRounds)
                .withServerRequests(counter(this::commands))
                .withServerVersion(NODES + " x redis " + version));
        if (peers) {
            out.add(ComparisonTarget.of(
                            "redisson RedissonRedLock", "redlock", () -> new RedissonRedLockClient(hostPorts))
                    .withFloor(this::parallelPing, 2)
                    .withServerRequests(counter(this::commands))
                    .withServerVersion(NODES + " x redis " + version)
                    .asPeer());
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return NODES + " independent redis-server masters " + servers.addresses() + " (--save \"\" --appendonly no)";
    }

    @Override
    public void close() {
        stats.forEach(Jedis::close);
        pings.forEach(Jedis::close);
        bare.forEach(Jedis::close);
        if (servers != null) {
            servers.close();
        }
    }
}
