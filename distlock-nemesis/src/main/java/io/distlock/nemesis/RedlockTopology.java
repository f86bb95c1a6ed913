package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.Faults;
import io.distlock.testing.servers.RedisServers;
import java.time.Duration;
import java.util.List;

/** 3 independent Redis masters without persistence. */
final class RedlockTopology extends Topology {
    private final RedisServers servers = RedisServers.independentMasters(3);

    RedlockTopology(long leaseMs) {
        super(leaseMs);
    }

    @Override
    String name() {
        return "redlock";
    }

    @Override
    String describe() {
        return "3 independent redis-server masters without persistence";
    }

    @Override
    List<FaultKind> faults() {
        return clientFaultsAnd(FaultKind.KILL_ONE_NODE, FaultKind.KILL_TWO_NODES, FaultKind.RESTART_NODES_WITHOUT_DATA);
    }

    @Override
    List<String> nodes() {
        return List.of(servers.addresses().split(","));
    }

    @Override
    String uri(List<String> a) {
        return "redlock://" + String.join(",", a) + "?leaseTime=" + lease(leaseMs);
    }

    @Override
    List<ServerProbe> probes() {
        return servers.servers().stream().map(ServerProbe::redis).toList();
    }

    @Override
    Fault serverFault(FaultKind kind, Duration d) {
        return switch (kind) {
            case KILL_ONE_NODE -> Faults.kill(servers.get(0), false, d);
            case KILL_TWO_NODES ->
                Fault.inject(
                        "kill-two-nodes",
                        () -> {
                            servers.get(0).kill();
                            servers.get(1).kill();
                        },
                        () -> {
                            servers.get(0).restart(false);
                            servers.get(1).restart(false);
                        },
                        d);
            case RESTART_NODES_WITHOUT_DATA ->
                Fault.inject(
                        "restart-nodes-without-data",
                        () -> {
                            servers.get(0).restart(false);
                            servers.get(1).restart(false);
                        },
                        () -> {},
                        d);
            default -> super.serverFault(kind, d);
        };
    }

    @Override
    protected void closeServers() {
        servers.close();
    }
}
