package io.distlock.examples.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.examples.inventory.InventoryAllocation.Order;
import io.distlock.examples.inventory.InventoryAllocation.Summary;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link InventoryAllocation} must do with eight concurrent workers, on every database it runs
 * on (a subclass per database starts the server and opens the provider).
 */
abstract class InventoryAllocationChecks {
    static final int WORKERS = 8;

    /** A connection to the database, for the test's own statements. */
    abstract Connection connect() throws SQLException;

    /** The allocation under test, on a provider with a pool of at least {@code WORKERS + 2}. */
    abstract InventoryAllocation allocation();

    @BeforeEach
    void emptyTables() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("TRUNCATE TABLE inventory_unit");
            s.execute("TRUNCATE TABLE allocation_log");
        }
    }

    @Test
    void process_enoughStockForEveryOrder_everyOrderAllocatedAndEveryUnitOnce() throws Exception {
        try (Connection c = connect()) {
            InventoryAllocation.addStock(c, "red-mug", 150);
            InventoryAllocation.addStock(c, "blue-mug", 150);
        }
        // 120 orders of 1..3 units, 120 units per SKU: at most 8 x 3 = 24 units are claimed but not
        // yet committed at any moment, and 30 spare units per SKU cover that, so no order is short
        Queue<Order> orders = orders(120, "red-mug", "blue-mug");
        int demand = orders.stream().mapToInt(Order::quantity).sum();

        Summary summary = allocation().process(orders, WORKERS);

        assertThat(summary.allocatedOrders()).isEqualTo(120);
        assertThat(summary.backOrdered()).isZero();
        assertThat(summary.allocatedUnits()).isEqualTo(demand);
        assertInvariants(300, summary);
    }

    @Test
    void process_moreDemandThanStock_noUnitSoldTwiceAndNoneLost() throws Exception {
        try (Connection c = connect()) {
            InventoryAllocation.addStock(c, "red-mug", 60);
        }
        Queue<Order> orders = orders(60, "red-mug"); // 120 units wanted, 60 in stock

        Summary summary = allocation().process(orders, WORKERS);

        assertThat(summary.allocatedOrders() + summary.backOrdered()).isEqualTo(60);
        assertThat(summary.backOrdered()).isPositive();
        assertThat(summary.allocatedUnits()).isPositive().isLessThanOrEqualTo(60); // never oversold
        assertInvariants(60, summary);
    }

    private static Queue<Order> orders(int count, String... skus) {
        Queue<Order> orders = new ConcurrentLinkedQueue<>();
        for (int i = 1; i <= count; i++) {
            orders.add(new Order(i, skus[i % skus.length], 1 + i % 3));
        }
        return orders;
    }

    /** What must hold after any run: nothing allocated twice, nothing lost, orders all or nothing. */
    private void assertInvariants(int stock, Summary summary) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            Map<String, Integer> byStatus = InventoryAllocation.unitsByStatus(c);
            // none lost: every unit is either free or allocated, and the total is the stock
            assertThat(byStatus.getOrDefault("FREE", 0) + byStatus.getOrDefault("ALLOCATED", 0))
                    .isEqualTo(stock);
            assertThat(byStatus.getOrDefault("ALLOCATED", 0)).isEqualTo(summary.allocatedUnits());
            // none allocated twice: one log row per unit, and it names the unit's order
            assertThat(scalar(s, "SELECT COUNT(*) FROM allocation_log")).isEqualTo(summary.allocatedUnits());
            assertThat(scalar(s, "SELECT COUNT(DISTINCT unit_id) FROM allocation_log"))
                    .isEqualTo(summary.allocatedUnits());
            assertThat(scalar(
                            s,
                            "SELECT COUNT(*) FROM allocation_log l JOIN inventory_unit u ON u.id = l.unit_id"
                                    + " WHERE u.status = 'ALLOCATED' AND u.order_id = l.order_id"))
                    .isEqualTo(summary.allocatedUnits());
            // all or nothing: an order with units has exactly its quantity (quantity = 1 + id % 3)
            Map<Long, Integer> perOrder = new HashMap<>();
            try (ResultSet rs = s.executeQuery(
                    "SELECT order_id, COUNT(*) FROM inventory_unit WHERE order_id IS NOT NULL GROUP BY order_id")) {
                while (rs.next()) {
                    perOrder.put(rs.getLong(1), rs.getInt(2));
                }
            }
            assertThat(perOrder).hasSize(summary.allocatedOrders());
            perOrder.forEach((order, units) ->
                    assertThat(units).as("units of order %d", order).isEqualTo(1 + (int) (order % 3)));
        }
    }

    private static int scalar(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
