package io.distlock.spring.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.build.ReadmeExamples;
import io.distlock.spring.boot.DistlockHealthIndicator;
import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.RedisServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The README's example, run as a real Spring Boot application against a real Redis (locks) and a
 * real MariaDB (data): 16 concurrent reservations of a SKU with 10 in stock give exactly 10
 * successes and a stock of 0. Also checks that the README shows these very files.
 */
class ReadmeExampleIT {
    private static MariaDbServer mariadb;
    private static RedisServer redis;

    @BeforeAll
    static void startServers() {
        mariadb = MariaDbServer.start();
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopServers() {
        if (redis != null) {
            redis.close();
        }
        if (mariadb != null) {
            mariadb.close();
        }
    }

    @Test
    void inventoryApplication_concurrentReservations_noOversellAndHealthUp() throws Exception {
        try (ConfigurableApplicationContext ctx = SpringApplication.run(
                InventoryApplication.class,
                "--spring.config.name=inventory",
                "--spring.main.banner-mode=off",
                "--distlock.url=" + redis.uri(),
                "--spring.datasource.url=" + mariadb.jdbcUrl(),
                "--spring.datasource.username=" + mariadb.user(),
                "--spring.datasource.password=" + mariadb.password())) {
            JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
            jdbc.execute("CREATE TABLE inventory (sku VARCHAR(64) PRIMARY KEY, stock INT NOT NULL)");
            jdbc.update("INSERT INTO inventory (sku, stock) VALUES ('A-1', 10)");
            InventoryService service = ctx.getBean(InventoryService.class);

            int callers = 16;
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(callers);
            List<Future<Integer>> results = new ArrayList<>();
            try {
                for (int i = 0; i < callers; i++) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return service.reserve("A-1", 1);
                    }));
                }
                start.countDown();
                int reserved = 0;
                int refused = 0;
                for (Future<Integer> f : results) {
                    try {
                        f.get(30, TimeUnit.SECONDS);
                        reserved++;
                    } catch (java.util.concurrent.ExecutionException e) {
                        assertThat(e.getCause())
                                .isInstanceOf(IllegalStateException.class)
                                .hasMessageContaining("of A-1 left");
                        refused++;
                    }
                }
                assertThat(reserved).isEqualTo(10);
                assertThat(refused).isEqualTo(6);
            } finally {
                pool.shutdownNow();
                assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(jdbc.queryForObject("SELECT stock FROM inventory WHERE sku = 'A-1'", Integer.class))
                    .isZero();
            assertThat(ctx.getBean(DistlockHealthIndicator.class).health(true).getStatus())
                    .isEqualTo(Status.UP);
        }
    }

    @Test
    void readme_examples_equalTheTestedFiles() throws Exception {
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        int examples = ReadmeExamples.assertBlocksEqualFiles(base);
        assertThat(examples).as("examples found in README.md").isEqualTo(3);
    }
}
