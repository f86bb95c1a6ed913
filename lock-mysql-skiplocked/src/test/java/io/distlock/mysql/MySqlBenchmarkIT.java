package io.distlock.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Measurements, not timed tests: writes {@code target/benchmarks/mysql.json} and asserts only that
 * every scenario did work. Bounded: each scenario runs a few seconds. Numbers from a shared 2-core
 * machine are indicative only.
 */
class MySqlBenchmarkIT {
    private static final Duration SCENARIO = Duration.ofSeconds(4);
    private static final int WORKERS = 16;
    private static final int BATCH = 10;
    /** Simulated processing per batch inside the transaction (an external call, a computation). */
    private static final long WORK_MILLIS = 5;

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

    @Test
    void benchmark_writesJson() throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("server", serverVersion());
        out.put("claim_workers", WORKERS);
        out.put("claim_batch", BATCH);
        out.put("claim_work_ms_per_batch", WORK_MILLIS);
        try (MySqlLockProvider p = fixture.newMySqlClient(
                LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build())) {
            out.put("select1_p50_us", select1P50Micros());
            out.put("acquire_release_p50_us", acquireReleaseP50Micros(p));
            out.put("acquire_release_statements", statementsPerCycle(p));
            out.put("handoff_rowlock_wait_p50_us", handOffP50Micros(p, false));
            out.put("handoff_jittered_polling_p50_us", handOffP50Micros(p, true));
            out.put("claim_rows_per_s_skip_locked", claimThroughput(p, "skip"));
            out.put("claim_rows_per_s_for_update", claimThroughput(p, "wait"));
            out.put("claim_rows_per_s_lock_plus_1s_sleep_retry", claimThroughput(p, "sleep"));
        }
        StringBuilder json = new StringBuilder("{\n");
        int i = 0;
        for (Map.Entry<String, Object> e : out.entrySet()) {
            json.append("  \"").append(e.getKey()).append("\": ");
            json.append(e.getValue() instanceof String ? "\"" + e.getValue() + "\"" : e.getValue());
            json.append(++i < out.size() ? ",\n" : "\n");
        }
        json.append("}\n");
        Path file = Path.of("target", "benchmarks", "mysql.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, json);
        System.out.println(json);
        assertThat((Double) out.get("claim_rows_per_s_skip_locked")).isPositive();
        assertThat((Double) out.get("claim_rows_per_s_lock_plus_1s_sleep_retry"))
                .isPositive();
    }

    private static String serverVersion() throws SQLException {
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT VERSION()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static long p50(long[] nanos) {
        Arrays.sort(nanos);
        return nanos[nanos.length / 2] / 1000;
    }

    private static long select1P50Micros() throws SQLException {
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement()) {
            long[] t = new long[500];
            for (int i = 0; i < t.length; i++) {
                long start = System.nanoTime();
                s.executeQuery("SELECT 1").close();
                t[i] = System.nanoTime() - start;
            }
            return p50(t);
        }
    }

    private static long acquireReleaseP50Micros(MySqlLockProvider p) {
        long[] t = new long[300];
        p.lock("bench").tryAcquire().orElseThrow().release();
        for (int i = 0; i < t.length; i++) {
            long start = System.nanoTime();
            p.lock("bench").tryAcquire().orElseThrow().release();
            t[i] = System.nanoTime() - start;
        }
        return p50(t);
    }

    private static long statementsPerCycle(MySqlLockProvider p) throws SQLException {
        try (Connection root = fixture.db().connect()) {
            long q0 = questions(root);
            for (int i = 0; i < 50; i++) {
                p.lock("bench").tryAcquire().orElseThrow().release();
            }
            return (questions(root) - q0 - 1) / 50;
        }
    }

    private static long questions(Connection root) throws SQLException {
        try (Statement s = root.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Questions'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    /** Release by the holder to acquisition by a waiter, waiting on the row lock or polling. */
    private static long handOffP50Micros(MySqlLockProvider p, boolean polling) throws Exception {
        long[] t = new long[30];
        ExecutorService ex = Executors.newSingleThreadExecutor();
        try {
            for (int i = 0; i < t.length; i++) {
                Lease held = p.lock("handoff").acquire();
                Future<Long> waiter = ex.submit(() -> {
                    if (!polling) {
                        Lease l = p.lock("handoff")
                                .tryAcquire(Duration.ofSeconds(10))
                                .orElseThrow();
                        long at = System.nanoTime();
                        l.release();
                        return at;
                    }
                    long backoff = 2;
                    while (true) {
                        Optional<Lease> l = p.lock("handoff").tryAcquire();
                        if (l.isPresent()) {
                            long at = System.nanoTime();
                            l.get().release();
                            return at;
                        }
                        Thread.sleep(ThreadLocalRandom.current().nextLong(backoff / 2, backoff + 1));
                        backoff = Math.min(backoff * 2, 50);
                    }
                });
                // let the waiter block (measurement only; the waiter tolerates any timing)
                Thread.sleep(60);
                long released = System.nanoTime();
                held.release();
                t[i] = waiter.get(20, TimeUnit.SECONDS) - released;
            }
        } finally {
            ex.shutdownNow();
        }
        return p50(t);
    }

    private static void resetStock(int rows) throws SQLException {
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_stock");
            s.execute("CREATE TABLE bench_stock (id INT PRIMARY KEY, status VARCHAR(16) NOT NULL,"
                    + " KEY (status, id))");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench_stock (id, status) VALUES (?, 'FREE')")) {
                for (int i = 1; i <= rows; i++) {
                    ps.setInt(1, i);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
        }
    }

    private static int allocate(Connection c, List<Object> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        try {
            Thread.sleep(WORK_MILLIS); // simulated processing of the batch, not a wait for state
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException(e);
        }
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < ids.size(); i++) {
            in.append(i == 0 ? "?" : ",?");
        }
        try (PreparedStatement ps = c.prepareStatement(
                "UPDATE bench_stock SET status = 'ALLOCATED' WHERE status = 'FREE' AND id IN (" + in + ")")) {
            for (int i = 0; i < ids.size(); i++) {
                ps.setObject(i + 1, ids.get(i));
            }
            return ps.executeUpdate();
        }
    }

    private static List<Object> selectFree(Connection c) throws SQLException {
        List<Object> ids = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id FROM bench_stock WHERE status = 'FREE' ORDER BY id LIMIT "
                        + BATCH + " FOR UPDATE")) {
            while (rs.next()) {
                ids.add(rs.getObject(1));
            }
        }
        return ids;
    }

    /** Rows allocated per second by 16 workers within the scenario time. */
    private static double claimThroughput(MySqlLockProvider p, String mode) throws Exception {
        resetStock(50_000);
        AtomicInteger allocated = new AtomicInteger();
        long end = System.nanoTime() + SCENARIO.toNanos();
        ExecutorService ex = Executors.newFixedThreadPool(WORKERS);
        List<Future<?>> futures = new ArrayList<>();
        long start = System.nanoTime();
        for (int w = 0; w < WORKERS; w++) {
            futures.add(ex.submit(() -> {
                while (System.nanoTime() - end < 0) {
                    switch (mode) {
                        case "skip":
                            allocated.addAndGet(p.claimRows(
                                    "bench_stock", "id", Map.of("status", "FREE"), BATCH, MySqlBenchmarkIT::allocate));
                            break;
                        case "wait":
                            try (Connection c = fixture.db().connect()) {
                                c.setAutoCommit(false);
                                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                                while (System.nanoTime() - end < 0) {
                                    allocated.addAndGet(allocate(c, selectFree(c)));
                                    c.commit();
                                }
                            }
                            break;
                        default:
                            Optional<Lease> l = p.lock("bench-stock-global").tryAcquire();
                            if (l.isEmpty()) {
                                Thread.sleep(1000);
                                break;
                            }
                            try (Lease lease = l.get()) {
                                Connection c = p.connection(lease);
                                allocated.addAndGet(allocate(c, selectFree(c)));
                            }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get(60, TimeUnit.SECONDS);
        }
        ex.shutdown();
        double seconds = (System.nanoTime() - start) / 1e9;
        return Math.round(allocated.get() / seconds * 10) / 10.0;
    }
}
