package io.distlock.nemesis;

import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.TestServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** One MariaDB server for the locks (separate from the resource's). */
final class MySqlTopology extends SqlTopology {
    private final MariaDbServer server = MariaDbServer.start();

    MySqlTopology(long leaseMs) {
        super(leaseMs);
    }

    @Override
    String name() {
        return "mysql";
    }

    @Override
    String describe() {
        return "1 MariaDB 10.11 server for the locks (the guarded resource is another server)";
    }

    @Override
    String describe(FaultKind kind) {
        return kind == FaultKind.RESTART_SERVER_LOSE_DATA
                ? "lock server SIGKILLed, restarted without its data, lock tables re-created empty (the token"
                        + " counter is gone; tokens are floored at the server's clock)"
                : kind.description();
    }

    @Override
    String uri(List<String> a) {
        return "mysql://" + server.user() + ":" + server.password() + "@" + a.get(0) + "/" + server.database()
                + "?createSchema=true&leaseTime=" + lease(leaseMs);
    }

    @Override
    List<ServerProbe> probes() {
        return List.of(ServerProbe.mariaDb(server));
    }

    @Override
    TestServer server() {
        return server;
    }

    @Override
    Connection connect() throws SQLException {
        return server.connect();
    }

    @Override
    String schemaResource() {
        return "/io/distlock/mysql/schema.sql";
    }
}
