package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.Faults;
import io.distlock.testing.servers.EtcdCluster;
import io.distlock.testing.servers.TestServer;
import java.time.Duration;
import java.util.List;

/** A 3-member etcd cluster. */
final class EtcdTopology extends Topology {
    private final EtcdCluster cluster = EtcdCluster.start(3);
    /** Member restarts without data so far: even ones hit the leader, odd ones a follower. */
    private int memberRestarts;

    private volatile String lastMemberTarget = "the leader";

    EtcdTopology(long leaseMs) {
        super(leaseMs);
    }

    @Override
    String name() {
        return "etcd";
    }

    @Override
    String describe() {
        return "3-member etcd cluster";
    }

    /** The member restart without data twice per cycle: the leader, then a follower. */
    @Override
    List<FaultKind> faults() {
        return clientFaultsAnd(
                FaultKind.KILL_LEADER, FaultKind.RESTART_MEMBER_LOSE_DATA, FaultKind.RESTART_MEMBER_LOSE_DATA);
    }

    @Override
    String describe(FaultKind kind) {
        return kind == FaultKind.RESTART_MEMBER_LOSE_DATA
                ? lastMemberTarget + " of the 3-member cluster SIGKILLed, its data directory wiped,"
                        + " `member remove` + `member add`, restarted empty with `--initial-cluster-state"
                        + " existing` (new member id) and caught up from the leader"
                : kind.description();
    }

    @Override
    List<String> nodes() {
        return List.of(cluster.addresses().split(","));
    }

    @Override
    String uri(List<String> a) {
        return "etcd://" + String.join(",", a) + "?leaseTime=" + lease(leaseMs) + "&requestTimeout=" + lease(leaseMs);
    }

    @Override
    List<ServerProbe> probes() {
        return cluster.members().stream().map(ServerProbe::etcd).toList();
    }

    @Override
    Fault serverFault(FaultKind kind, Duration d) {
        if (kind != FaultKind.KILL_LEADER && kind != FaultKind.RESTART_MEMBER_LOSE_DATA) {
            return super.serverFault(kind, d);
        }
        TestServer leader = cluster.awaitLeader(Duration.ofSeconds(20));
        if (kind == FaultKind.KILL_LEADER) {
            return Faults.kill(leader, true, d);
        }
        boolean toLeader = memberRestarts++ % 2 == 0;
        TestServer target = toLeader
                ? leader
                : cluster.members().stream()
                        .filter(m -> m != leader)
                        .findFirst()
                        .orElseThrow();
        lastMemberTarget = toLeader ? "the leader" : "a follower";
        // restart(false) on a cluster member: removed, re-added, started empty, caught up
        return Faults.kill(target, false, d);
    }

    @Override
    protected void closeServers() {
        cluster.close();
    }
}
