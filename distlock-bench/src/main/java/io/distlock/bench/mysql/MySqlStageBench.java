package io.distlock.bench.mysql;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.distlock.Credentials;
import io.distlock.DistributedLock;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.mysql.internal.ConnectorJSettings;
import io.distlock.mysql.internal.MySqlDialect;
import io.distlock.testing.servers.MariaDbServer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the time of an uncontended acquire + release goes: the lock against the bare statements it
 * consists of, on a MariaDB 10.11 it starts itself. In one JVM, blocks of 50 operations of each
 * variant run in rotation; per variant it reports the median of the blocks' p50s, the calling
 * thread's CPU per operation, and every block's p50 (so that blocks taken in the machine's slow and
 * fast modes can be told apart: distlock-compare's README, "Two machine modes").
 *
 * <p>Variants: {@code floor3} (three {@code SELECT 1}s, the round-trip floor); {@code raw3} (the three
 * statements of an acquire + release as the lock sends them, from {@link MySqlDialect}: {@code
 * SELECT … FOR UPDATE SKIP LOCKED} on a connection in a transaction, the token statement in
 * autocommit on a second one, {@code COMMIT}; prepared once, plain Connector/J with the provider's
 * settings); {@code raw3_pool} (the same prepared on every use, through HikariCP as the provider
 * does, the token read from the OK packet); {@code ours} (tryAcquire + release through the provider).
 *
 * <p>Arguments: {@code [--rounds N]} blocks per variant (default 30), {@code [--spin]} keeps a daemon
 * thread spinning on one CPU, which holds a 2-CPU machine in its fast mode (client and server on the
 * CPU that is awake), {@code [--out FILE]} (default {@code target/benchmarks/mysql-stage.json}). Run
 * with {@code ./distlock bench MySqlStageBench [args]}.
 */
public final class MySqlStageBench {
    private static final MySqlLockOptions OPTIONS = MySqlLockOptions.defaults();
    private static final String LOCK_SQL = MySqlDialect.of(OPTIONS).claimSql();
    private static final String TOKEN_SQL = MySqlDialect.of(OPTIONS).tokenSql();
    private static final String SETTINGS = ConnectorJSettings.speedUrlParameters();

    private MySqlStageBench() {}

    private interface Step {
        void run() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int rounds = 30;
        boolean spin = false;
        Path file = Path.of("target", "benchmarks", "mysql-stage.json");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--spin" -> spin = true;
                case "--out" -> file = Path.of(args[++i]);
                default ->
                    throw new IllegalArgumentException(
                            "unknown argument " + args[i] + " (usage: [--rounds N] [--spin] [--out FILE])");
            }
        }
        if (spin) {
            Thread spinner = new Thread(
                    () -> {
                        while (true) {
                            Thread.onSpinWait();
                        }
                    },
                    "probe-spinner");
            spinner.setDaemon(true);
            spinner.start();
        }
        try (MariaDbServer server = MariaDbServer.start();
                MySqlLockProvider provider = MySqlLockProvider.builder()
                        .jdbcUrl(server.jdbcUrl())
                        .options(OPTIONS.mutate()
                                .credentials(Credentials.of(server.user(), server.password()))
                                .createSchema(true)
                                .build())
                        .leaseTime(Duration.ofSeconds(10))
                        .build();
                Connection floor = server.connect();
                Connection lockConn = connect(server);
                Connection tokenConn = connect(server);
                HikariDataSource pool = pool(server)) {
            DistributedLock lock = provider.lock("probe-ours");
            lock.tryAcquire().orElseThrow().release(); // creates the tables and the row
            lockConn.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            lockConn.setAutoCommit(false);
            try (Statement s = lockConn.createStatement()) {
                s.execute("INSERT IGNORE INTO distlock_locks (name) VALUES ('probe-raw')");
            }
            lockConn.commit();
            PreparedStatement select1 = floor.prepareStatement("SELECT 1");
            PreparedStatement claim = lockConn.prepareStatement(LOCK_SQL);
            PreparedStatement token = tokenConn.prepareStatement(TOKEN_SQL);
            Connection pooledLock = pool.getConnection();
            Connection pooledToken = pool.getConnection();
            pooledToken.setAutoCommit(true);

            Map<String, Step> steps = new LinkedHashMap<>();
            steps.put("floor3", () -> {
                for (int i = 0; i < 3; i++) {
                    try (ResultSet rs = select1.executeQuery()) {
                        rs.next();
                    }
                }
            });
            steps.put("raw3", () -> {
                claim.setString(1, "probe-raw");
                try (ResultSet rs = claim.executeQuery()) {
                    expect(rs.next());
                }
                token.executeUpdate();
                lockConn.commit();
            });
            steps.put("raw3_pool", () -> {
                try (PreparedStatement ps = pooledLock.prepareStatement(LOCK_SQL)) {
                    ps.setString(1, "probe-raw");
                    try (ResultSet rs = ps.executeQuery()) {
                        expect(rs.next());
                    }
                }
                try (PreparedStatement ps = pooledToken.prepareStatement(TOKEN_SQL, Statement.RETURN_GENERATED_KEYS)) {
                    ps.executeUpdate();
                    expect(ps.unwrap(com.mysql.cj.jdbc.StatementImpl.class).getLastInsertID() > 0);
                }
                pooledLock.commit();
            });
            steps.put("ours", () -> lock.tryAcquire().orElseThrow().release());
            String json = run(steps, rounds);
            pooledLock.close();
            pooledToken.close();
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, json);
            System.out.println("written to " + file.toAbsolutePath());
        }
    }

    /** Runs the variants in rotation, prints a line per variant, returns the results as JSON. */
    private static String run(Map<String, Step> steps, int rounds) throws Exception {
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<String, List<Double>> p50s = new LinkedHashMap<>();
        Map<String, long[]> cpu = new LinkedHashMap<>();
        for (String name : steps.keySet()) {
            p50s.put(name, new ArrayList<>());
            cpu.put(name, new long[2]);
        }
        for (int i = 0; i < 3_000; i++) {
            for (Step s : steps.values()) {
                s.run();
            }
        }
        double[] block = new double[50];
        for (int r = 0; r < rounds; r++) {
            for (Map.Entry<String, Step> e : steps.entrySet()) {
                long cpu0 = threads.getCurrentThreadCpuTime();
                for (int i = 0; i < block.length; i++) {
                    long t0 = System.nanoTime();
                    e.getValue().run();
                    block[i] = (System.nanoTime() - t0) / 1e3;
                }
                long[] c = cpu.get(e.getKey());
                c[0] += threads.getCurrentThreadCpuTime() - cpu0;
                c[1] += block.length;
                Arrays.sort(block);
                p50s.get(e.getKey()).add(block[block.length / 2]);
            }
        }
        double floor = Double.NaN;
        StringBuilder json = new StringBuilder("{\n  \"rounds\": " + rounds + ",\n  \"variants\": {");
        String sep = "\n";
        for (Map.Entry<String, List<Double>> e : p50s.entrySet()) {
            List<Double> sorted = new ArrayList<>(e.getValue());
            Collections.sort(sorted);
            double median = sorted.get(sorted.size() / 2);
            if (e.getKey().equals("floor3")) {
                floor = median;
            }
            StringBuilder blocks = new StringBuilder();
            for (double p : e.getValue()) {
                blocks.append(' ').append(Math.round(p));
            }
            long[] c = cpu.get(e.getKey());
            System.out.printf(
                    "%-10s p50 %6.1f µs (%.2f × floor3) | calling thread CPU %5.1f µs/op | block p50s:%s%n",
                    e.getKey(), median, median / floor, c[0] / 1e3 / c[1], blocks);
            json.append(sep)
                    .append(String.format(
                            java.util.Locale.ROOT,
                            "    \"%s\": {\"p50_us\": %.1f, \"x_floor3\": %.3f, \"thread_cpu_us_per_op\": %.1f,"
                                    + " \"block_p50s_us\": %s}",
                            e.getKey(),
                            median,
                            median / floor,
                            c[0] / 1e3 / c[1],
                            e.getValue()));
            sep = ",\n";
        }
        return json.append("\n  }\n}\n").toString();
    }

    private static void expect(boolean condition) {
        if (!condition) {
            throw new IllegalStateException("the probe's lock row was not free");
        }
    }

    private static Connection connect(MariaDbServer server) throws SQLException {
        return DriverManager.getConnection(url(server), server.user(), server.password());
    }

    private static String url(MariaDbServer server) {
        String url = server.jdbcUrl();
        return url + (url.contains("?") ? "&" : "?") + SETTINGS;
    }

    private static HikariDataSource pool(MariaDbServer server) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("probe-pool");
        config.setJdbcUrl(server.jdbcUrl());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        config.setAutoCommit(false);
        config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        for (String setting : SETTINGS.split("&")) {
            String[] kv = setting.split("=");
            config.addDataSourceProperty(kv[0], kv[1]);
        }
        return new HikariDataSource(config);
    }
}
