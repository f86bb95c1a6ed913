package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.Faults;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.List;

/** A 3-server ZooKeeper ensemble. */
final class ZooKeeperTopology extends Topology {
    private final ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start(3);

    ZooKeeperTopology(long leaseMs) {
        super(leaseMs);
    }

    @Override
    String name() {
        return "zookeeper";
    }

    @Override
    String describe() {
        return "3-server ZooKeeper ensemble";
    }

    @Override
    List<FaultKind> faults() {
        return clientFaultsAnd(FaultKind.KILL_LEADER, FaultKind.RESTART_MEMBER_LOSE_DATA);
    }

    @Override
    List<String> nodes() {
        return List.of(ensemble.connectString().split(","));
    }

    @Override
    String uri(List<String> a) {
        return "zookeeper://" + String.join(",", a) + "?sessionTimeout=" + lease(leaseMs) + "&connectTimeout="
                + lease(leaseMs);
    }

    @Override
    List<ServerProbe> probes() {
        return ensemble.members().stream().map(ServerProbe::zookeeper).toList();
    }

    @Override
    Fault serverFault(FaultKind kind, Duration d) {
        if (kind != FaultKind.KILL_LEADER && kind != FaultKind.RESTART_MEMBER_LOSE_DATA) {
            return super.serverFault(kind, d);
        }
        TestServer leader = ensemble.awaitLeader(Duration.ofSeconds(20));
        // without its data the member comes back with the same id and resyncs from the new leader
        return Faults.kill(leader, kind == FaultKind.KILL_LEADER, d);
    }

    @Override
    protected void closeServers() {
        ensemble.close();
    }
}
