package io.distlock.compare;

import io.distlock.compare.peers.RedissonLockClient;
import io.distlock.compare.peers.SetnxSleepLockClient;
import io.distlock.tck.compare.ComparisonTarget;
import io.distlock.tck.servers.RedisServer;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.Jedis;

/**
 * Redis: distlock's lock-redis, Redisson's RLock and the hand-rolled SETNX + 1 s sleep lock, all on one
 * redis-server ({@code --save "" --appendonly no}). Round trips are counted from the server's
 * {@code total_reads_processed}.
 */
final class RedisBackend extends ServerBackend {
    private RedisServer server;
    private Jedis stats;
    private Jedis ping;

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public void start() {
        server = RedisServer.start();
        stats = new Jedis(server.host(), server.port());
        ping = new Jedis(server.host(), server.port());
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

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version = Probes.redisVersion(stats.info("server"));
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("redis", server.uri() + "?leaseTime=10s")
                .withFloor(this::ping, 2)
                .withServerRequests(counter(this::commands))
                .withServerVersion(version));
        if (peers) {
            String host = server.host();
            int port = server.port();
            out.add(ComparisonTarget.of("redisson RLock", "redis", () -> new RedissonLockClient(host, port))
                    .withFloor(this::ping, 2)
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
        if (server != null) {
            server.close();
        }
    }
}
