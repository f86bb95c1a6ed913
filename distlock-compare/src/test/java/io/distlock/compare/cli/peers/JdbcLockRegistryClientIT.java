package io.distlock.compare.cli.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.compare.LockClient;
import io.distlock.testing.servers.MariaDbServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The JdbcLockRegistry peer on a real MariaDB: its table, mutual exclusion and a hand-off. */
class JdbcLockRegistryClientIT {
    private static MariaDbServer server;

    @BeforeAll
    static void start() throws Exception {
        server = MariaDbServer.start();
        JdbcLockRegistryClient.createTable(server.jdbcUrl(), server.user(), server.password(), "mysql");
        JdbcLockRegistryClient.createTable(server.jdbcUrl(), server.user(), server.password(), "mysql"); // idempotent
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static JdbcLockRegistryClient client() {
        return new JdbcLockRegistryClient(server.jdbcUrl(), server.user(), server.password());
    }

    @Test
    void intLockDdl_isTheShippedStatementOfEachDatabase() {
        for (String database : new String[] {"mysql", "postgresql"}) {
            assertThat(JdbcLockRegistryClient.intLockDdl(database))
                    .as(database)
                    .startsWith("CREATE TABLE INT_LOCK")
                    .contains("LOCK_KEY", "CLIENT_ID", "EXPIRED_AFTER")
                    .doesNotContain("INT_MESSAGE");
        }
    }

    @Test
    void acquire_heldByOtherClient_emptyUntilReleasedThenHandedOff() throws Exception {
        try (JdbcLockRegistryClient a = client();
                JdbcLockRegistryClient b = client()) {
            LockClient.Hold held = a.acquire("peer-x", Duration.ZERO).orElseThrow();
            assertThat(b.acquire("peer-x", Duration.ZERO)).isEmpty();
            assertThat(b.acquire("peer-x", Duration.ofMillis(250))).isEmpty();
            CompletableFuture<Optional<LockClient.Hold>> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    Optional<LockClient.Hold> h = b.acquire("peer-x", Duration.ofSeconds(10));
                    h.ifPresent(LockClient.Hold::release); // released by the acquiring thread
                    return h;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            });
            held.release();
            assertThat(waiter.get(15, TimeUnit.SECONDS)).isPresent();
            a.acquire("peer-x", Duration.ZERO).orElseThrow().release();
        }
    }
}
