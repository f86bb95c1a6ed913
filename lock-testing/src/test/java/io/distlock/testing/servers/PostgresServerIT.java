package io.distlock.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The PostgreSQL launcher: a fresh cluster, its role and database, restarts with and without data. */
class PostgresServerIT {

    @Test
    void start_roleAndDatabaseExist_andJdbcConnectsWithScram() throws Exception {
        try (PostgresServer pg = PostgresServer.start();
                Connection c = pg.connect();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT current_user, current_database(), current_setting('fsync')")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo(PostgresServer.USER);
            assertThat(rs.getString(2)).isEqualTo(PostgresServer.DATABASE);
            assertThat(rs.getString(3)).isEqualTo("off");
            assertThat(pg.executeAsSuperuser("SELECT rolpassword LIKE 'SCRAM-SHA-256%' FROM pg_authid"
                            + " WHERE rolname = '" + PostgresServer.USER + "'"))
                    .isEqualTo("t");
            assertThat(pg.uri()).isEqualTo("postgresql://distlock@" + pg.address() + "/distlock_test");
        }
    }

    @Test
    void restart_keepData_keepsRowsAndPort_withoutData_startsEmpty() throws Exception {
        try (PostgresServer pg = PostgresServer.start()) {
            int port = pg.port();
            pg.executeAsSuperuser("CREATE TABLE t (v int)", "INSERT INTO t VALUES (42)");
            Connection open = pg.connect(); // a backend alive when the server is killed
            pg.restart(true);
            assertThat(pg.port()).isEqualTo(port);
            assertThat(pg.executeAsSuperuser("SELECT v FROM t")).isEqualTo("42");
            assertThatThrownBy(() -> open.createStatement().execute("SELECT 1")).isInstanceOf(SQLException.class);
            open.close();
            pg.restart(false);
            assertThat(pg.port()).isEqualTo(port);
            assertThat(pg.executeAsSuperuser("SELECT count(*) FROM pg_tables WHERE tablename = 't'"))
                    .isEqualTo("0");
            try (Connection c = pg.connect()) {
                assertThat(c.isValid(2)).isTrue();
            }
        }
    }

    @Test
    void executeAsSuperuser_failingStatement_throwsWithPsqlMessage() {
        try (PostgresServer pg = PostgresServer.start()) {
            assertThatThrownBy(() -> pg.executeAsSuperuser("SELECT * FROM no_such_table"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no_such_table");
        }
    }
}
