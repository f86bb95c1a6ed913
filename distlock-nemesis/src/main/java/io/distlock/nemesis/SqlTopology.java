package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.Faults;
import io.distlock.testing.servers.SqlScript;
import io.distlock.testing.servers.TestServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * One database server for the locks of a SQL backend (the guarded resource is another server): the
 * client faults, and the server killed and restarted with or without its data; after a restart
 * without data the backend's shipped {@code schema.sql} is run, as an operator restoring the schema
 * would.
 */
abstract class SqlTopology extends Topology {

    SqlTopology(long leaseMs) {
        super(leaseMs);
    }

    /** The lock server. */
    abstract TestServer server();

    /** A connection to the lock server as the lock user. */
    abstract Connection connect() throws SQLException;

    /** The class-path name of the backend's shipped {@code schema.sql}. */
    abstract String schemaResource();

    @Override
    List<FaultKind> faults() {
        return clientFaultsAnd(FaultKind.RESTART_SERVER_KEEP_DATA, FaultKind.RESTART_SERVER_LOSE_DATA);
    }

    @Override
    List<String> nodes() {
        return List.of(server().address());
    }

    @Override
    Fault serverFault(FaultKind kind, Duration d) {
        return switch (kind) {
            case RESTART_SERVER_KEEP_DATA -> Faults.kill(server(), true, d);
            case RESTART_SERVER_LOSE_DATA ->
                Fault.inject(
                        "restart-lose-data-" + server().port(),
                        () -> {
                            server().restart(false);
                            // what an operator restoring the server does: the published schema, empty
                            createSchema();
                        },
                        () -> {},
                        d);
            default -> super.serverFault(kind, d);
        };
    }

    private void createSchema() {
        try (Connection c = connect();
                Statement st = c.createStatement()) {
            for (String statement : SqlScript.statements(schemaResource())) {
                st.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot re-create the lock schema: " + e.getMessage(), e);
        }
    }

    @Override
    protected void closeServers() {
        server().close();
    }
}
