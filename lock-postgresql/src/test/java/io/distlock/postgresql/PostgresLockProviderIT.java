package io.distlock.postgresql;

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
import io.distlock.testing.servers.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.text.Normalizer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** The PostgreSQL provider against a real PostgreSQL 15 (with {@code pg_stat_statements} loaded). */
class PostgresLockProviderIT {
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final JdbcFencingGuard GUARD = JdbcFencingGuard.create();
    private static PostgresTckFixture fixture;

    @BeforeAll
    static void startServer() throws SQLException {
        fixture = new PostgresTckFixture(
                PostgresServer.builder().statementStatistics(true).start(), false, false);
        try (Connection c = db().connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + GUARD.table()
                    + " (resource varchar(255) COLLATE \"C\" PRIMARY KEY, token bigint NOT NULL)");
        }
    }

    @AfterAll
    static void stopServer() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private static PostgresServer db() {
        return fixture.db();
    }

    private static PostgresLockProvider client() {
        return client(LockOptions.builder().leaseTime(LEASE).build());
    }

    private static PostgresLockProvider client(LockOptions options) {
        return fixture.newPostgresClient(options);
    }

    private static String name(TestInfo info) {
        return info.getTestMethod().orElseThrow().getName() + "/ünï 'q\"%";
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    @Test
    void tryAcquire_heldByOtherClient_returnsEmptyThenNextHolderGetsLargerToken(TestInfo info) {
        String name = name(info);
        try (PostgresLockProvider a = client();
                PostgresLockProvider b = client()) {
            Lease la = a.lock(name).tryAcquire().orElseThrow();
            assertThat(la.isValid()).isTrue();
            long sequence = sequenceLastValue();
            assertThat(b.lock(name).tryAcquire()).isEmpty();
            assertThat(a.lock(name).tryAcquire()).as("not reentrant").isEmpty();
            assertThat(sequenceLastValue())
                    .as("a claim that finds the row held draws no token")
                    .isEqualTo(sequence);
            assertThat(la.release()).isTrue();
            Lease lb = b.lock(name).tryAcquire().orElseThrow();
            assertThat(lb.fencingToken().getAsLong())
                    .isGreaterThan(la.fencingToken().getAsLong());
            assertThat(lb.release()).isTrue();
            assertThat(lb.release()).as("second release").isFalse();
        }
    }

    @Test
    void names_differingInCaseTrailingSpaceOrNormalisation_areDifferentLocks_sameNameIsTheSameLock() {
        String nfc = Normalizer.normalize("café-lock", Normalizer.Form.NFC);
        String nfd = Normalizer.normalize("café-lock", Normalizer.Form.NFD);
        assertThat(nfc).isNotEqualTo(nfd);
        List<String> names = List.of("Report", "report", "REPORT", "report ", "report  ", nfc, nfd);
        try (PostgresLockProvider a = client();
                PostgresLockProvider b = client()) {
            List<Lease> held = new ArrayList<>();
            for (String n : names) {
                held.add(a.lock(n).tryAcquire().orElseThrow(() -> new AssertionError("'" + n + "' is its own lock")));
            }
            for (String n : names) {
                assertThat(b.lock(n).tryAcquire())
                        .as("the same name '%s' from another client", n)
                        .isEmpty();
                // the same text built anew (not the same String instance) is the same lock
                assertThat(b.lock(new String(n.toCharArray())).tryAcquire()).isEmpty();
            }
            for (Lease l : held) {
                assertThat(l.release()).isTrue();
            }
        }
        String rows = db().executeAsSuperuser(
                        "SELECT count(*) FROM distlock_locks WHERE name IN ('Report', 'report', 'REPORT', 'report ',"
                                + " 'report  ', '" + nfc + "', '" + nfd + "')");
        assertThat(rows.trim()).as("one row per name, stored as given").isEqualTo("7");
    }

    @Test
    void tryAcquireWithWait_holderReleases_waiterWokenByRowLock(TestInfo info) throws Exception {
        String name = name(info);
        try (PostgresLockProvider a = client();
                PostgresLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            CompletableFuture<Optional<Lease>> waiter = waitFor(b, name);
            await().pollDelay(Duration.ofMillis(300)).until(() -> !waiter.isDone());
            long clockBeforeRelease = serverMicros();
            long released = System.nanoTime();
            la.release();
            Lease lb = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(millisSince(released)).as("hand-off latency").isLessThan(1000);
            assertThat(lb.fencingToken().getAsLong())
                    .isGreaterThan(la.fencingToken().getAsLong())
                    .as("drawn once the row lock was granted, not when the wait began")
                    .isGreaterThan(clockBeforeRelease);
            // the wait's lock_timeout does not bound the holder's own statements
            try (Statement s = b.connection(lb).createStatement();
                    ResultSet rs = s.executeQuery("SHOW lock_timeout")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("0");
            }
            assertThat(lb.release()).isTrue();
        }
    }

    /**
     * A lock granted by a wait is valid from when the wait statement was sent (the server's idle
     * limit starts when the statement answers, and a holder paused before it reads the answer must
     * not count its lease from after the pause), and a wait statement lasts at most half the lease,
     * so a wait longer than the lease still hands over a lease with at least half of it left.
     */
    @Test
    void tryAcquireWithWait_grantedLease_validFromWhenTheWaitWasSent_longWaitKeepsHalfTheLease(TestInfo info)
            throws Exception {
        String name = name(info);
        try (PostgresLockProvider a = client();
                PostgresLockProvider b = client()) {
            WaitGrantValidity.check(a, b, name, LEASE);
        }
    }

    @Test
    void tryAcquireWithWait_heldThroughout_returnsEmptyAtDeadlineAndLeavesNothingBehind(TestInfo info)
            throws Exception {
        String name = name(info);
        try (PostgresLockProvider a = client();
                PostgresLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            long sequence = sequenceLastValue();
            long start = System.nanoTime();
            assertThat(b.lock(name).tryAcquire(Duration.ofMillis(400))).isEmpty();
            assertThat(millisSince(start)).isBetween(390L, 1500L);
            assertThat(sequenceLastValue())
                    .as("a wait that ends without the lock draws no token")
                    .isEqualTo(sequence);
            assertThat(la.isValid()).isTrue();
            assertThat(sessionsInTransaction())
                    .as("sessions of the role in an open transaction: only the holder's")
                    .isEqualTo(1);
            la.release();
            assertThat(b.lock(name).tryAcquire()).isPresent();
        }
    }

    /** Sessions of the fixture's role inside a transaction (holding or waiting). */
    private static int sessionsInTransaction() {
        return Integer.parseInt(db().executeAsSuperuser("SELECT count(*) FROM pg_stat_activity WHERE usename = '"
                        + fixture.clientRole() + "' AND xact_start IS NOT NULL")
                .trim());
    }

    @Test
    void acquire_interrupted_stopsPromptlyAndLeavesNothingHeld(TestInfo info) throws Exception {
        String name = name(info);
        try (PostgresLockProvider a = client();
                PostgresLockProvider b = client()) {
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
            assertThat(millisSince(interrupted)).isLessThan(1000);
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
            assertThat(sessionsInTransaction())
                    .as("only the holder is in a transaction")
                    .isEqualTo(1);
            la.release();
            assertThat(b.heldLeases()).isEmpty();
            try (PostgresLockProvider c = client()) {
                c.lock(name).tryAcquire().orElseThrow().release();
            }
        }
    }

    @Test
    void terminatedSession_holderLosesLeaseOtherAcquiresAndStaleWriteIsRejected(TestInfo info) throws Exception {
        String name = name(info);
        try (PostgresLockProvider a = client();
                PostgresLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            long tokenA = la.fencingToken().getAsLong();
            fixture.expireLease(name);
            la.lost().toCompletableFuture().get(LEASE.toMillis() * 2, TimeUnit.MILLISECONDS);
            assertThat(la.isValid()).isFalse();
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            long tokenB = lb.fencingToken().getAsLong();
            assertThat(tokenB).isGreaterThan(tokenA);
            guardedWrite(name, tokenB);
            assertThatThrownBy(() -> guardedWrite(name, tokenA)).isInstanceOf(StaleTokenException.class);
            assertThat(la.release()).isFalse();
            assertThat(lb.release()).isTrue();
        }
    }

    private static void guardedWrite(String resource, long token) throws SQLException {
        try (Connection c = db().connect()) {
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

    @Test
    void frozenHolder_serverEndsItsTransactionOneLeaseAfterItsLastRequest(TestInfo info) throws Exception {
        String name = name(info);
        PostgresLockProvider a = client();
        try (PostgresLockProvider b = client()) {
            long beforeAcquire = System.nanoTime();
            Lease la = a.lock(name).acquire();
            long acquired = System.nanoTime();
            fixture.crashClient(a); // frozen: no heartbeat, connections open and silent
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            // idle_in_transaction_session_timeout = the lease, in milliseconds, counted from the end of
            // the claim, which lies between the two readings
            assertThat(millisSince(beforeAcquire)).isGreaterThanOrEqualTo(LEASE.toMillis());
            assertThat(millisSince(acquired)).isLessThanOrEqualTo(LEASE.toMillis() + 700);
            assertThat(lb.fencingToken().getAsLong())
                    .isGreaterThan(la.fencingToken().getAsLong());
            lb.release();
        } finally {
            a.close();
        }
    }

    @Test
    void extend_movesTheServersIdleLimit_frozenHolderKeepsTheLockForTheNewLeaseTime(TestInfo info) throws Exception {
        String name = name(info);
        Duration lease = Duration.ofSeconds(1);
        Duration extended = Duration.ofMillis(3000);
        PostgresLockProvider a =
                client(LockOptions.builder().leaseTime(lease).autoRenew(false).build());
        try (PostgresLockProvider b = client()) {
            Lease la = a.lock(name).acquire();
            long beforeExtend = System.nanoTime();
            la.extend(extended);
            long extendedAt = System.nanoTime();
            fixture.crashClient(a);
            assertThat(b.lock(name).tryAcquire(lease.plus(Duration.ofMillis(500))))
                    .as("after the original lease")
                    .isEmpty();
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow();
            assertThat(millisSince(beforeExtend)).isGreaterThanOrEqualTo(extended.toMillis());
            assertThat(millisSince(extendedAt)).isLessThanOrEqualTo(extended.toMillis() + 700);
            lb.release();
        } finally {
            a.close();
        }
    }

    @Test
    void noRenewal_leaseRunsOut_providerFreesTheLockAtOnce(TestInfo info) throws Exception {
        String name = name(info);
        Duration lease = Duration.ofSeconds(1);
        try (PostgresLockProvider a = client(
                        LockOptions.builder().leaseTime(lease).autoRenew(false).build());
                PostgresLockProvider b = client()) {
            assertThat(a.capabilities().automaticRenewal()).isFalse();
            Lease la = a.lock(name).acquire();
            long acquired = System.nanoTime();
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            // freed by the provider at the lease's validity deadline (lease minus safety margin),
            // not by the server's idle limit a little later
            assertThat(millisSince(acquired)).isBetween(lease.toMillis() / 2, lease.toMillis() + 300);
            assertThat(la.isValid()).isFalse();
            assertThat(la.lost().toCompletableFuture().isDone()).isTrue();
            assertThat(la.release()).isFalse();
            lb.release();
        }
    }

    @Test
    void heldLease_renewedByHeartbeat_survivesSeveralLeaseTimes(TestInfo info) {
        String name = name(info);
        try (PostgresLockProvider a = client();
                PostgresLockProvider b = client()) {
            Lease la = a.lock(name).tryAcquire().orElseThrow();
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
    void serverRestartedWithData_holdersToldLostAndTokensKeepIncreasing(TestInfo info) throws Exception {
        String name = name(info);
        long before;
        try (PostgresLockProvider a = client()) {
            Lease la = a.lock(name).acquire();
            before = la.fencingToken().getAsLong();
            fixture.stopServer();
            fixture.startServer();
            la.lost().toCompletableFuture().get(LEASE.toMillis() * 2, TimeUnit.MILLISECONDS);
            assertThat(la.release()).isFalse();
        }
        try (PostgresLockProvider b = client()) {
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(lb.fencingToken().getAsLong()).isGreaterThan(before);
            lb.release();
        }
    }

    @Test
    void serverRestartedWithoutData_schemaRecreated_tokensStillAboveEveryEarlierOne(TestInfo info) throws Exception {
        String name = name(info);
        long before;
        try (PostgresLockProvider a = client()) {
            Lease la = a.lock(name).acquire();
            before = la.fencingToken().getAsLong();
            la.release();
        }
        db().restart(false);
        try (Connection c = db().connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + GUARD.table()
                    + " (resource varchar(255) COLLATE \"C\" PRIMARY KEY, token bigint NOT NULL)");
        }
        try (PostgresLockProvider b = client()) { // createSchema(true): a new table and a new sequence
            assertThat(db().executeAsSuperuser("SELECT last_value FROM distlock_locks_token")
                            .trim())
                    .as("the new sequence starts at 1")
                    .isEqualTo("1");
            Lease lb = b.lock(name).tryAcquire().orElseThrow();
            assertThat(lb.fencingToken().getAsLong())
                    .as("the clock floor lies above the tokens handed out before")
                    .isGreaterThan(before);
            lb.release();
        }
    }

    /** {@code p.lock(name).tryAcquire(20 s)} on another thread. */
    private static CompletableFuture<Optional<Lease>> waitFor(PostgresLockProvider p, String name) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return p.lock(name).tryAcquire(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The token sequence's last value. */
    private static long sequenceLastValue() {
        return Long.parseLong(db().executeAsSuperuser("SELECT last_value FROM distlock_locks_token")
                .trim());
    }

    /** The server's clock in µs, as the token statement reads it. */
    private static long serverMicros() {
        return Long.parseLong(
                db().executeAsSuperuser("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint")
                        .trim());
    }

    @Test
    void tokenFloor_sequenceBehindTheClock_tokenIsTheClockAndTheSequenceFollows(TestInfo info) {
        String name = name(info);
        try (PostgresLockProvider a = client()) {
            long earlier =
                    a.lock(name).tryAcquire().orElseThrow().fencingToken().getAsLong();
            a.heldLeases().forEach(Lease::release);
            // as after a restore from an old backup: the sequence far below the tokens handed out
            db().executeAsSuperuser("SELECT setval('distlock_locks_token', 1000)");
            long clockBefore = serverMicros();
            Lease l = a.lock(name).tryAcquire().orElseThrow();
            long token = l.fencingToken().getAsLong();
            long clockAfter = serverMicros();
            assertThat(token).isBetween(clockBefore, clockAfter).isGreaterThan(earlier);
            assertThat(Long.parseLong(db().executeAsSuperuser("SELECT last_value FROM distlock_locks_token")
                            .trim()))
                    .as("setval moved the sequence to the token")
                    .isEqualTo(token);
            l.release();
        }
    }

    @Test
    void tokenFloor_sequenceAheadOfTheClock_tokensContinueFromTheSequence(TestInfo info) {
        String name = name(info);
        try (PostgresLockProvider a = client()) {
            // as after the server's clock stepped back: the sequence holds the highest token, ahead
            long ahead = serverMicros() + 3_600_000_000L;
            db().executeAsSuperuser("SELECT setval('distlock_locks_token', " + ahead + ")");
            Lease first = a.lock(name).tryAcquire().orElseThrow();
            assertThat(first.fencingToken().getAsLong()).isEqualTo(ahead + 1);
            first.release();
            Lease second = a.lock(name).tryAcquire().orElseThrow();
            assertThat(second.fencingToken().getAsLong()).isEqualTo(ahead + 2);
            second.release();
        } finally {
            // later tests expect the sequence near the clock again
            db().executeAsSuperuser("SELECT setval('distlock_locks_token', 1000)");
        }
    }

    @Test
    void withLockedConnection_workCommitsWithReleaseOrRollsBackOnError(TestInfo info) throws Exception {
        String name = name(info);
        try (Connection c = db().connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS account (id int PRIMARY KEY, balance int NOT NULL)");
            s.execute("INSERT INTO account VALUES (1, 100) ON CONFLICT (id) DO UPDATE SET balance = 100");
        }
        try (PostgresLockProvider a = client()) {
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
            assertThat(balance(1)).isEqualTo(90);
            assertThat(a.lock(name).tryAcquire()).as("released after failure").isPresent();
        }
    }

    private static int balance(int id) throws SQLException {
        try (Connection c = db().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT balance FROM account WHERE id = " + id)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Test
    void connection_leaseLostByMaxHoldTime_workRolledBack(TestInfo info) throws Exception {
        String name = name(info);
        try (Connection c = db().connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS account (id int PRIMARY KEY, balance int NOT NULL)");
            s.execute("INSERT INTO account VALUES (2, 100) ON CONFLICT (id) DO UPDATE SET balance = 100");
        }
        try (PostgresLockProvider a = client(LockOptions.builder()
                        .leaseTime(LEASE)
                        .maxHoldTime(Duration.ofMillis(500))
                        .build());
                PostgresLockProvider b = client()) {
            Lease l = a.lock(name).acquire();
            try (Statement s = a.connection(l).createStatement()) {
                s.executeUpdate("UPDATE account SET balance = 0 WHERE id = 2");
            }
            l.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
            Lease lb = b.lock(name).tryAcquire(Duration.ofSeconds(5)).orElseThrow();
            assertThat(balance(2)).isEqualTo(100);
            assertThat(l.release()).isFalse();
            lb.release();
        }
    }

    @Test
    void claimRows_sixteenWorkers_allocateEveryStockRowExactlyOnce() throws Exception {
        StockAllocation.run(fixture, false);
    }

    @Test
    void claimRows_workersKilledMidTransaction_everyRowStillAllocatedExactlyOnce() throws Exception {
        StockAllocation.run(fixture, true);
    }

    @Test
    void claimRows_badIdentifier_rejectedNamingTheArgument() {
        try (PostgresLockProvider p = client()) {
            assertThatThrownBy(() -> p.claimRows("stock; DROP TABLE x", "id", java.util.Map.of(), 1, (c, k) -> 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("table");
            assertThatThrownBy(() -> p.claimRows("stock", "id", java.util.Map.of("a b", 1), 1, (c, k) -> 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("where column");
        }
    }

    @Test
    void build_missingTableWithoutCreateSchema_errorNamesTheTable() {
        assertThatThrownBy(() -> PostgresLockProvider.builder()
                        .jdbcUrl(db().jdbcUrl())
                        .options(PostgresLockOptions.builder()
                                .credentials(io.distlock.Credentials.of(db().user(), db().password()))
                                .table("no_such_locks")
                                .build())
                        .build())
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("no_such_locks")
                .hasMessageContaining("createSchema");
    }

    @Test
    void open_postgresqlUri_givesWorkingProvider(TestInfo info) {
        for (String scheme : List.of("postgresql", "postgres")) {
            String uri = scheme + "://" + db().user() + ":" + db().password() + "@127.0.0.1:" + db().port() + "/"
                    + db().database() + "?leaseTime=2s&createSchema=true&poolSize=3";
            try (LockProvider p = LockProviders.open(uri)) {
                assertThat(p).isInstanceOf(PostgresLockProvider.class);
                assertThat(p.toString()).doesNotContain(db().password());
                Lease l = p.lock(name(info)).tryAcquire().orElseThrow();
                assertThat(l.release()).isTrue();
            }
        }
    }

    @Test
    void close_leavesNoServerConnections() {
        int before = fixture.serverConnectionCount();
        PostgresLockProvider p = client();
        p.lock("close-test").tryAcquire().orElseThrow();
        assertThat(fixture.serverConnectionCount()).isGreaterThan(before);
        p.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.serverConnectionCount() == before);
    }

    /**
     * Statements per uncontended acquire + release, counted by the server ({@code
     * pg_stat_statements}, utility statements included): {@code BEGIN} (which the driver sends in
     * the same round trip as the claim), the claim, which draws the token, and the {@code COMMIT} of
     * the release: 3 statements in 2 round trips, nothing else. {@code pg_stat_statements} counts a {@code
     * COMMIT} the driver sends again on a connection only once (the driver prepares it on the
     * server; re-executed utility statements are not counted), so the {@code COMMIT}s are counted
     * as the transactions the {@code BEGIN}s opened.
     */
    @Test
    void acquireRelease_uncontended_statementsCountedByServer(TestInfo info) {
        String name = name(info);
        try (PostgresLockProvider p = client()) {
            p.lock(name).tryAcquire().orElseThrow().release(); // creates the row
            int cycles = 50;
            java.util.Map<String, Long> s0 = statementCounts();
            for (int i = 0; i < cycles; i++) {
                p.lock(name).tryAcquire().orElseThrow().release();
            }
            java.util.Map<String, Long> s1 = statementCounts();
            java.util.Map<String, Long> perCycle = new java.util.TreeMap<>();
            s1.forEach((q, n) -> {
                long d = n - s0.getOrDefault(q, 0L);
                if (d != 0 && !q.equals("COMMIT")) {
                    perCycle.put(q, d / cycles);
                }
            });
            System.out.println("postgresql acquire+release statements per cycle (COMMIT aside): " + perCycle);
            assertThat(perCycle).hasSize(2).containsEntry("BEGIN", 1L);
            assertThat(perCycle.keySet())
                    .as("the claim draws the token itself")
                    .anySatisfy(q ->
                            assertThat(q).contains("FOR UPDATE SKIP LOCKED").contains("nextval"));
            assertThat(perCycle.values()).containsOnly(1L);
        }
    }

    /** The role's statements by text ({@code pg_stat_statements}), as the superuser. */
    private static java.util.Map<String, Long> statementCounts() {
        java.util.Map<String, Long> out = new java.util.HashMap<>();
        String rows = db().executeAsSuperuser("SELECT s.calls || '|' || s.query FROM pg_stat_statements s JOIN pg_roles"
                + " r ON r.oid = s.userid WHERE r.rolname = '" + fixture.clientRole() + "'");
        for (String row : rows.split("\n")) {
            int bar = row.indexOf('|');
            if (bar > 0) {
                out.merge(row.substring(bar + 1), Long.parseLong(row.substring(0, bar)), Long::sum);
            }
        }
        return out;
    }

    @Test
    void close_waiterBlockedOnRowLock_returnsPromptly(TestInfo info) throws Exception {
        String name = name(info);
        try (PostgresLockProvider a = client()) {
            Lease la = a.lock(name).acquire();
            PostgresLockProvider b = client();
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
            assertThat(millisSince(closing)).isLessThan(3000);
            assertThat(outcome).isNotInstanceOf(Optional.class);
            assertThat(la.isValid()).isTrue();
            la.release();
        }
    }

    @Test
    void dataSource_callersPool_locksWorkAndAutocommitIsRestored(TestInfo info) throws Exception {
        String name = name(info);
        com.zaxxer.hikari.HikariConfig cfg = new com.zaxxer.hikari.HikariConfig();
        cfg.setJdbcUrl(db().jdbcUrl());
        cfg.setUsername(db().user());
        cfg.setPassword(db().password());
        cfg.setMaximumPoolSize(4);
        cfg.setPoolName("test-callers-pool");
        try (com.zaxxer.hikari.HikariDataSource ds = new com.zaxxer.hikari.HikariDataSource(cfg);
                PostgresLockProvider p = PostgresLockProvider.builder()
                        .dataSource(ds)
                        .options(
                                PostgresLockOptions.builder().createSchema(true).build())
                        .leaseTime(LEASE)
                        .build();
                PostgresLockProvider other = client()) {
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
        List<PostgresLockProvider> providers = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            providers.add(client());
        }
        AtomicInteger counter = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients * threadsPerClient);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (PostgresLockProvider p : providers) {
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
            providers.forEach(PostgresLockProvider::close);
        }
        assertThat(overlaps.get()).isZero();
        assertThat(counter.get()).isEqualTo(clients * threadsPerClient * rounds);
    }

    /**
     * One provider with the default pool (10 connections): {@link PoolExhaustion} (a zero-wait {@code
     * tryAcquire()} on an exhausted pool fails at once with {@code PoolExhaustedException}, a waiting
     * one waits only its wait, the pool's numbers show it).
     */
    @Test
    void poolExhausted_tryAcquireFailsAtOnceNamingThePool_waitingTryAcquireWaitsOnlyItsWait(TestInfo info)
            throws Exception {
        try (PostgresLockProvider p = PostgresLockProvider.builder()
                .jdbcUrl(db().jdbcUrl())
                .options(PostgresLockOptions.builder()
                        .credentials(Credentials.of(db().user(), db().password()))
                        .createSchema(true)
                        .build())
                .leaseTime(LEASE)
                .build()) {
            PoolExhaustion.check(p, name(info), false);
        }
    }

    /**
     * Providers that start at the same moment with {@code createSchema=true} all open:
     * PostgreSQL's {@code CREATE TABLE IF NOT EXISTS} is not safe against itself in two sessions
     * (the loser fails on the catalog's unique index), so the provider runs the DDL again.
     */
    @Test
    void createSchema_byProvidersStartingTogether_opensEveryOne() throws Exception {
        String uri = "postgresql://" + db().user() + ":" + db().password() + "@" + db().address() + "/"
                + db().database() + "?createSchema=true&table=race_" + System.nanoTime();
        int providers = 6;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(providers);
        try {
            List<Future<LockProvider>> opened = new ArrayList<>();
            for (int i = 0; i < providers; i++) {
                opened.add(pool.submit(() -> {
                    start.await();
                    return LockProviders.open(uri);
                }));
            }
            start.countDown();
            List<LockProvider> open = new ArrayList<>();
            try {
                for (Future<LockProvider> f : opened) {
                    open.add(f.get(30, TimeUnit.SECONDS));
                }
                try (Lease lease = open.get(0).lock("race").tryAcquire().orElseThrow()) {
                    assertThat(open.get(providers - 1).lock("race").tryAcquire())
                            .as("the tables all providers created are one")
                            .isEmpty();
                }
            } finally {
                open.forEach(LockProvider::close);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
