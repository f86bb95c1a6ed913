package io.distlock.compare;

import io.distlock.compare.peers.RedissonRedLockClient;
import io.distlock.tck.compare.ComparisonTarget;
import io.distlock.tck.servers.RedisServer;
import io.distlock.tck.servers.RedisServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import redis.clients.jedis.Jedis;

/**
 * Redlock: distlock's lock-redlock over five independent redis-server masters, next to Redisson's
 * RedissonRedLock. The floor is one parallel PING to all five; acquire with fencing takes two
 * parallel rounds and release one, so the protocol floor is three. Requests are the sum of the
 * nodes' {@code total_reads_processed} (one per request on persistent connections).
 */
final class RedlockBackend extends ServerBackend {
    static final int NODES = 5;

    private RedisServers servers;
    private final List<Jedis> stats = new ArrayList<>();
    private final List<Jedis> pings = new ArrayList<>();
    private ExecutorService pinger;

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
        }
        pinger = Executors.newFixedThreadPool(NODES, r -> {
            Thread t = new Thread(r, "distlock-compare-redlock-ping");
            t.setDaemon(true);
            return t;
        });
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

    /** One PING to every node in parallel: what one Redlock round costs at best. */
    private synchronized void parallelPing() {
        CompletableFuture.allOf(pings.stream()
                        .map(j -> CompletableFuture.runAsync(j::ping, pinger))
                        .toArray(CompletableFuture[]::new))
                .join();
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        List<String> hostPorts = new ArrayList<>();
        servers.servers().forEach(s -> hostPorts.add(s.host() + ":" + s.port()));
        String version = Probes.redisVersion(stats.get(0).info("server"));
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("redlock", "redlock://" + String.join(",", hostPorts) + "?leaseTime=10s")
                .withFloor(this::parallelPing, 3)
                .withServerRequests(counter(this::commands))
                .withServerVersion(NODES + " x redis " + version));
        if (peers) {
            out.add(ComparisonTarget.of(
                            "redisson RedissonRedLock", "redlock", () -> new RedissonRedLockClient(hostPorts))
                    .withFloor(this::parallelPing, 3)
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
        if (pinger != null) {
            pinger.shutdownNow();
        }
        if (servers != null) {
            servers.close();
        }
    }
}
