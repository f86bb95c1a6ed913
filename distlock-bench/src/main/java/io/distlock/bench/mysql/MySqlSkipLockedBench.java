package io.distlock.bench.mysql;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.mysql.ClaimCursor;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.RedisServer;
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
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * What {@code SELECT … FOR UPDATE SKIP LOCKED} buys: lock-mysql-skiplocked's claiming and locking on
 * a MariaDB 10.11 it starts itself (with a Redis for the comparison), bounded to a few seconds per
 * scenario. Writes one flat JSON object and prints it. Numbers from a shared 2-core machine are
 * indicative only.
 *
 * <p>Claiming: {@value #WORKERS} workers allocate batches of {@value #BATCH} rows from a fresh
 * {@value #STOCK_ROWS}-row stock table; each batch costs {@value #WORK_MILLIS} ms of processing while
 * its rows are held, then an UPDATE and the COMMIT. Four ways to keep two workers off the same rows,
 * alternating round by round on the same MariaDB: {@code SELECT … FOR UPDATE SKIP LOCKED} ({@link
 * MySqlLockProvider#claimRows}), the same through a shared {@link ClaimCursor}, plain {@code SELECT …
 * FOR UPDATE} (workers wait on each other's rows), and the hand-rolled Redis lock SKIP LOCKED replaces
 * ({@code SET NX PX}, a fixed 1 s sleep on failure, {@code DEL} on release) on a real Redis. Every row
 * must be allocated exactly once (checked against the table). Also measured: {@code SELECT 1}, an
 * uncontended acquire + release (p50 and statements per cycle from the server's {@code Questions}),
 * and the hand-off to a waiter blocked on the row lock against jittered polling.
 *
 * <p>Arguments: {@code [--rounds N]} interleaved rounds of the claiming variants (default 3), {@code
 * [--seconds S]} time cap of one claiming run (default 5), {@code [--out FILE]} (default {@code
 * target/benchmarks/mysql-skiplocked.json}). Run with {@code ./distlock bench MySqlSkipLockedBench
 * [args]}.
 */
public final class MySqlSkipLockedBench {
    /** Time cap of one claiming run (the sleep-retry lock needs longer than that to empty the table). */
    private static Duration claimScenario = Duration.ofSeconds(5);
    /** Interleaved rounds of the claiming variants; the JSON has every round and the medians. */
    private static int claimRounds = 3;

    private static final int WORKERS = 16;
    private static final int STOCK_ROWS = 10_000;
    private static final int BATCH = 10;
    /**
     * Processing per batch while its rows are held, off the database: what an allocation does
     * besides its UPDATE (a call to a reservation or shipping service in the same data centre,
     * building the allocation records). 5 ms is a fast such call; slower calls favour SKIP LOCKED
     * more, since the locks serialise exactly this time.
     */
    private static final long WORK_MILLIS = 5;

    private static final long SLEEP_RETRY_MILLIS = 1_000;

    private static MariaDbServer db;
    private static RedisServer redis;

    private MySqlSkipLockedBench() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of("target", "benchmarks", "mysql-skiplocked.json");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> claimRounds = Integer.parseInt(args[++i]);
                case "--seconds" -> claimScenario = Duration.ofSeconds(Long.parseLong(args[++i]));
                case "--out" -> file = Path.of(args[++i]);
                default ->
                    throw new IllegalArgumentException(
                            "unknown argument " + args[i] + " (usage: [--rounds N] [--seconds S] [--out FILE])");
            }
        }
        try (MariaDbServer mariaDb = MariaDbServer.start();
                RedisServer redisServer = RedisServer.start()) {
            db = mariaDb;
            redis = redisServer;
            String json = run();
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, json);
            System.out.println(json);
            System.out.println("written to " + file.toAbsolutePath());
        }
    }

    private static MySqlLockProvider provider() {
        return MySqlLockProvider.builder()
                .jdbcUrl(db.jdbcUrl())
                .options(MySqlLockOptions.builder()
                        .credentials(Credentials.of(db.user(), db.password()))
                        .createSchema(true)
                        .poolSize(24)
                        .build())
                .leaseTime(Duration.ofSeconds(5))
                .build();
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("benchmark check failed: " + what);
        }
    }

    private static String run() throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("server", serverVersion());
        out.put("claim_workers", WORKERS);
        out.put("claim_batch", BATCH);
        out.put("claim_stock_rows", STOCK_ROWS);
        out.put("claim_work_ms_per_batch", WORK_MILLIS);
        out.put("cpus", Runtime.getRuntime().availableProcessors());
        out.put("load_average_at_start", loadAverage());
        try (MySqlLockProvider p = provider()) {
            out.put("select1_p50_us", select1P50Micros());
            out.put("acquire_release_p50_us", acquireReleaseP50Micros(p));
            out.put("acquire_release_statements", statementsPerCycle(p));
            out.put("handoff_rowlock_wait_p50_us", handOffP50Micros(p, false));
            out.put("handoff_jittered_polling_p50_us", handOffP50Micros(p, true));
            // The variants alternate, round after round, so that they share the machine's load.
            // skip_locked_cursor: the same claims through a shared ClaimCursor
            String[] modes = {"skip_locked", "skip_locked_cursor", "for_update", "redis_setnx_1s_sleep_retry"};
            warmPool(p);
            Map<String, List<Double>> rounds = new LinkedHashMap<>();
            Map<String, List<Double>> clientCpu = new LinkedHashMap<>();
            Map<String, List<Double>> serverCpu = new LinkedHashMap<>();
            Map<String, List<Double>> cores = new LinkedHashMap<>();
            for (int r = 0; r < claimRounds; r++) {
                for (String mode : modes) {
                    ClaimRun run = claimThroughput(p, mode);
                    rounds.computeIfAbsent(mode, m -> new ArrayList<>()).add(run.rowsPerSecond());
                    clientCpu.computeIfAbsent(mode, m -> new ArrayList<>()).add(run.clientCpuMicrosPerBatch());
                    serverCpu.computeIfAbsent(mode, m -> new ArrayList<>()).add(run.serverCpuMicrosPerBatch());
                    cores.computeIfAbsent(mode, m -> new ArrayList<>()).add(run.coresUsed());
                }
            }
            for (String mode : modes) {
                out.put("claim_rows_per_s_" + mode + "_rounds", rounds.get(mode));
                out.put("claim_rows_per_s_" + mode + "_median", median(rounds.get(mode)));
                out.put("claim_client_cpu_us_per_batch_" + mode + "_median", median(clientCpu.get(mode)));
                out.put("claim_server_cpu_us_per_batch_" + mode + "_median", median(serverCpu.get(mode)));
                // CPU seconds of this JVM and the server per second of the run: near the machine's
                // cores (or what other load leaves of them) means the run was CPU-bound
                out.put("claim_cores_used_" + mode + "_median", median(cores.get(mode)));
            }
            double skip = median(rounds.get("skip_locked"));
            out.put("claim_skip_locked_x_for_update", ratio(skip, median(rounds.get("for_update"))));
            out.put("claim_skip_locked_x_sleep_retry", ratio(skip, median(rounds.get("redis_setnx_1s_sleep_retry"))));
            double cursor = median(rounds.get("skip_locked_cursor"));
            out.put("claim_skip_locked_cursor_x_for_update", ratio(cursor, median(rounds.get("for_update"))));
            out.put(
                    "claim_skip_locked_cursor_x_sleep_retry",
                    ratio(cursor, median(rounds.get("redis_setnx_1s_sleep_retry"))));
        }
        out.put("load_average_at_end", loadAverage());
        StringBuilder json = new StringBuilder("{\n");
        int i = 0;
        for (Map.Entry<String, Object> e : out.entrySet()) {
            json.append("  \"").append(e.getKey()).append("\": ");
            json.append(e.getValue() instanceof String ? "\"" + e.getValue() + "\"" : String.valueOf(e.getValue()));
            json.append(++i < out.size() ? ",\n" : "\n");
        }
        json.append("}\n");
        check((Double) out.get("claim_rows_per_s_skip_locked_median") > 0, "SKIP LOCKED claimed rows");
        check((Double) out.get("claim_rows_per_s_redis_setnx_1s_sleep_retry_median") > 0, "sleep-retry claimed rows");
        return json.toString();
    }

    /** The first three fields of {@code /proc/loadavg} (1, 5, 15 minutes), or "?" where there is none. */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException | RuntimeException e) {
            return "?";
        }
    }

    /** CPU time of this JVM so far, in nanoseconds. */
    private static long clientCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** CPU time of the MariaDB server process so far, in nanoseconds (-1 if the OS does not say). */
    private static long serverCpuNanos() {
        return ProcessHandle.of(db.pid())
                .flatMap(h -> h.info().totalCpuDuration())
                .map(Duration::toNanos)
                .orElse(-1L);
    }

    /**
     * Opens {@value #WORKERS} connections in the provider's pool before the first claiming run, so
     * that no run counts connection set-up (the other variants open theirs before the clock too).
     */
    private static void warmPool(MySqlLockProvider p) throws Exception {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS bench_warm (id INT PRIMARY KEY)");
        }
        CountDownLatch all = new CountDownLatch(WORKERS);
        ExecutorService ex = Executors.newFixedThreadPool(WORKERS);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                fs.add(ex.submit(() -> p.claimRows("bench_warm", "id", Map.of(), 1, (c, ids) -> {
                    all.countDown();
                    try {
                        // hold this connection until every worker holds one: WORKERS connections at once
                        return all.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                })));
            }
            for (Future<?> f : fs) {
                check(Boolean.TRUE.equals(f.get(60, TimeUnit.SECONDS)), "pool warm-up");
            }
        } finally {
            ex.shutdownNow();
        }
    }

    /** One claiming run: rows per second, and CPU per allocated batch of this JVM and of the server. */
    private record ClaimRun(
            double rowsPerSecond, double clientCpuMicrosPerBatch, double serverCpuMicrosPerBatch, double coresUsed) {}

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double ratio(double a, double b) {
        return b == 0 ? Double.NaN : Math.round(a / b * 100) / 100.0;
    }

    private static String serverVersion() throws SQLException {
        try (Connection c = db.connect();
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
        try (Connection c = db.connect();
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
        try (Connection root = db.connect()) {
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

    private static void resetStock() throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_stock");
            s.execute("CREATE TABLE bench_stock (id INT PRIMARY KEY, status VARCHAR(16) NOT NULL,"
                    + " KEY status_id (status, id))");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench_stock (id, status) VALUES (?, 'FREE')")) {
                for (int i = 1; i <= STOCK_ROWS; i++) {
                    ps.setInt(1, i);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
        }
    }

    private static long allocatedRows() throws SQLException {
        try (Connection c = db.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM bench_stock WHERE status = 'ALLOCATED'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Processes one batch of claimed rows in the transaction that holds them: the stated cost, then the UPDATE. */
    private static int allocate(Connection c, List<Object> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        try {
            // The per-batch processing cost (a call to a reservation service, the allocation
            // records): time spent off the database while the batch is held. Not a wait for state.
            Thread.sleep(WORK_MILLIS);
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

    /** The next free batch, waiting on rows other transactions hold ({@code FOR UPDATE}) or not reading locks at all. */
    private static List<Object> selectFree(Connection c, String lockClause) throws SQLException {
        List<Object> ids = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT id FROM bench_stock WHERE status = 'FREE' ORDER BY id LIMIT " + BATCH + lockClause)) {
            while (rs.next()) {
                ids.add(rs.getObject(1));
            }
        }
        return ids;
    }

    private static Connection workerConnection() throws SQLException {
        Connection c = db.connect();
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return c;
    }

    /**
     * Rows allocated per second by {@value #WORKERS} workers, from a fresh {@value #STOCK_ROWS}-row
     * table until it is empty or {@link #claimScenario} has passed, and the CPU this JVM and the
     * server spent per allocated batch meanwhile. Every worker opens its connections first; the clock
     * starts when all have. Every row must be allocated exactly once (checked against the table).
     */
    private static ClaimRun claimThroughput(MySqlLockProvider p, String mode) throws Exception {
        resetStock();
        AtomicInteger allocated = new AtomicInteger();
        AtomicInteger batches = new AtomicInteger();
        AtomicLong end = new AtomicLong();
        CountDownLatch ready = new CountDownLatch(WORKERS);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService ex = Executors.newFixedThreadPool(WORKERS);
        // one cursor shared by the workers, naming the (status, id) index (see ClaimCursor.usingIndex)
        ClaimCursor cursor = ClaimCursor.usingIndex("status_id");
        List<Future<?>> futures = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            futures.add(ex.submit(() -> {
                switch (mode) {
                    case "skip_locked":
                        // the provider's pool already holds WORKERS open connections (warmPool)
                        await(ready, go);
                        while (System.nanoTime() - end.get() < 0) {
                            int n = p.claimRows(
                                    "bench_stock",
                                    "id",
                                    Map.of("status", "FREE"),
                                    BATCH,
                                    MySqlSkipLockedBench::allocate);
                            if (n == 0) {
                                break; // no free row is left unlocked: the others are allocating the last ones
                            }
                            allocated.addAndGet(n);
                            batches.incrementAndGet();
                        }
                        break;
                    case "skip_locked_cursor":
                        await(ready, go);
                        while (System.nanoTime() - end.get() < 0) {
                            int n = p.claimRows(
                                    "bench_stock",
                                    "id",
                                    Map.of("status", "FREE"),
                                    BATCH,
                                    cursor,
                                    MySqlSkipLockedBench::allocate);
                            if (n == 0) {
                                break;
                            }
                            allocated.addAndGet(n);
                            batches.incrementAndGet();
                        }
                        break;
                    case "for_update":
                        try (Connection c = workerConnection()) {
                            await(ready, go);
                            while (System.nanoTime() - end.get() < 0) {
                                int n = allocate(c, selectFree(c, " FOR UPDATE"));
                                c.commit();
                                if (n == 0) {
                                    break;
                                }
                                allocated.addAndGet(n);
                                batches.incrementAndGet();
                            }
                        }
                        break;
                    default:
                        sleepRetryWorker(allocated, batches, end, ready, go);
                }
                return null;
            }));
        }
        check(ready.await(60, TimeUnit.SECONDS), "workers connected (" + mode + ")");
        long client0 = clientCpuNanos();
        long server0 = serverCpuNanos();
        long start = System.nanoTime();
        end.set(start + claimScenario.toNanos());
        go.countDown();
        for (Future<?> f : futures) {
            f.get(claimScenario.toSeconds() + 60, TimeUnit.SECONDS);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long client = clientCpuNanos() - client0;
        long server = serverCpuNanos() - server0;
        ex.shutdown();
        check(allocatedRows() == allocated.get(), "rows allocated (" + mode + "), each once");
        int b = Math.max(1, batches.get());
        return new ClaimRun(
                Math.round(allocated.get() / seconds * 10) / 10.0,
                Math.round(client / 1000.0 / b),
                server0 < 0 ? Double.NaN : Math.round(server / 1000.0 / b),
                server0 < 0 ? Double.NaN : Math.round((client + server) / 1e9 / seconds * 100) / 100.0);
    }

    /** Tells the benchmark this worker is connected, then waits for the start. */
    private static void await(CountDownLatch ready, CountDownLatch go) throws InterruptedException {
        ready.countDown();
        if (!go.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("claiming run did not start");
        }
    }

    /**
     * The lock SKIP LOCKED replaces, as it is hand-rolled: one Redis key for the stock, {@code SET key
     * owner NX PX 30000}; on failure sleep a fixed second and try again; {@code DEL} on release. The
     * holder reads the next free batch with a plain read (the Redis lock is the exclusion), processes
     * it and commits, each worker on its own Redis and database connection like separate processes.
     */
    private static void sleepRetryWorker(
            AtomicInteger allocated, AtomicInteger batches, AtomicLong end, CountDownLatch ready, CountDownLatch go)
            throws Exception {
        String owner = UUID.randomUUID().toString();
        try (Jedis jedis = new Jedis(redis.host(), redis.port());
                Connection c = workerConnection()) {
            jedis.ping(); // connected before the clock starts, like the database connection
            await(ready, go);
            while (System.nanoTime() - end.get() < 0) {
                if (!"OK"
                        .equals(jedis.set(
                                "stock-lock", owner, SetParams.setParams().nx().px(30_000)))) {
                    Thread.sleep(SLEEP_RETRY_MILLIS); // the pattern under test
                    continue;
                }
                int n;
                try {
                    n = allocate(c, selectFree(c, ""));
                    c.commit();
                } finally {
                    jedis.del("stock-lock");
                }
                if (n == 0) {
                    return;
                }
                allocated.addAndGet(n);
                batches.incrementAndGet();
            }
        }
    }
}
