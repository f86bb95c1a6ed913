package io.distlock.testing.servers;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;

/**
 * Redis, etcd and PostgreSQL through Testcontainers. Runs only in the {@code docker} Maven profile (which sets
 * {@code distlock.servers=docker} and the local image names); excluded from the default build.
 */
class DockerModeIT {

    @BeforeAll
    static void dockerModeIsOn() {
        assertThat(ServerMode.configured())
                .as("run with -Pdocker (sets %s=docker)", ServerMode.PROPERTY)
                .isEqualTo(ServerMode.DOCKER);
    }

    @Test
    void redis_dockerMode_answersPingFromAContainer() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(redis.toString()).contains("container");
            assertThat(redis.call("PING")).isEqualTo("PONG");
            redis.call("SET", "k", "v");
            assertThat(redis.call("GET", "k")).isEqualTo("v");
            long pid = redis.pid();
            assertThat(Files.readString(Paths.get("/proc", Long.toString(pid), "cmdline")))
                    .startsWith("redis-server");

            redis.pause();
            redis.resume();
            assertThat(redis.call("PING")).isEqualTo("PONG");
            redis.restart(false);
            assertThat(redis.call("GET", "k")).isEmpty();
        }
    }

    @Test
    void etcd_dockerMode_putAndGetThroughTheJsonGateway() throws Exception {
        try (EtcdServer etcd = EtcdServer.start()) {
            assertThat(etcd.toString()).contains("container");
            etcd.put("distlock/k", "v");
            assertThat(etcd.get("distlock/k")).isEqualTo("v");
            etcd.kill();
            assertThat(etcd.isRunning()).isFalse();
            etcd.restart(true);
            assertThat(etcd.get("distlock/k")).isEqualTo("v");
        }
    }

    @Test
    void postgres_dockerMode_servesJdbcFromAContainerAndRestarts() throws Exception {
        try (PostgresServer pg =
                PostgresServer.builder().statementStatistics(true).start()) {
            assertThat(pg.toString()).contains("container");
            try (Connection c = pg.connect();
                    Statement st = c.createStatement();
                    ResultSet rs =
                            st.executeQuery("SELECT current_user, current_database(), current_setting('fsync')")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(PostgresServer.USER);
                assertThat(rs.getString(2)).isEqualTo(PostgresServer.DATABASE);
                assertThat(rs.getString(3)).isEqualTo("off");
            }
            // the server is the main process of a container labelled by this JVM, not a child of it
            long pid = pg.pid();
            assertThat(Files.readString(Paths.get("/proc", Long.toString(pid), "cmdline")))
                    .startsWith("postgres");
            assertThat(isDescendantOfThisJvm(pid)).isFalse();
            assertThat(DockerClientFactory.instance()
                            .client()
                            .listContainersCmd()
                            .withLabelFilter(Map.of(
                                    "io.distlock.test-server",
                                    "postgresql",
                                    "io.distlock.owner-pid",
                                    Long.toString(ProcessHandle.current().pid())))
                            .exec())
                    .hasSize(1);
            assertThat(pg.executeAsSuperuser("SELECT count(*) > 0 FROM pg_stat_statements"))
                    .isEqualTo("t");

            pg.executeAsSuperuser("CREATE TABLE t (v int)", "INSERT INTO t VALUES (42)");
            pg.kill();
            assertThat(pg.isRunning()).isFalse();
            pg.restart(true);
            assertThat(pg.executeAsSuperuser("SELECT v FROM t")).isEqualTo("42");
            pg.restart(false);
            assertThat(pg.executeAsSuperuser("SELECT count(*) FROM pg_tables WHERE tablename = 't'"))
                    .isEqualTo("0");
            try (Connection c = pg.connect()) {
                assertThat(c.isValid(2)).isTrue();
            }
        }
    }

    private static boolean isDescendantOfThisJvm(long pid) {
        long me = ProcessHandle.current().pid();
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        while (p.isPresent()) {
            if (p.get().pid() == me) {
                return true;
            }
            p = p.get().parent();
        }
        return false;
    }
}
