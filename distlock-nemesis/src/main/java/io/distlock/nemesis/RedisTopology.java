package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.Faults;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.List;

/** Single Redis with AOF (appendfsync always), so "restart with data" keeps it. */
final class RedisTopology extends Topology {
    private final RedisServer server = RedisServer.builder().durable(true).start();

    RedisTopology(long leaseMs) {
        super(leaseMs);
    }

    @Override
    String name() {
        return "redis";
    }

    @Override
    String describe() {
        return "1 redis-server with AOF (appendfsync always)";
    }

    @Override
    List<FaultKind> faults() {
        return clientFaultsAnd(FaultKind.RESTART_SERVER_KEEP_DATA, FaultKind.RESTART_SERVER_LOSE_DATA);
    }

    @Override
    List<String> nodes() {
        return List.of(server.address());
    }

    @Override
    String uri(List<String> a) {
        return "redis://" + a.get(0) + "?leaseTime=" + lease(leaseMs);
    }

    @Override
    List<ServerProbe> probes() {
        return List.of(ServerProbe.redis(server));
    }

    @Override
    Fault serverFault(FaultKind kind, Duration d) {
        return switch (kind) {
            case RESTART_SERVER_KEEP_DATA -> Faults.kill(server, true, d);
            case RESTART_SERVER_LOSE_DATA ->
                Fault.inject("restart-lose-data-" + server.port(), () -> server.restart(false), () -> {}, d);
            default -> super.serverFault(kind, d);
        };
    }

    @Override
    protected void closeServers() {
        server.close();
    }
}
