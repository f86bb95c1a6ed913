package io.distlock.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The PgBouncer launcher: transaction pooling in front of a PostgreSQL, its client count, SCRAM logins. */
class PgBouncerLauncherIT {

    @Test
    void transactionMode_sessionsShareServerConnections_clientConnectionsCountsThem() throws Exception {
        try (PostgresServer pg = PostgresServer.start();
                PgBouncer bouncer = PgBouncer.builder(pg).poolSize(1).start()) {
            assertThat(bouncer.clientConnections(pg.user())).isZero();
            try (Connection a = DriverManager.getConnection(bouncer.jdbcUrl(), pg.user(), pg.password());
                    Connection b = DriverManager.getConnection(bouncer.jdbcUrl(), pg.user(), pg.password())) {
                // one server connection serves both clients, a transaction at a time
                assertThat(backendPid(a)).isEqualTo(backendPid(b));
                assertThat(bouncer.clientConnections(pg.user())).isEqualTo(2);
                assertThat(bouncer.clientConnections("someone_else")).isZero();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> bouncer.clientConnections(pg.user()) == 0);
        }
    }

    @Test
    void login_wrongPassword_refused() {
        try (PostgresServer pg = PostgresServer.start();
                PgBouncer bouncer = PgBouncer.builder(pg).start()) {
            assertThatThrownBy(() -> DriverManager.getConnection(bouncer.jdbcUrl(), pg.user(), "wrong")
                            .close())
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("authentication failed");
        }
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
