package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.servers.RedisSentinelSetup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Redis master + replica + 3 Sentinels; clients find the master through Sentinel. Each client
 * reaches the Sentinels and both data nodes through its own proxies: a Jedis address mapper
 * ({@link MappedRedis}) turns the address Sentinel names into the client's proxy for it.
 */
final class SentinelTopology extends Topology {
    private final RedisSentinelSetup setup = RedisSentinelSetup.start();
    private final String master = setup.master().address();
    private final String replica = setup.replica().address();

    SentinelTopology(long leaseMs) {
        // failover takes longer than a short lease (down-after 1 s + election): with a short
        // lease every holder's belief ends before the replica is promoted
        super(Math.max(leaseMs, 10_000));
    }

    /**
     * Detaches the replica before the next acquisition, so the lock key of that acquisition is
     * on the master only, as when asynchronous replication lags: a wrong {@code masterauth}
     * keeps the replica from reconnecting after its link is cut. Sentinel promotes it anyway.
     */
    @Override
    long prepare(FaultKind kind) {
        try {
            setup.replica().call("CONFIG", "SET", "masterauth", "nemesis-detached");
            setup.replica().call("CLIENT", "KILL", "TYPE", "master");
            if (!setup.replica().call("INFO", "replication").contains("master_link_status:down")) {
                throw new IllegalStateException("the replica's link to its master is still up");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot detach the replica", e);
        }
        // an acquisition that returns this much later was sent after the link was cut
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
    }

    @Override
    String name() {
        return "redis-sentinel";
    }

    @Override
    String describe() {
        return "Redis master + 1 replica + 3 Sentinels (asynchronous replication, no WAIT); the replica's link is"
                + " cut just before the failover (replication lag)";
    }

    @Override
    List<FaultKind> faults() {
        return clientFaultsAnd(FaultKind.REDIS_FAILOVER);
    }

    /** The Sentinels, then the master and the replica. */
    @Override
    List<String> nodes() {
        List<String> n = new ArrayList<>(List.of(setup.sentinelAddresses().split(",")));
        n.add(master);
        n.add(replica);
        return List.copyOf(n);
    }

    @Override
    String uri(List<String> a) {
        int s = a.size() - 2;
        return "redis-sentinel://" + String.join(",", a.subList(0, s)) + "/" + setup.masterName() + "?leaseTime="
                + lease(leaseMs) + MappedRedis.MARK + master + ">" + a.get(s) + "," + replica + ">"
                + a.get(s + 1);
    }

    /** The Sentinels, the master and the replica. */
    @Override
    List<ServerProbe> probes() {
        List<ServerProbe> p = new ArrayList<>();
        setup.sentinels().forEach(s -> p.add(ServerProbe.redis(s)));
        p.add(ServerProbe.redis(setup.master()));
        p.add(ServerProbe.redis(setup.replica()));
        return List.copyOf(p);
    }

    @Override
    Fault serverFault(FaultKind kind, Duration d) {
        if (kind != FaultKind.REDIS_FAILOVER) {
            return super.serverFault(kind, d);
        }
        // the old master stays dead (a restarted one would come back as a replica of the new one)
        return Fault.inject("redis-failover", () -> setup.failover(), () -> {}, d);
    }

    @Override
    protected void closeServers() {
        setup.close();
    }
}
