package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockConfigurationException;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.LockProviders;
import io.distlock.fencing.JdbcFencingGuard;
import io.distlock.fencing.StaleTokenException;
import io.distlock.testing.PoolExhaustion;
import io.distlock.testing.WaitGrantValidity;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** The MySQL provider against a real MariaDB. */
class MySqlLockProviderIT {
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static MySqlTckFixture fixture;

    @BeforeAll
    static void startServer() {
        fixture = new MySqlTckFixture(false);
    }

    @AfterAll
    static void stopServer() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static MySqlLockProvider client() {
        return fixture.newMySqlClient(LockOptions.builder().leaseTime(LEASE).build());
    }

    private static MySqlLockProvider client(LockOptions options) {
        return fixture.newMySqlClient(options);
    }

    private static String name(TestInfo info) {
        return info.getTestMethod().orElseThrow().getName() + "/ünï 'q\"%";
    }

    @Test
    void tryAcquire_heldByOtherClient_returnsEmptyThenNextHolderGetsLargerToken(TestInfo info) {
        String name = name(info);
        try (MySqlLockProvider a = client();
                MySqlLockProvider b = client()) {
            Lease la = a.lock(name).tryAcquire().orElseThrow();
            assertThat(la.isValid()).isTrue();
            assertThat(b.lock(name).tryAcquire()).isEmpty();
            assertThat(a.lock(name).tryAcquire()).as("not reentrant").isEmpty();
            assertThat(la.release()).isTrue();
            Lease lb = b.lock(name).tryAcquire().orElseThrow();
            assertThat(lb.fencingToken().getAsLong())
                    .isGreaterThan(la.fencingToken().getAsLong());
            assertThat(lb.release()).isTrue();
            assertThat(lb.release()).as("second release").isFalse();
        }
    }

    @Test
    void tryAcquireWithWait_holderReleases_waiterWokenByRowLock(TestInfo info) throws Exception {
        String name = name(info);
        try (MySqlLockProvider a = client();
                MySqlLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            CompletableFuture<Optional<Lease>> waiter = waitFor(b, name);
            await().pollDelay(Duration.ofMillis(300)).until(() -> !waiter.isDone());
            long released = System.nanoTime();
            la.release();
            Lease lb = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
            long handOffMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
            assertThat(handOffMillis).as("hand-off latency").isLessThan(1000);
            assertThat(lb.fencingToken().getAsLong())
                    .isGreaterThan(la.fencingToken().getAsLong());
            lb.release();
        }
    }

    /**
     * A lock granted by a wait counts its validity from when the wait statement was sent, not from
     * when its answer was read; one wait statement lasts at most half the lease, so a lock granted
     * after a long wait still has about half a lease left.
     */
    @Test
    void tryAcquireWithWait_grantedLease_validFromWhenTheWaitWasSent_longWaitKeepsHalfTheLease(TestInfo info)
            throws Exception {
        String name = name(info);
        try (MySqlLockProvider a = client();
                MySqlLockProvider b = client()) {
            WaitGrantValidity.check(a, b, name, LEASE);
        }
    }

    /** {@code p} waits up to 20 s for {@code name} on another thread. */
    private static CompletableFuture<Optional<Lease>> waitFor(MySqlLockProvider p, String name) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return p.lock(name).tryAcquire(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void tryAcquireWithWait_heldThroughout_returnsEmptyAtDeadline(TestInfo info) throws Exception {
        String name = name(info);
        try (MySqlLockProvider a = client();
                MySqlLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            long start = System.nanoTime();
            assertThat(b.lock(name).tryAcquire(Duration.ofMillis(400))).isEmpty();
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waited).isBetween(390L, 1500L);
            assertThat(la.isValid()).isTrue();
            la.release();
            assertThat(b.lock(name).tryAcquire()).isPresent();
        }
    }

    @Test
    void acquire_interrupted_stopsPromptlyAndLeavesNothingHeld(TestInfo info) throws Exception {
        String name = name(info);
        try (MySqlLockProvider a = client();
                MySqlLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            Thread t = new Thread(
                    () -> {
                        try {
                            b.lock(name).acquire();
                        } catch (Throwable e) {
                            outcome.set(e);
                        } finally {
                            done.countDown();
                        }
                    },
                    "test-waiter");
            t.start();
            await().pollDelay(Duration.ofMillis(300)).until(t::isAlive);
            long interrupted = System.nanoTime();
            t.interrupt();
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interrupted))
                    .isLessThan(1000);
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
            la.release();
            assertThat(b.heldLeases()).isEmpty();
            // the waiter left no lock behind: a third client gets it at once
            try (MySqlLockProvider c = client()) {
                Lease lc = c.lock(name).tryAcquire().orElseThrow();
                lc.release();
            }
        }
    }

    @Test
    void killConnection_holderLosesLeaseOtherAcquiresAndStaleWriteIsRejected(TestInfo info) throws Exception {
        String name = name(info);
        JdbcFencingGuard guard = JdbcFencingGuard.create();
        try (Connection admin = fixture.db().connect()) {
            guard.createTableIfMissing(admin);
        }
        try (MySqlLockProvider a = client();
                MySqlLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            long tokenA = la.fencingToken().getAsLong();
            fixture.expireLease(name);
            // the heartbeat finds the connection dead: lost within the lease
            la.lost().toCompletableFuture().get(LEASE.toMillis() * 2, TimeUnit.MILLISECONDS);
            assertThat(la.isValid()).isFalse();
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            long tokenB = lb.fencingToken().getAsLong();
            assertThat(tokenB).isGreaterThan(tokenA);
            guardedWrite(guard, name, tokenB);
            assertThatThrownBy(() -> guardedWrite(guard, name, tokenA)).isInstanceOf(StaleTokenException.class);
            assertThat(la.release()).isFalse();
            assertThat(lb.release()).isTrue();
        }
    }

    private static void guardedWrite(JdbcFencingGuard guard, String resource, long token) throws SQLException {
        try (Connection c = fixture.db().connect()) {
            c.setAutoCommit(false);
            try {
                guard.check(c, resource, token);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    @Test
    void frozenHolder_serverDropsItsConnectionAboutOneLeaseAfterItsLastHeartbeat(TestInfo info) throws Exception {
        String name = name(info);
        MySqlLockProvider a = client();
        try (MySqlLockProvider b = client()) {
            long beforeAcquire = System.nanoTime();
            Lease la = a.lock(name).acquire();
            long acquired = System.nanoTime();
            fixture.crashClient(a); // frozen: no heartbeat, connections open and silent
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            // wait_timeout = lease (whole seconds), counted from the acquisition's last statement
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beforeAcquire))
                    .isGreaterThanOrEqualTo(LEASE.toMillis());
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - acquired))
                    .isLessThanOrEqualTo(LEASE.toMillis() + 1500);
            assertThat(lb.fencingToken().getAsLong())
                    .isGreaterThan(la.fencingToken().getAsLong());
            lb.release();
        } finally {
            a.close();
        }
    }

    @Test
    void noRenewal_leaseRunsOut_providerFreesTheLockAtOnce(TestInfo info) throws Exception {
        String name = name(info);
        Duration lease = Duration.ofSeconds(2);
        try (MySqlLockProvider a = client(
                        LockOptions.builder().leaseTime(lease).autoRenew(false).build());
                MySqlLockProvider b = client()) {
            assertThat(a.capabilities().automaticRenewal()).isFalse();
            assertThat(a.capabilities().leaseTiming()).isEqualTo(io.distlock.Capabilities.LeaseTiming.CLIENT);
            Lease la = a.lock(name).acquire();
            long acquired = System.nanoTime();
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            // freed by the provider at the lease's validity deadline (lease minus safety margin), not
            // by the server's wait_timeout, which may come up to a second later
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - acquired))
                    .isBetween(lease.toMillis() / 2, lease.toMillis() + 300);
            assertThat(la.isValid()).isFalse();
            assertThat(la.lost().toCompletableFuture().isDone()).isTrue();
            assertThat(la.release()).isFalse();
            lb.release();
        }
    }

    @Test
    void extend_movesTheWaitTimeout_frozenHolderKeepsTheLockForTheNewLeaseTime(TestInfo info) throws Exception {
        String name = name(info);
        Duration lease = Duration.ofSeconds(1);
        Duration extended = Duration.ofSeconds(3);
        MySqlLockProvider a =
                client(LockOptions.builder().leaseTime(lease).autoRenew(false).build());
        try (MySqlLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            long beforeExtend = System.nanoTime();
            la.extend(extended);
            long extendedAt = System.nanoTime();
            fixture.crashClient(a);
            assertThat(b.lock(name).tryAcquire(lease.plus(Duration.ofMillis(800))))
                    .as("after the original lease")
                    .isEmpty();
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - beforeExtend))
                    .isGreaterThanOrEqualTo(extended.toMillis());
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - extendedAt))
                    .isLessThanOrEqualTo(extended.toMillis() + 1500);
            lb.release();
        } finally {
            a.close();
        }
    }

    @Test
    void heldLease_renewedByHeartbeat_survivesSeveralLeaseTimes(TestInfo info) throws Exception {
        String name = name(info);
        try (MySqlLockProvider a = client();
                MySqlLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            long until = System.nanoTime() + LEASE.toNanos() * 2;
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        assertThat(la.isValid()).isTrue();
                        assertThat(b.lock(name).tryAcquire()).isEmpty();
                        return System.nanoTime() - until > 0;
                    });
            assertThat(la.release()).isTrue();
        }
    }

    @Test
    void crashedClient_rowFreedAtOnceAndTokenKeepsIncreasing(TestInfo info) throws Exception {
        String name = name(info);
        MySqlLockProvider a = client();
        try (MySqlLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            fixture.crashClient(a);
            assertThat(la.isValid()).isFalse();
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(lb.fencingToken().getAsLong())
                    .isGreaterThan(la.fencingToken().getAsLong());
            lb.release();
        }
    }

    @Test
    void serverRestart_holdersToldLostAndTokensKeepIncreasing(TestInfo info) throws Exception {
        String name = name(info);
        long before;
        try (MySqlLockProvider a = client()) {
            Lease rolledBack = a.lock(name + "-rb").acquire();
            long rolledBackToken = rolledBack.fencingToken().getAsLong();
            Lease la = a.lock(name).acquire();
            before = Math.max(rolledBackToken, la.fencingToken().getAsLong());
            fixture.stopServer();
            fixture.startServer();
            la.lost().toCompletableFuture().get(LEASE.toMillis() * 2, TimeUnit.MILLISECONDS);
            rolledBack.lost().toCompletableFuture().get(LEASE.toMillis() * 2, TimeUnit.MILLISECONDS);
            assertThat(la.release()).isFalse();
            rolledBack.release();
        }
        try (MySqlLockProvider b = client()) {
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(lb.fencingToken().getAsLong()).isGreaterThan(before);
            lb.release();
        }
    }

    /** The server's clock in µs, as the token statement reads it. */
    private static long serverMicros() throws SQLException {
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void setCounter(long value) throws SQLException {
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement()) {
            assertThat(s.executeUpdate("UPDATE distlock_locks_token SET token = " + value))
                    .isEqualTo(1);
        }
    }

    @Test
    void tokenFloor_counterBehindTheClock_tokenIsTheClock(TestInfo info) throws Exception {
        String name = name(info);
        try (MySqlLockProvider a = client()) {
            long earlier =
                    a.lock(name).tryAcquire().orElseThrow().fencingToken().getAsLong();
            a.heldLeases().forEach(Lease::release);
            // as after a restore from an old backup: the counter far below the tokens handed out
            setCounter(1000);
            long clockBefore = serverMicros();
            Lease l = a.lock(name).tryAcquire().orElseThrow();
            long token = l.fencingToken().getAsLong();
            assertThat(token).isBetween(clockBefore, serverMicros()).isGreaterThan(earlier);
            l.release();
        }
    }

    @Test
    void tokenFloor_counterAheadOfTheClock_tokensContinueFromTheCounter(TestInfo info) throws Exception {
        String name = name(info);
        try (MySqlLockProvider a = client()) {
            a.lock(name).tryAcquire().orElseThrow().release(); // the counter row exists
            // as after the server's clock stepped back: the counter holds the highest token, ahead
            long ahead = serverMicros() + 3_600_000_000L;
            setCounter(ahead);
            Lease first = a.lock(name).tryAcquire().orElseThrow();
            assertThat(first.fencingToken().getAsLong()).isEqualTo(ahead + 1);
            first.release();
            Lease second = a.lock(name).tryAcquire().orElseThrow();
            assertThat(second.fencingToken().getAsLong()).isEqualTo(ahead + 2);
            second.release();
        } finally {
            setCounter(1000); // later tests expect the counter near the clock again
        }
    }

    @Test
    void serverRestartedWithoutData_tablesRecreated_tokensStillAboveEveryEarlierOne(TestInfo info) throws Exception {
        String name = name(info);
        long before;
        try (MySqlLockProvider a = client()) {
            Lease la = a.lock(name).acquire();
            before = la.fencingToken().getAsLong();
            la.release();
        }
        fixture.db().restart(false);
        try (MySqlLockProvider b = client()) { // createSchema(true): empty tables, no counter row
            Lease lb = b.lock(name).tryAcquire().orElseThrow();
            assertThat(lb.fencingToken().getAsLong())
                    .as("the clock floor lies above the tokens handed out before")
                    .isGreaterThan(before);
            lb.release();
        }
    }

    @Test
    void withLockedConnection_workCommitsWithReleaseOrRollsBackOnError(TestInfo info) throws Exception {
        String name = name(info);
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS account (id INT PRIMARY KEY, balance INT NOT NULL)");
            s.execute("REPLACE INTO account VALUES (1, 100)");
        }
        try (MySqlLockProvider a = client()) {
            Optional<Integer> r = a.withLockedConnection(name, Duration.ofSeconds(1), c -> {
                try (Statement s = c.createStatement()) {
                    return s.executeUpdate("UPDATE account SET balance = balance - 10 WHERE id = 1");
                }
            });
            assertThat(r).contains(1);
            assertThatThrownBy(() -> a.withLockedConnection(name, Duration.ofSeconds(1), c -> {
                        try (Statement s = c.createStatement()) {
                            s.executeUpdate("UPDATE account SET balance = balance - 10 WHERE id = 1");
                        }
                        throw new SQLException("business rule failed");
                    }))
                    .hasMessageContaining("business rule failed");
            assertThat(balance()).isEqualTo(90);
            assertThat(a.lock(name).tryAcquire()).as("released after failure").isPresent();
        }
    }

    private static int balance() throws SQLException {
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void claimRows_sixteenWorkers_allocateEveryStockRowExactlyOnce() throws Exception {
        allocateStock(false);
    }

    @Test
    void claimRows_workersKilledMidTransaction_everyRowStillAllocatedExactlyOnce() throws Exception {
        allocateStock(true);
    }

    @Test
    void claimRowsWithCursor_sixteenWorkers_allocateEveryStockRowExactlyOnce() throws Exception {
        allocateStock(false, ClaimCursor.usingIndex("status"));
    }

    @Test
    void claimRowsWithCursor_workersKilledMidTransaction_rowsBehindTheCursorStillAllocatedExactlyOnce()
            throws Exception {
        allocateStock(true, ClaimCursor.create());
    }

    @Test
    void claimRowsWithCursor_rowsBehindTheCursor_claimedOnceNothingIsLeftAfterIt() throws Exception {
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS queue");
            s.execute("CREATE TABLE queue (id INT PRIMARY KEY, status VARCHAR(16) NOT NULL, KEY st (status, id))");
            s.execute("INSERT INTO queue (id, status) SELECT seq, 'NEW' FROM seq_1_to_30");
        }
        ClaimCursor cursor = ClaimCursor.usingIndex("st");
        MySqlLockProvider.ClaimWork<List<Object>> take = (c, keys) -> {
            for (Object k : keys) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE queue SET status = 'DONE' WHERE id = ?")) {
                    ps.setObject(1, k);
                    ps.executeUpdate();
                }
            }
            return keys;
        };
        Map<String, Object> isNew = Map.of("status", "NEW");
        try (MySqlLockProvider p = client()) {
            // rows 1-10 claimed, then rolled back (the work fails): they are behind the cursor now
            assertThatThrownBy(() -> p.claimRows("queue", "id", isNew, 10, cursor, (c, keys) -> {
                        assertThat(keys).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
                        throw new SQLException("work failed");
                    }))
                    .hasMessage("work failed");
            assertThat(cursor.position()).contains(10);
            assertThat(p.claimRows("queue", "id", isNew, 10, cursor, take))
                    .containsExactly(11, 12, 13, 14, 15, 16, 17, 18, 19, 20);
            assertThat(p.claimRows("queue", "id", isNew, 10, cursor, take))
                    .containsExactly(21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
            // nothing after the cursor: the same call claims from the first key
            assertThat(p.claimRows("queue", "id", isNew, 10, cursor, take))
                    .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
            assertThat(cursor.position()).contains(10);
            // a row after the cursor becomes claimable again, then one behind it
            try (Connection c = fixture.db().connect();
                    Statement s = c.createStatement()) {
                s.execute("UPDATE queue SET status = 'NEW' WHERE id IN (4, 25)");
            }
            assertThat(p.claimRows("queue", "id", isNew, 10, cursor, take)).containsExactly(25);
            assertThat(p.claimRows("queue", "id", isNew, 10, cursor, take)).containsExactly(4);
            assertThat(p.claimRows("queue", "id", isNew, 10, cursor, take)).isEmpty();
            assertThat(cursor.position())
                    .as("drained: the next claim starts at the first key")
                    .isEmpty();
        }
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM queue WHERE status = 'DONE'")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(30);
        }
    }

    /**
     * 16 workers allocate 10,000 stock rows in batches of 25. With {@code kill}, every 5th batch's
     * connection is cut mid-transaction after its UPDATE (the socket closed without COMMIT, as for a
     * killed worker process): the server rolls the batch back and its rows are claimed again.
     */
    private static void allocateStock(boolean kill) throws Exception {
        allocateStock(kill, null);
    }

    /** @param cursor the claims' cursor ({@code claimRows} with a cursor), or null for claims from the first key */
    private static void allocateStock(boolean kill, ClaimCursor cursor) throws Exception {
        int rows = 10_000;
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS stock");
            s.execute("CREATE TABLE stock (id INT PRIMARY KEY, status VARCHAR(16) NOT NULL,"
                    + " worker INT NULL, allocations INT NOT NULL DEFAULT 0, KEY (status, id))");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO stock (id, status) VALUES (?, 'FREE')")) {
                for (int i = 1; i <= rows; i++) {
                    ps.setInt(1, i);
                    ps.addBatch();
                    if (i % 1000 == 0) {
                        ps.executeBatch();
                    }
                }
            }
            c.commit();
        }
        AtomicInteger killed = new AtomicInteger();
        try (MySqlLockProvider p = client()) {
            ExecutorService pool = Executors.newFixedThreadPool(16);
            AtomicInteger claimed = new AtomicInteger();
            AtomicInteger batches = new AtomicInteger();
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < 16; w++) {
                int worker = w;
                futures.add(pool.submit(() -> {
                    while (true) {
                        int n;
                        try {
                            MySqlLockProvider.ClaimWork<Integer> work = (c, keys) -> {
                                if (keys.isEmpty()) {
                                    return 0;
                                }
                                StringBuilder in = new StringBuilder();
                                for (Object k : keys) {
                                    in.append(in.length() == 0 ? "" : ",").append('?');
                                }
                                int updated;
                                try (PreparedStatement ps = c.prepareStatement("UPDATE stock SET status = 'ALLOCATED',"
                                        + " worker = ?, allocations = allocations + 1 WHERE id IN (" + in + ")")) {
                                    ps.setInt(1, worker);
                                    for (int i = 0; i < keys.size(); i++) {
                                        ps.setObject(i + 2, keys.get(i));
                                    }
                                    updated = ps.executeUpdate();
                                }
                                if (kill && batches.incrementAndGet() % 5 == 0) {
                                    killed.incrementAndGet();
                                    c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class)
                                            .abortInternal();
                                    throw new SQLException("worker killed mid-transaction");
                                }
                                return updated;
                            };
                            n = cursor == null
                                    ? p.claimRows("stock", "id", Map.of("status", "FREE"), 25, work)
                                    : p.claimRows("stock", "id", Map.of("status", "FREE"), 25, cursor, work);
                        } catch (SQLException e) {
                            if (kill) {
                                continue;
                            }
                            throw e;
                        }
                        if (n == 0) {
                            return null;
                        }
                        claimed.addAndGet(n);
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get(180, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(claimed.get()).isEqualTo(rows);
        }
        if (kill) {
            assertThat(killed.get()).isGreaterThan(10);
        }
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(allocations = 1), SUM(status = 'ALLOCATED'),"
                        + " COUNT(DISTINCT worker) FROM stock")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(rows);
            assertThat(rs.getInt(2)).as("rows allocated exactly once").isEqualTo(rows);
            assertThat(rs.getInt(3)).isEqualTo(rows);
            assertThat(rs.getInt(4)).as("workers that got rows").isGreaterThan(1);
        }
    }

    @Test
    void claimRows_badIdentifier_rejectedNamingTheArgument() {
        try (MySqlLockProvider p = client()) {
            assertThatThrownBy(() -> p.claimRows("stock; DROP TABLE x", "id", Map.of(), 1, (c, k) -> 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table");
            assertThatThrownBy(() -> p.claimRows("stock", "id", Map.of("a b", 1), 1, (c, k) -> 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("where column");
        }
    }

    @Test
    void build_wrongPassword_messageAndToStringNeverContainPassword() {
        String secret = "Wr0ng-S3cret-xyz";
        MySqlLockProvider.Builder b = MySqlLockProvider.builder()
                .jdbcUrl(fixture.db().jdbcUrl())
                .options(MySqlLockOptions.builder()
                        .credentials(Credentials.of(fixture.db().user(), secret))
                        .build());
        assertThat(b.toString()).doesNotContain(secret);
        assertThatThrownBy(b::build).satisfies(e -> {
            for (Throwable t = e; t != null; t = t.getCause()) {
                assertThat(String.valueOf(t.getMessage())).doesNotContain(secret);
            }
        });
        try (MySqlLockProvider p = client()) {
            assertThat(p.toString()).doesNotContain(fixture.db().password()).contains("distlock_locks");
        }
        assertThatThrownBy(() -> LockProviders.open("mysql://distlock:" + secret + "@127.0.0.1:"
                        + fixture.db().port() + "/distlock?bogus=1"))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("bogus")
                .hasMessageNotContaining(secret);
    }

    @Test
    void build_missingTableWithoutCreateSchema_errorNamesTheTable() {
        assertThatThrownBy(() -> MySqlLockProvider.builder()
                        .jdbcUrl(fixture.db().jdbcUrl())
                        .options(MySqlLockOptions.builder()
                                .credentials(Credentials.of(
                                        fixture.db().user(), fixture.db().password()))
                                .table("no_such_locks")
                                .build())
                        .build())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("no_such_locks")
                .hasMessageContaining("createSchema");
    }

    @Test
    void open_mysqlUri_givesWorkingProvider(TestInfo info) {
        String uri = "mysql://" + fixture.db().user() + ":" + fixture.db().password() + "@127.0.0.1:"
                + fixture.db().port() + "/" + fixture.db().database()
                + "?leaseTime=2s&createSchema=true&poolSize=3";
        try (LockProvider p = LockProviders.open(uri)) {
            assertThat(p).isInstanceOf(MySqlLockProvider.class);
            assertThat(p.toString()).doesNotContain(fixture.db().password());
            Lease l = p.lock(name(info)).tryAcquire().orElseThrow();
            assertThat(l.release()).isTrue();
        }
    }

    @Test
    void close_leavesNoServerConnections() {
        int before = fixture.serverConnectionCount();
        MySqlLockProvider p = client();
        p.lock("close-test").tryAcquire().orElseThrow();
        assertThat(fixture.serverConnectionCount()).isGreaterThan(before);
        p.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.serverConnectionCount() == before);
    }

    @Test
    void acquireRelease_uncontended_statementsCountedByServer(TestInfo info) throws Exception {
        String name = name(info);
        try (MySqlLockProvider p = client();
                Connection root = fixture.db().connect()) {
            p.lock(name).tryAcquire().orElseThrow().release(); // creates the row
            int cycles = 20;
            long q0 = questions(root);
            for (int i = 0; i < cycles; i++) {
                p.lock(name).tryAcquire().orElseThrow().release();
            }
            long perCycle = (questions(root) - q0 - 1) / cycles;
            System.out.println("mysql acquire+release statements per cycle: " + perCycle);
            // SELECT ... SKIP LOCKED, the token's INSERT ... ON DUPLICATE KEY UPDATE; COMMIT. The released connection
            // stays warm
            // (wait_timeout still the lease's) for the next acquisition; a cold one adds SET
            // wait_timeout at acquisition and its reset after the release (5)
            assertThat(perCycle).isLessThanOrEqualTo(3);
        }
    }

    /**
     * What {@code ./distlock compare}'s renewal column counts: the server's statements while locks are
     * held. Each held lock sends its own heartbeat ({@code DO 1}) every {@code leaseTime *
     * renewalFraction}, so the traffic grows with the number of held locks, and nothing else is sent
     * while holding (in particular no pool opening spare connections in the background).
     */
    @Test
    void heldLocks_trafficWhileHolding_isOneHeartbeatPerLockPerInterval(TestInfo info) throws Exception {
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofMillis(1500)).build();
        long intervalMillis = (long) (options.leaseTime().toMillis() * options.renewalFraction());
        for (int locks : new int[] {1, 5}) {
            try (MySqlLockProvider p = client(options);
                    Connection root = fixture.db().connect()) {
                List<Lease> held = new ArrayList<>();
                for (int i = 0; i < locks; i++) {
                    held.add(p.lock(name(info) + locks + "-" + i).tryAcquire().orElseThrow());
                }
                long questions0 = status(root, "Questions");
                STATUS_READS.set(0); // status reads from here on are counted in Questions, but the last
                long[] q0 = {questions0, status(root, "Com_do")};
                long start = System.nanoTime();
                int wanted = 3 * locks;
                await().atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> status(root, "Com_do") - q0[1] >= wanted);
                long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
                long[] q1 = {status(root, "Questions"), status(root, "Com_do")};
                long heartbeats = q1[1] - q0[1];
                long other = (q1[0] - q0[0]) - heartbeats - (STATUS_READS.get() - 1);
                System.out.printf(
                        "mysql %d held locks: %d heartbeats in %d ms (interval %d ms), other statements %d%n",
                        locks, heartbeats, elapsedMillis, intervalMillis, other);
                assertThat(other)
                        .as("statements other than heartbeats while holding")
                        .isZero();
                // per lock: 3 heartbeats take about 3 intervals; one heartbeat for all locks would
                // need 3 * locks intervals
                assertThat(elapsedMillis)
                        .as("time for %d heartbeats with %d locks", wanted, locks)
                        .isLessThan(intervalMillis * (3 + 4));
                for (Lease l : held) {
                    assertThat(l.release()).isTrue();
                }
            }
        }
    }

    private static final AtomicLong STATUS_READS = new AtomicLong();

    private static long status(Connection root, String variable) throws SQLException {
        STATUS_READS.incrementAndGet();
        try (Statement s = root.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE '" + variable + "'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    @Test
    void close_waiterBlockedOnRowLock_returnsPromptly(TestInfo info) throws Exception {
        String name = name(info);
        try (MySqlLockProvider a = client()) {
            Lease la = a.lock(name).acquire();
            MySqlLockProvider b = client();
            CompletableFuture<Object> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock(name).tryAcquire(Duration.ofSeconds(30));
                } catch (Exception e) {
                    return e;
                }
            });
            await().pollDelay(Duration.ofMillis(300)).until(() -> !waiter.isDone());
            long closing = System.nanoTime();
            b.close();
            Object outcome = waiter.get(5, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closing))
                    .isLessThan(3000);
            assertThat(outcome).isNotInstanceOf(Optional.class);
            assertThat(la.isValid()).isTrue();
            la.release();
        }
    }

    @Test
    void dataSource_callersPool_locksWorkAndAutocommitIsRestored(TestInfo info) throws Exception {
        String name = name(info);
        com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
        cfg.setJdbcUrl(fixture.db().jdbcUrl());
        cfg.setUsername(fixture.db().user());
        cfg.setPassword(fixture.db().password());
        cfg.setMaximumPoolSize(4);
        cfg.setPoolName("test-callers-pool");
        try (com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource(cfg);
                MySqlLockProvider p = MySqlLockProvider.builder()
                        .dataSource(ds)
                        .options(MySqlLockOptions.builder().createSchema(true).build())
                        .leaseTime(LEASE)
                        .build();
                MySqlLockProvider other = client()) {
            Lease l = p.lock(name).tryAcquire().orElseThrow();
            assertThat(p.connection(l).getAutoCommit()).isFalse();
            assertThat(other.lock(name).tryAcquire()).isEmpty();
            assertThat(l.release()).isTrue();
            try (Connection c = ds.getConnection()) {
                assertThat(c.getAutoCommit()).isTrue();
            }
        }
    }

    @Test
    void mutualExclusion_threadsInSeveralClients_noLostUpdate(TestInfo info) throws Exception {
        String name = name(info);
        int clients = 3;
        int threadsPerClient = 3;
        int rounds = 15;
        List<MySqlLockProvider> providers = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            providers.add(client());
        }
        AtomicInteger counter = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients * threadsPerClient);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (MySqlLockProvider p : providers) {
                for (int t = 0; t < threadsPerClient; t++) {
                    futures.add(pool.submit(() -> {
                        for (int r = 0; r < rounds; r++) {
                            try (Lease l = p.lock(name).acquire()) {
                                if (inside.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                int v = counter.get();
                                Thread.yield();
                                counter.set(v + 1);
                                inside.decrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            providers.forEach(MySqlLockProvider::close);
        }
        assertThat(overlaps.get()).isZero();
        assertThat(counter.get()).isEqualTo(clients * threadsPerClient * rounds);
    }

    @Test
    void connection_leaseLostByMaxHoldTime_workRolledBack(TestInfo info) throws Exception {
        String name = name(info);
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS account (id INT PRIMARY KEY, balance INT NOT NULL)");
            s.execute("REPLACE INTO account VALUES (2, 100)");
        }
        try (MySqlLockProvider a = client(LockOptions.builder()
                        .leaseTime(LEASE)
                        .maxHoldTime(Duration.ofMillis(500))
                        .build());
                MySqlLockProvider b = client()) {
            Lease l = a.lock(name).acquire();
            try (Statement s = a.connection(l).createStatement()) {
                s.executeUpdate("UPDATE account SET balance = 0 WHERE id = 2");
            }
            l.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            try (Connection c = fixture.db().connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = 2")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(100);
            }
            assertThat(l.release()).isFalse();
            lb.release();
        }
    }

    private static long questions(Connection root) throws SQLException {
        try (Statement s = root.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Questions'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    /**
     * One provider with the default pool (10 connections): {@link PoolExhaustion} (a zero-wait {@code
     * tryAcquire()} on an exhausted pool fails at once with {@code PoolExhaustedException}, a waiting
     * one waits only its wait, the pool's numbers show it).
     */
    @Test
    void poolExhausted_tryAcquireFailsAtOnceNamingThePool_waitingTryAcquireWaitsOnlyItsWait(TestInfo info)
            throws Exception {
        try (MySqlLockProvider p = MySqlLockProvider.builder()
                .jdbcUrl(fixture.db().jdbcUrl())
                .options(MySqlLockOptions.builder()
                        .credentials(
                                Credentials.of(fixture.db().user(), fixture.db().password()))
                        .createSchema(true)
                        .build())
                .leaseTime(LEASE)
                .build()) {
            PoolExhaustion.check(p, name(info), true);
        }
    }
}
