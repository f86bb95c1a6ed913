package io.distlock.examples.inventory;

import io.distlock.Credentials;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.PostgresLockProvider;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Example 1 — inventory allocation with {@code SELECT ... FOR UPDATE SKIP LOCKED} row claiming.
 *
 * <p>Every unit of stock is a row of {@code inventory_unit}. Several workers take orders from a
 * queue and allocate units to them at the same time. No distributed lock is taken: each worker
 * <em>claims</em> free rows with {@link MySqlLockProvider#claimRows} (or {@link
 * PostgresLockProvider#claimRows}, the same on PostgreSQL), which locks up to {@code
 * quantity} free rows that no other transaction has locked and skips the ones that are locked,
 * instead of waiting on them. The worker marks the claimed rows as allocated in the same
 * transaction, so:
 *
 * <ul>
 *   <li>two workers never get the same row (the row lock says who has it until the commit);
 *   <li>a worker that dies mid-transaction loses nothing (the server rolls back, the rows are free
 *       again);
 *   <li>workers never queue behind each other on the same rows, unlike a lock on "the SKU".
 * </ul>
 *
 * <p>An order is all or nothing: if fewer units than requested are claimable right now, nothing is
 * allocated and the order is retried a few times (other workers may hold units they will not
 * keep), then back-ordered.
 *
 * <pre>
 * java io.distlock.examples.inventory.InventoryAllocation jdbc:mysql://127.0.0.1:3306/shop user password
 * java io.distlock.examples.inventory.InventoryAllocation jdbc:postgresql://127.0.0.1:5432/shop user password
 * </pre>
 */
public final class InventoryAllocation {
    /** How often a short order is retried before it is back-ordered. */
    static final int SHORT_RETRIES = 20;

    /** Claims up to {@code limit} free units of {@code sku} and runs {@code work} on them, in one transaction. */
    @FunctionalInterface
    private interface Claims {
        boolean claim(String sku, int limit, ClaimedUnits work) throws SQLException;
    }

    /** Work on claimed units, in the transaction that holds them. */
    @FunctionalInterface
    private interface ClaimedUnits {
        boolean process(Connection connection, List<Object> unitIds) throws SQLException;
    }

    private final Claims claims;

    private InventoryAllocation(Claims claims) {
        this.claims = claims;
    }

    /** Allocates through {@code locks} (MySQL / MariaDB), whose pool must have a connection per worker. */
    public InventoryAllocation(MySqlLockProvider locks) {
        this(claimsOf(Objects.requireNonNull(locks, "locks must not be null")));
    }

    /** Allocates through {@code locks} (PostgreSQL), whose pool must have a connection per worker. */
    public InventoryAllocation(PostgresLockProvider locks) {
        this(claimsOf(Objects.requireNonNull(locks, "locks must not be null")));
    }

    private static Claims claimsOf(MySqlLockProvider locks) {
        return (sku, limit, work) -> locks.claimRows("inventory_unit", "id", free(sku), limit, work::process);
    }

    private static Claims claimsOf(PostgresLockProvider locks) {
        return (sku, limit, work) -> locks.claimRows("inventory_unit", "id", free(sku), limit, work::process);
    }

    private static Map<String, Object> free(String sku) {
        return Map.of("sku", sku, "status", "FREE");
    }

    /** An order for {@code quantity} units of {@code sku}. */
    public record Order(long id, String sku, int quantity) {
        public Order {
            if (quantity < 1) {
                throw new IllegalArgumentException("quantity must be at least 1 (was " + quantity + ")");
            }
        }
    }

    /** What the run did. */
    public record Summary(int allocatedOrders, int backOrdered, int allocatedUnits) {}

    /** Creates the two tables (idempotent), on MySQL / MariaDB or PostgreSQL. */
    public static void createSchema(Connection c) throws SQLException {
        if (c.getMetaData().getDatabaseProductName().equals("PostgreSQL")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS inventory_unit (id bigserial PRIMARY KEY, sku varchar(64) NOT"
                        + " NULL, status varchar(16) NOT NULL, order_id bigint NULL)");
                s.execute("CREATE INDEX IF NOT EXISTS sku_status ON inventory_unit (sku, status, id)");
                s.execute("CREATE TABLE IF NOT EXISTS allocation_log (order_id bigint NOT NULL, unit_id bigint NOT"
                        + " NULL)");
                s.execute("CREATE INDEX IF NOT EXISTS unit ON allocation_log (unit_id)");
            }
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS inventory_unit ("
                    + " id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                    + " sku VARCHAR(64) NOT NULL,"
                    + " status VARCHAR(16) NOT NULL,"
                    + " order_id BIGINT NULL,"
                    + " KEY sku_status (sku, status, id)) ENGINE=InnoDB");
            // one row per allocated unit, written in the claiming transaction: if two workers ever
            // claimed the same unit, it would show up here twice
            s.execute("CREATE TABLE IF NOT EXISTS allocation_log ("
                    + " order_id BIGINT NOT NULL,"
                    + " unit_id BIGINT NOT NULL,"
                    + " KEY unit (unit_id)) ENGINE=InnoDB");
        }
    }

    /** Adds {@code units} free units of {@code sku}. */
    public static void addStock(Connection c, String sku, int units) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO inventory_unit (sku, status) VALUES (?, 'FREE')")) {
            for (int i = 0; i < units; i++) {
                ps.setString(1, sku);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    /**
     * Allocates {@code order} all or nothing, in one transaction.
     *
     * @return {@code true} if every unit was allocated; {@code false} if fewer were claimable now
     *     (nothing was allocated then)
     */
    public boolean allocate(Order order) throws SQLException {
        return claims.claim(order.sku(), order.quantity(), (connection, unitIds) -> {
            if (unitIds.size() < order.quantity()) {
                return false; // the commit that follows just lets go of the claimed rows
            }
            markAllocated(connection, order, unitIds);
            return true;
        });
    }

    private static void markAllocated(Connection c, Order order, List<Object> unitIds) throws SQLException {
        try (PreparedStatement update = c.prepareStatement(
                        "UPDATE inventory_unit SET status = 'ALLOCATED', order_id = ? WHERE id = ?");
                PreparedStatement log =
                        c.prepareStatement("INSERT INTO allocation_log (order_id, unit_id) VALUES (?, ?)")) {
            for (Object id : unitIds) {
                update.setLong(1, order.id());
                update.setObject(2, id);
                update.addBatch();
                log.setLong(1, order.id());
                log.setObject(2, id);
                log.addBatch();
            }
            update.executeBatch();
            log.executeBatch();
        }
    }

    /**
     * Runs {@code workers} threads that take orders from {@code orders} until it is empty.
     *
     * @throws Exception the first failure of a worker
     */
    public Summary process(Queue<Order> orders, int workers) throws Exception {
        AtomicInteger allocated = new AtomicInteger();
        AtomicInteger backOrdered = new AtomicInteger();
        AtomicInteger units = new AtomicInteger();
        AtomicInteger threadIds = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
            Thread t = new Thread(r, "distlock-example-inventory-worker-" + threadIds.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                running.add(pool.submit(() -> {
                    Order order;
                    while ((order = orders.poll()) != null) {
                        if (allocateWithRetries(order)) {
                            allocated.incrementAndGet();
                            units.addAndGet(order.quantity());
                        } else {
                            backOrdered.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        return new Summary(allocated.get(), backOrdered.get(), units.get());
    }

    private boolean allocateWithRetries(Order order) throws SQLException, InterruptedException {
        for (int attempt = 0; ; attempt++) {
            if (allocate(order)) {
                return true;
            }
            if (attempt == SHORT_RETRIES) {
                return false;
            }
            // units held by other workers' open transactions may come back: back off a little
            TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextLong(500, 5_000));
        }
    }

    /** Counts rows of {@code inventory_unit} by status. */
    public static Map<String, Integer> unitsByStatus(Connection c) throws SQLException {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT status, COUNT(*) FROM inventory_unit GROUP BY status")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getInt(2));
            }
        }
        return counts;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: InventoryAllocation <jdbc:mysql://host:port/db | jdbc:postgresql://host:port/db>"
                    + " <user> <password>");
            System.exit(2);
        }
        String url = args[0];
        try (Connection c = DriverManager.getConnection(url, args[1], args[2])) {
            createSchema(c);
            addStock(c, "red-mug", 150);
            addStock(c, "blue-mug", 150);
        }
        Queue<Order> orders = new ConcurrentLinkedQueue<>();
        for (int i = 1; i <= 120; i++) {
            orders.add(new Order(i, i % 2 == 0 ? "red-mug" : "blue-mug", 1 + i % 3));
        }
        Credentials credentials = Credentials.of(args[1], args[2]);
        if (url.startsWith("jdbc:postgresql:")) {
            try (PostgresLockProvider locks = PostgresLockProvider.builder()
                    .jdbcUrl(url)
                    .options(PostgresLockOptions.builder()
                            .credentials(credentials)
                            .createSchema(true)
                            .poolSize(10)
                            .build())
                    .build()) {
                System.out.println(new InventoryAllocation(locks).process(orders, 8));
            }
        } else {
            try (MySqlLockProvider locks = MySqlLockProvider.builder()
                    .jdbcUrl(url)
                    .options(MySqlLockOptions.builder()
                            .credentials(credentials)
                            .createSchema(true)
                            .poolSize(10)
                            .build())
                    .build()) {
                System.out.println(new InventoryAllocation(locks).process(orders, 8));
            }
        }
        try (Connection c = DriverManager.getConnection(url, args[1], args[2])) {
            System.out.println("units by status: " + unitsByStatus(c));
        }
    }
}
