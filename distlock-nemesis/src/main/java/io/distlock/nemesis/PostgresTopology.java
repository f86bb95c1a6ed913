package io.distlock.nemesis;

import io.distlock.testing.servers.PostgresServer;
import io.distlock.testing.servers.TestServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** One PostgreSQL server for the locks (the guarded resource is a MariaDB, as for every backend). */
final class PostgresTopology extends SqlTopology {
    private final PostgresServer server = PostgresServer.start();

    PostgresTopology(long leaseMs) {
        super(leaseMs);
    }

    @Override
    String name() {
        return "postgresql";
    }

    @Override
    String describe() {
        return "1 PostgreSQL 15 server for the locks (the guarded resource is a MariaDB server)";
    }

    @Override
    String describe(FaultKind kind) {
        return kind == FaultKind.RESTART_SERVER_LOSE_DATA
                ? "lock server SIGKILLed, restarted without its data, lock table and token sequence re-created"
                        + " empty (the sequence starts again at 1; tokens are floored at the server's clock)"
                : kind.description();
    }

    @Override
    String uri(List<String> a) {
        return "postgresql://" + server.user() + ":" + server.password() + "@" + a.get(0) + "/" + server.database()
                + "?createSchema=true&leaseTime=" + lease(leaseMs);
    }

    @Override
    List<ServerProbe> probes() {
        return List.of(ServerProbe.postgres(server));
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
        return "/io/distlock/postgresql/schema.sql";
    }
}
