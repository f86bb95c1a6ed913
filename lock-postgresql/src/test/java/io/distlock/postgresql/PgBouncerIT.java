package io.distlock.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.testing.faults.ChildJvmLockClient;
import io.distlock.testing.servers.PgBouncer;
import io.distlock.testing.servers.PostgresServer;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * lock-postgresql behind PgBouncer (the whole TCK runs behind it in {@code PgBouncerTckIT}): a holder
 * killed -9 frees its lock at once through PgBouncer too, {@code withLockedConnection} and {@code
 * claimRows} work as on a direct connection; the two deployments that cannot carry the
 * lock protocol, statement pool mode and transaction pool mode with the driver's server-side
 * prepared statements on, fail at once with a {@link LockConfigurationException} that says what to
 * change, and leave no lock held.
 */
class PgBouncerIT {
    private static PostgresServer db;

    @BeforeAll
    static void startServer() {
        db = PostgresServer.start();
        client(db.jdbcUrl(), null).close(); // creates the table and the sequence
    }

    @AfterAll
    static void stopServer() {
        if (db != null) {
            db.close();
        }
    }

    /** A provider on {@code jdbcUrl} as the database's owner; {@code prepareThreshold} null: the driver's. */
    private static PostgresLockProvider client(String jdbcUrl, Integer prepareThreshold) {
        PostgresLockOptions.Builder options = PostgresLockOptions.builder()
                .credentials(Credentials.of(db.user(), db.password()))
                .createSchema(true)
                .poolSize(3);
        if (prepareThreshold != null) {
            options.prepareThreshold(prepareThreshold);
        }
        return PostgresLockProvider.builder()
                .jdbcUrl(jdbcUrl)
                .options(options.build())
                .leaseTime(Duration.ofSeconds(20))
                .build();
    }

    private static String plainUrl(PgBouncer bouncer) {
        return "jdbc:postgresql://" + bouncer.address() + "/" + db.database();
    }

    @Test
    void holderKilled9_throughPgBouncer_lockFreeAsSoonAsPgBouncerSeesTheDisconnect() throws Exception {
        String name = "bouncer-kill9";
        try (PgBouncer bouncer = PgBouncer.builder(db).start();
                ChildJvmLockClient child = ChildJvmLockClient.start("postgresql://" + db.user() + ":" + db.password()
                        + "@" + bouncer.address() + "/" + db.database()
                        + "?leaseTime=20s&poolSize=3&prepareThreshold=0");
                PostgresLockProvider other = client(plainUrl(bouncer), 0)) {
            long childToken = child.acquire(name, Duration.ZERO).token().getAsLong();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            long killed = System.nanoTime();
            child.kill();
            Lease l = other.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed))
                    .as("PgBouncer ends the server connection of a client that left mid-transaction: long before"
                            + " the 20 s lease")
                    .isLessThan(3000);
            assertThat(l.fencingToken().getAsLong()).isGreaterThan(childToken);
            l.release();
        }
    }

    /**
     * The work of {@code withLockedConnection} commits with the release through PgBouncer, and two
     * concurrent claims never get the same row: both are one transaction, which transaction mode keeps
     * on one server connection.
     */
    @Test
    void transactionPoolMode_withLockedConnectionAndClaimRows_workAsOnADirectConnection() throws Exception {
        db.executeAsSuperuser(
                "CREATE TABLE bouncer_jobs (id int PRIMARY KEY, state text NOT NULL)",
                "INSERT INTO bouncer_jobs SELECT g, 'new' FROM generate_series(1, 20) g",
                "CREATE TABLE bouncer_counter (id int PRIMARY KEY, n int NOT NULL)",
                "INSERT INTO bouncer_counter VALUES (1, 0)",
                "GRANT ALL ON bouncer_jobs, bouncer_counter TO " + db.user());
        try (PgBouncer bouncer = PgBouncer.builder(db).start();
                PostgresLockProvider a = client(bouncer.jdbcUrl(), 0);
                PostgresLockProvider b = client(bouncer.jdbcUrl(), 0)) {
            for (int i = 0; i < 10; i++) {
                PostgresLockProvider p = i % 2 == 0 ? a : b;
                assertThat(p.withLockedConnection("bouncer-counter", Duration.ofSeconds(5), c -> {
                            try (Statement s = c.createStatement()) {
                                return s.executeUpdate("UPDATE bouncer_counter SET n = n + 1 WHERE id = 1");
                            }
                        }))
                        .hasValue(1);
            }
            assertThat(db.executeAsSuperuser("SELECT n FROM bouncer_counter")).isEqualTo("10");
            List<Object> claimedByA = a.claimRows("bouncer_jobs", "id", Map.of("state", "new"), 8, (c, keys) -> {
                List<Object> second = b.claimRows("bouncer_jobs", "id", Map.of("state", "new"), 20, (c2, k2) -> k2);
                assertThat(second).hasSize(12).doesNotContainAnyElementsOf(keys);
                return keys;
            });
            assertThat(claimedByA).hasSize(8);
        }
    }

    @Test
    void statementPoolMode_openFailsAtOnceWithConfigurationError() {
        try (PgBouncer bouncer =
                PgBouncer.builder(db).poolMode(PgBouncer.PoolMode.STATEMENT).start()) {
            long start = System.nanoTime();
            Throwable t = catchThrowable(() -> client(bouncer.jdbcUrl(), 0).close());
            assertThat(t)
                    .isInstanceOf(LockConfigurationException.class)
                    .hasMessageContaining("pooler in statement mode")
                    .hasMessageContaining("transaction or session pool mode");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .as("not retried until a pool timeout")
                    .isLessThan(4000);
        }
    }

    /**
     * Two providers share PgBouncer's one server connection, one after the other: once the driver
     * prepared a statement on the server under a name (some at once, the others from their 5th run),
     * the other client's session meets that name, or misses its own, there. The error names the
     * setting, at the latest at an acquisition, and the lock is free afterwards.
     */
    @Test
    void transactionPoolMode_serverPreparedStatements_configurationErrorNamingPrepareThreshold_noLockLeft() {
        String name = "bouncer-prepared";
        Throwable failure;
        try (PgBouncer bouncer = PgBouncer.builder(db).poolSize(1).start()) {
            failure = catchThrowable(() -> {
                try (PostgresLockProvider a = client(plainUrl(bouncer), null);
                        PostgresLockProvider b = client(plainUrl(bouncer), null)) {
                    for (int i = 0; i < 50; i++) {
                        a.lock(name).tryAcquire().ifPresent(Lease::release);
                        b.lock(name).tryAcquire().ifPresent(Lease::release);
                    }
                }
            });
        }
        assertThat(failure)
                .as("within 50 rounds")
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("prepareThreshold=0");
        try (PostgresLockProvider direct = client(db.jdbcUrl(), null)) {
            assertThat(direct.lock(name).tryAcquire()).as("nothing left held").isPresent();
        }
    }
}
