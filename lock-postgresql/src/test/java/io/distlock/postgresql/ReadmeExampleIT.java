package io.distlock.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.build.ReadmeExamples;
import io.distlock.testing.servers.PostgresServer;
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

/** The README's usage example, run against a real PostgreSQL (and checked to be the README's text). */
class ReadmeExampleIT {
    private static PostgresServer db;

    @BeforeAll
    static void start() throws Exception {
        db = PostgresServer.start();
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE account (id int PRIMARY KEY, balance int NOT NULL)");
            s.execute("INSERT INTO account VALUES (7, 100)");
            s.execute("CREATE TABLE stock (id int PRIMARY KEY, status text NOT NULL)");
            s.execute("INSERT INTO stock SELECT g, 'FREE' FROM generate_series(1, 120) g");
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
                Path.of("README.md"), Path.of("src/test/java/io/distlock/postgresql/ReadmeExampleIT.java"), "usage");
        ReadmeExamples.assertSnippetMatchesSource(
                Path.of("README.md"), Path.of("src/test/java/io/distlock/postgresql/ReadmeExampleIT.java"), "uri");
    }

    @Test
    void usage_locksWorkInTheLocksTransactionAndClaimsRows() throws Exception {
        String address = db.address();
        String secret = db.password();
        int allocated;
        Optional<Integer> updated;
        long token;
        // README-BEGIN usage
        try (PostgresLockProvider locks = PostgresLockProvider.builder()
                .jdbcUrl("jdbc:postgresql://" + address + "/distlock_test") // or .dataSource(yourPool)
                .options(PostgresLockOptions.builder()
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
            allocated = locks.claimRows("stock", "id", Map.of("status", "FREE"), 50, (c, ids) -> {
                try (PreparedStatement ps =
                        c.prepareStatement("UPDATE stock SET status = 'ALLOCATED' WHERE id = ANY (?)")) {
                    ps.setArray(1, c.createArrayOf("int4", ids.toArray()));
                    return ps.executeUpdate();
                }
            });
        }
        // README-END
        assertThat(token).isPositive();
        assertThat(updated).contains(1);
        assertThat(allocated).isEqualTo(50);
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT (SELECT balance FROM account WHERE id = 7),"
                        + " (SELECT count(*) FROM stock WHERE status = 'ALLOCATED')")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(90);
            assertThat(rs.getInt(2)).isEqualTo(50);
        }
    }

    @Test
    void uri_opensTheSameProvider() {
        String address = db.address();
        String secret = db.password();
        // README-BEGIN uri
        try (LockProvider locks = LockProviders.open("postgresql://distlock:" + secret + "@" + address
                + "/distlock_test?createSchema=true&leaseTime=10s&poolSize=20")) {
            locks.lock("invoice-42").tryAcquire().ifPresent(Lease::release);
        }
        // README-END
        assertThat(secret).isNotEmpty();
    }
}
