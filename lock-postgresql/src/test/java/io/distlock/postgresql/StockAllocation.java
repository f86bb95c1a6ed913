package io.distlock.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockOptions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.core.BaseConnection;

/**
 * 16 workers allocate 10,000 stock rows with {@code claimRows} (25 at a time); each row must be
 * allocated exactly once, also when every 5th batch's connection is aborted after its {@code UPDATE}.
 */
final class StockAllocation {
    private StockAllocation() {}

    static void run(PostgresTckFixture fixture, boolean kill) throws Exception {
        int rows = 10_000;
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS stock");
            s.execute("CREATE TABLE stock (id int PRIMARY KEY, status varchar(16) NOT NULL,"
                    + " worker int NULL, allocations int NOT NULL DEFAULT 0)");
            s.execute("CREATE INDEX stock_status_id ON stock (status, id)");
            s.execute("INSERT INTO stock (id, status) SELECT g, 'FREE' FROM generate_series(1, " + rows + ") g");
        }
        AtomicInteger killed = new AtomicInteger();
        AtomicInteger claimed = new AtomicInteger();
        AtomicInteger batches = new AtomicInteger();
        try (PostgresLockProvider p = fixture.newPostgresClient(
                LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build())) {
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < 16; w++) {
                int worker = w;
                futures.add(pool.submit(() -> {
                    while (true) {
                        int n;
                        try {
                            n = p.claimRows("stock", "id", Map.of("status", "FREE"), 25, (c, keys) -> {
                                if (keys.isEmpty()) {
                                    return 0;
                                }
                                int updated;
                                try (PreparedStatement ps = c.prepareStatement("UPDATE stock SET status = 'ALLOCATED',"
                                        + " worker = ?, allocations = allocations + 1 WHERE id = ANY (?)")) {
                                    ps.setInt(1, worker);
                                    ps.setArray(2, c.createArrayOf("int4", keys.toArray()));
                                    updated = ps.executeUpdate();
                                }
                                if (kill && batches.incrementAndGet() % 5 == 0) {
                                    killed.incrementAndGet();
                                    c.unwrap(BaseConnection.class)
                                            .getQueryExecutor()
                                            .abort();
                                    throw new SQLException("worker killed mid-transaction");
                                }
                                return updated;
                            });
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
        }
        assertThat(claimed.get()).isEqualTo(rows);
        if (kill) {
            assertThat(killed.get()).isGreaterThan(10);
        }
        try (Connection c = fixture.db().connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE allocations = 1),"
                        + " count(*) FILTER (WHERE status = 'ALLOCATED'), count(DISTINCT worker) FROM stock")) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(rows);
            assertThat(rs.getInt(2)).as("rows allocated exactly once").isEqualTo(rows);
            assertThat(rs.getInt(3)).isEqualTo(rows);
            assertThat(rs.getInt(4)).as("workers that got rows").isGreaterThan(1);
        }
    }
}
