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

    /**
     * After a restart without data the token counter starts again at 1, below every token the
     * guarded resource has seen: from then on the resource rejects every write until the new
     * counter passes the old one, which takes as many acquisitions as were made before. Run
     * once, at the end, so the faults before it see a live lock.
     */
    @Override
    boolean repeatable(FaultKind kind) {
        return kind != FaultKind.RESTART_SERVER_LOSE_DATA;
    }

    @Override
    String describe(FaultKind kind) {
        return kind == FaultKind.RESTART_SERVER_LOSE_DATA
                ? "lock server SIGKILLed, restarted without its data, lock tables re-created empty (the token"
                        + " counter starts again at 1, below the tokens the resource has seen)"
                : kind.description();
    }

    @Override
    String uri(List<String> a) {
        return "mysql://" + server.user() + ":" + server.password() + "@" + a.get(0) + "/" + server.database()
                + "?createSchema=true&leaseTime=" + lease(leaseMs);
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
