package io.distlock.examples.inventory;

import io.distlock.Credentials;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.testing.servers.MariaDbServer;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** {@link InventoryAllocation} with eight concurrent workers against a real MariaDB. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InventoryAllocationIT extends InventoryAllocationChecks {
    private MariaDbServer db;
    private MySqlLockProvider locks;

    @BeforeAll
    void start() throws SQLException {
        db = MariaDbServer.start();
        locks = MySqlLockProvider.builder()
                .jdbcUrl(db.jdbcUrl())
                .options(MySqlLockOptions.builder()
                        .credentials(Credentials.of(db.user(), db.password()))
                        .createSchema(true)
                        .poolSize(WORKERS + 2)
                        .build())
                .build();
        try (Connection c = db.connect()) {
            InventoryAllocation.createSchema(c);
        }
    }

    @AfterAll
    void stop() {
        if (locks != null) {
            locks.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Override
    Connection connect() throws SQLException {
        return db.connect();
    }

    @Override
    InventoryAllocation allocation() {
        return new InventoryAllocation(locks);
    }
}
