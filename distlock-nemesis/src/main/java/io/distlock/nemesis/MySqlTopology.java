package io.distlock.nemesis;

import io.distlock.testing.faults.Fault;
import io.distlock.testing.faults.Faults;
import io.distlock.testing.servers.MariaDbServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/** One MariaDB server for the locks (separate from the resource's). */
final class MySqlTopology extends Topology {
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
    List<FaultKind> faults() {
        return clientFaultsAnd(FaultKind.RESTART_SERVER_KEEP_DATA, FaultKind.RESTART_SERVER_LOSE_DATA);
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
    List<String> nodes() {
        return List.of(server.address());
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
    Fault serverFault(FaultKind kind, Duration d) {
        return switch (kind) {
            case RESTART_SERVER_KEEP_DATA -> Faults.kill(server, true, d);
            case RESTART_SERVER_LOSE_DATA ->
                Fault.inject(
                        "restart-lose-data-" + server.port(),
                        () -> {
                            server.restart(false);
                            // what an operator restoring the server does: the published schema, empty
                            createSchema();
                        },
                        () -> {},
                        d);
            default -> super.serverFault(kind, d);
        };
    }

    /** Runs lock-mysql-skiplocked's {@code schema.sql} (the default table names) as the lock user. */
    private void createSchema() {
        String sql;
        try (InputStream in =
                MariaDbServer.class.getClassLoader().getResourceAsStream("io/distlock/mysql/schema.sql")) {
            if (in == null) {
                throw new IllegalStateException("io/distlock/mysql/schema.sql is not on the class path");
            }
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read schema.sql", e);
        }
        StringBuilder withoutComments = new StringBuilder();
        for (String line : sql.split("\n")) {
            if (!line.strip().startsWith("--")) {
                withoutComments.append(line).append('\n');
            }
        }
        try (Connection c = server.connect();
                Statement st = c.createStatement()) {
            for (String statement : withoutComments.toString().split(";")) {
                if (!statement.isBlank()) {
                    st.execute(statement);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot re-create the lock schema: " + e.getMessage(), e);
        }
    }

    @Override
    protected void closeServers() {
        server.close();
    }
}
