package io.distlock.spring.example;

import io.distlock.spring.Locked;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class InventoryService {
    private final JdbcTemplate jdbc;

    public InventoryService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Read, check, write: safe because the lock of this SKU is taken before the transaction begins
     * and released after it commits, on every instance of the application.
     */
    @Locked(name = "'sku-' + #sku", maxWait = "2s")
    @Transactional
    public int reserve(String sku, int quantity) {
        int stock = jdbc.queryForObject("SELECT stock FROM inventory WHERE sku = ?", Integer.class, sku);
        if (stock < quantity) {
            throw new IllegalStateException("only " + stock + " of " + sku + " left");
        }
        jdbc.update("UPDATE inventory SET stock = ? WHERE sku = ?", stock - quantity, sku);
        return stock - quantity;
    }
}
