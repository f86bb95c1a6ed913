package io.distlock.examples.inventory;

import io.distlock.Credentials;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.PostgresLockProvider;
import io.distlock.testing.servers.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** {@link InventoryAllocation} with eight concurrent workers against a real PostgreSQL. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgresInventoryAllocationIT extends InventoryAllocationChecks {
    private PostgresServer db;
    private PostgresLockProvider locks;

    @BeforeAll
    void start() throws SQLException {
        db = PostgresServer.start();
        locks = PostgresLockProvider.builder()
                .jdbcUrl(db.jdbcUrl())
                .options(PostgresLockOptions.builder()
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
