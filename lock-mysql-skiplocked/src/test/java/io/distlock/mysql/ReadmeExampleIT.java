package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.build.ReadmeExamples;
import io.distlock.testing.servers.MariaDbServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The README's usage example, run against a real MariaDB (and checked to be the README's text). */
class ReadmeExampleIT {
    private static MariaDbServer db;

    @BeforeAll
    static void start() throws Exception {
        db = MariaDbServer.start();
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance INT NOT NULL)");
            s.execute("INSERT INTO account VALUES (7, 100)");
            s.execute(
                    "CREATE TABLE stock (id INT PRIMARY KEY, status VARCHAR(16) NOT NULL, KEY status_id (status, id))");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO stock VALUES (?, 'FREE')")) {
                for (int i = 1; i <= 120; i++) {
                    ps.setInt(1, i);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    @Test
    void readme_usageExample_isTheTestedOne() {
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"), Path.of("src/test/java/io/distlock/mysql/ReadmeExampleIT.java"), "usage");
    }

    @Test
    void usage_locksWorkInTheLocksTransactionAndClaimsRows() throws Exception {
        String address = db.address();
        String secret = db.password();
        int allocated;
        int next;
        Optional<Integer> updated;
        long token;
        // README-BEGIN usage
        try (MySqlLockProvider locks = MySqlLockProvider.builder()
                .jdbcUrl("jdbc:mysql://" + address + "/distlock_test") // or .dataSource(yourPool)
                .options(MySqlLockOptions.builder()
                        .credentials(Credentials.of("distlock", secret))
                        .createSchema(true) // or run schema.sql as an administrator
                        .poolSize(20)
                        .build())
                .leaseTime(Duration.ofSeconds(10)) // or .lockOptions(LockOptions...)
                .build()) {

            // 1. a plain lock with a fencing token
            try (Lease lease =
                    locks.lock("invoice-42").tryAcquire(Duration.ofSeconds(2)).orElseThrow()) {
                token = lease.fencingToken().getAsLong(); // pass it to the resource you write to
            }

            // 2. work in the lock's own transaction: the change and the release commit together
            updated = locks.withLockedConnection("account-7", Duration.ofSeconds(2), c -> {
                try (PreparedStatement ps =
                        c.prepareStatement("UPDATE account SET balance = balance - ? WHERE id = 7")) {
                    ps.setInt(1, 10);
                    return ps.executeUpdate();
                }
            });

            // 3. claim up to 50 free stock rows no one else is working on, process them, commit
            MySqlLockProvider.ClaimWork<Integer> allocate = (c, ids) -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE stock SET status = 'ALLOCATED' WHERE id = ?")) {
                    for (Object id : ids) {
                        ps.setObject(1, id);
                        ps.addBatch();
                    }
                    return ps.executeBatch().length;
                }
            };
            allocated = locks.claimRows("stock", "id", Map.of("status", "FREE"), 50, allocate);

            // 4. the same, each claim starting after the last key claimed (one cursor shared by all
            //    workers of this claim); "status_id" is the index on (status, id)
            ClaimCursor cursor = ClaimCursor.usingIndex("status_id");
            next = locks.claimRows("stock", "id", Map.of("status", "FREE"), 50, cursor, allocate);
        }
        // README-END
        assertThat(token).isPositive();
        assertThat(updated).contains(1);
        assertThat(allocated).isEqualTo(50);
        assertThat(next).isEqualTo(50);
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT (SELECT balance FROM account WHERE id = 7),"
                        + " (SELECT COUNT(*) FROM stock WHERE status = 'ALLOCATED')")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(90);
            assertThat(rs.getInt(2)).isEqualTo(100);
        }
    }
}
