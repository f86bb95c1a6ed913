package io.distlock.examples.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.examples.transfer.FencedMoneyTransfer.Plan;
import io.distlock.fencing.StaleTokenException;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.spi.FaultHooks;
import io.distlock.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A stale lock holder against a real MariaDB: the locks are {@code mysql://} row locks (fencing
 * tokens from an AUTO_INCREMENT column), the accounts and the fence live in the same database.
 */
class FencedMoneyTransferIT {
    private static final Duration LEASE = Duration.ofSeconds(2); // MySQL's wait_timeout is whole seconds
    private static MariaDbServer db;

    @BeforeAll
    static void start() {
        db = MariaDbServer.start();
    }

    @AfterAll
    static void stop() {
        if (db != null) {
            db.close();
        }
    }

    private static MySqlLockProvider client() {
        return MySqlLockProvider.builder()
                .jdbcUrl(db.jdbcUrl())
                .options(MySqlLockOptions.builder()
                        .credentials(Credentials.of(db.user(), db.password()))
                        .createSchema(true)
                        .build())
                .leaseTime(LEASE)
                .build();
    }

    private static FencedMoneyTransfer bank(MySqlLockProvider locks) {
        return new FencedMoneyTransfer(locks, db.jdbcUrl(), db.user(), db.password());
    }

    @BeforeEach
    void openAccounts() throws SQLException {
        try (MySqlLockProvider locks = client()) {
            FencedMoneyTransfer bank = bank(locks);
            bank.createSchema();
            bank.openAccount("alice", 100);
            bank.openAccount("bob", 0);
        }
    }

    @Test
    void transfer_underTheLock_movesTheMoney() throws Exception {
        try (MySqlLockProvider locks = client()) {
            FencedMoneyTransfer bank = bank(locks);

            assertThat(bank.transfer("alice", "bob", 30, Duration.ofSeconds(5))).isTrue();
            assertThat(bank.transfer("bob", "alice", 10, Duration.ofSeconds(5))).isTrue();

            assertThat(bank.balance("alice")).isEqualTo(80);
            assertThat(bank.balance("bob")).isEqualTo(20);
        }
    }

    @Test
    void commit_holderPausedPastItsLeaseWritesAfterTheNextHolder_rejectedAndBalancesStayCorrect() throws Exception {
        try (MySqlLockProvider nodeA = client();
                MySqlLockProvider nodeB = client()) {
            FencedMoneyTransfer bankA = bank(nodeA);
            FencedMoneyTransfer bankB = bank(nodeB);

            // A takes the lock and plans "alice -> bob: 50" from the balances it reads (100 / 0)
            Lease leaseA = nodeA.lock(FencedMoneyTransfer.LOCK).acquire();
            Plan staleA = bankA.prepare(leaseA, "alice", "bob", 50);

            // ... and A's process freezes before it writes: no heartbeats; the server drops its
            // connection after one lease and the lock is free
            nodeA.unwrap(FaultHooks.class).orElseThrow().simulateFreeze();

            // B takes the lock (a larger token), transfers 70, releases
            try (Lease leaseB = nodeB.lock(FencedMoneyTransfer.LOCK)
                    .tryAcquire(LEASE.multipliedBy(5))
                    .orElseThrow()) {
                assertThat(leaseB.fencingToken().getAsLong()).isGreaterThan(staleA.token());
                bankB.commit(bankB.prepare(leaseB, "alice", "bob", 70));
            }
            assertThat(bankB.balance("alice")).isEqualTo(30);

            // A wakes up and writes what it planned (alice 50, bob 50) with its old token: rejected
            assertThatThrownBy(() -> bankA.commit(staleA))
                    .isInstanceOf(StaleTokenException.class)
                    .satisfies(
                            e -> assertThat(((StaleTokenException) e).token()).isEqualTo(staleA.token()));

            // B's transfer stands; no money was created or lost
            assertThat(bankA.balance("alice")).isEqualTo(30);
            assertThat(bankA.balance("bob")).isEqualTo(70);
        }
    }

    @Test
    void unfencedWrite_holderPausedPastItsLease_erasesTheNextHoldersTransfer() throws Exception {
        // the same story without the fence: why the token is needed
        try (MySqlLockProvider nodeA = client();
                MySqlLockProvider nodeB = client()) {
            FencedMoneyTransfer bankA = bank(nodeA);
            FencedMoneyTransfer bankB = bank(nodeB);
            Lease leaseA = nodeA.lock(FencedMoneyTransfer.LOCK).acquire();
            Plan staleA = bankA.prepare(leaseA, "alice", "bob", 50);
            nodeA.unwrap(FaultHooks.class).orElseThrow().simulateFreeze();
            try (Lease leaseB = nodeB.lock(FencedMoneyTransfer.LOCK)
                    .tryAcquire(LEASE.multipliedBy(5))
                    .orElseThrow()) {
                bankB.commit(bankB.prepare(leaseB, "alice", "bob", 70));
            }

            writeWithoutFence(staleA);

            // B's transfer of 70 is gone: alice and bob hold what A computed from its stale read
            assertThat(bankA.balance("alice")).isEqualTo(50);
            assertThat(bankA.balance("bob")).isEqualTo(50);
        }
    }

    private static void writeWithoutFence(Plan plan) throws SQLException {
        try (Connection c = db.connect();
                PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = ? WHERE id = ?")) {
            ps.setLong(1, plan.newFromBalance());
            ps.setString(2, plan.from());
            ps.executeUpdate();
            ps.setLong(1, plan.newToBalance());
            ps.setString(2, plan.to());
            ps.executeUpdate();
        }
    }
}
