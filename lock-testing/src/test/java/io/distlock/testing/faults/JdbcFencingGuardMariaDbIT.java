package io.distlock.testing.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link JdbcFencingGuard} against a real MariaDB. */
class JdbcFencingGuardMariaDbIT {
    private static MariaDbServer db;
    private static final JdbcFencingGuard GUARD = JdbcFencingGuard.create();

    @BeforeAll
    static void start() throws SQLException {
        db = MariaDbServer.start();
        try (Connection c = db.connect()) {
            GUARD.createTableIfMissing(c);
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    private static void write(String resource, long token) throws SQLException {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try {
                GUARD.check(c, resource, token);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static long stored(String resource) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("SELECT token FROM distlock_fence WHERE resource = ?")) {
            ps.setString(1, resource);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        }
    }

    @Test
    void check_sequence_firstInsertsNewerAndEqualAcceptedOlderRejected() throws SQLException {
        write("r1", 5);
        assertThat(stored("r1")).isEqualTo(5);
        write("r1", 7);
        assertThat(stored("r1")).isEqualTo(7);
        write("r1", 7);
        assertThat(stored("r1")).isEqualTo(7);
        assertThatThrownBy(() -> write("r1", 6)).isInstanceOfSatisfying(StaleTokenException.class, e -> {
            assertThat(e.token()).isEqualTo(6);
            assertThat(e.lastAccepted()).isEqualTo(7);
        });
        assertThat(stored("r1")).isEqualTo(7);
    }

    @Test
    void check_concurrentFirstWritesLowerFirst_laterTokenWins() throws Exception {
        concurrentFirstWrites("r2", 5, 9);
        assertThat(stored("r2")).isEqualTo(9);
    }

    @Test
    void check_concurrentFirstWritesHigherFirst_lowerIsStale() throws Exception {
        assertThatThrownBy(() -> concurrentFirstWrites("r3", 9, 5)).hasCauseInstanceOf(StaleTokenException.class);
        assertThat(stored("r3")).isEqualTo(9);
    }

    /**
     * {@code first} inserts the row in an open transaction; {@code second} starts its first write
     * on another connection (it must block on the row); then the first commits.
     */
    private static void concurrentFirstWrites(String resource, long first, long second) throws Exception {
        try (Connection c1 = db.connect()) {
            c1.setAutoCommit(false);
            GUARD.check(c1, resource, first);
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
                try {
                    write(resource, second);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // the second writer waits on the first's uncommitted row
            assertThat(waitsFor(other, Duration.ofMillis(300))).isFalse();
            c1.commit();
            try {
                other.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("second write failed", e.getCause());
            }
        }
    }

    private static boolean waitsFor(CompletableFuture<?> f, Duration d) {
        try {
            f.get(d.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (Exception e) {
            return true;
        }
    }
}
