package io.distlock.examples.shape;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Credentials;
import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.LockProvider;
import io.distlock.TimeoutOptions;
import io.distlock.build.ReadmeExamples;
import io.distlock.etcd.EtcdLockOptions;
import io.distlock.etcd.EtcdLockProvider;
import io.distlock.mysql.MySqlLockOptions;
import io.distlock.mysql.MySqlLockProvider;
import io.distlock.postgresql.PostgresLockOptions;
import io.distlock.postgresql.PostgresLockProvider;
import io.distlock.redis.RedisLockOptions;
import io.distlock.redis.RedisLockProvider;
import io.distlock.redlock.RedlockLockOptions;
import io.distlock.redlock.RedlockLockProvider;
import io.distlock.testing.servers.EtcdServer;
import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.PostgresServer;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperServer;
import io.distlock.zookeeper.ZooKeeperLockOptions;
import io.distlock.zookeeper.ZooKeeperLockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The builders of docs/options.md, run against real servers: every backend reads {@code
 * builder().<address>(…).options(…).lockOptions(…)} with the same shared blocks.
 */
class OneShapeIT {
    private static final String REDIS_PASSWORD = "shape-test-pw";
    private static RedisServer redisServer;
    private static RedisServers redlockServers;
    private static TestServer zkServer;
    private static EtcdServer etcdServer;
    private static MariaDbServer mariaDb;
    private static PostgresServer postgres;

    @BeforeAll
    static void startServers() {
        redisServer = RedisServer.builder().password(REDIS_PASSWORD).start();
        redlockServers = RedisServers.independentMasters(3);
        zkServer = ZooKeeperServer.start();
        etcdServer = EtcdServer.start();
        mariaDb = MariaDbServer.start();
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopServers() {
        for (AutoCloseable s :
                new AutoCloseable[] {redisServer, redlockServers, zkServer, etcdServer, mariaDb, postgres}) {
            try {
                if (s != null) {
                    s.close();
                }
            } catch (Exception e) {
                // best effort
            }
        }
    }

    private static void locksAndReleases(LockProvider provider) {
        try (provider;
                Lease lease = provider.lock("invoice-42").tryAcquire().orElseThrow()) {
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofSeconds(30));
        }
    }

    @Test
    void redis() {
        String redisHost = redisServer.host();
        int redisPort = redisServer.port();
        String redisPassword = REDIS_PASSWORD;
        // README-BEGIN options-redis
        RedisLockProvider redis = RedisLockProvider.builder()
                .standalone(redisHost, redisPort) // or sentinel(…), cluster(…), client(…)
                .options(RedisLockOptions.builder()
                        .credentials(Credentials.password(redisPassword))
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(1)))
                        .poolSize(16)
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        // README-END
        locksAndReleases(redis);
    }

    @Test
    void redlock() {
        List<String> nodes = List.of(redlockServers.addresses().split(","));
        // README-BEGIN options-redlock
        RedlockLockProvider redlock = RedlockLockProvider.builder()
                .nodes(nodes) // "host:port" of each independent master
                .options(RedlockLockOptions.builder()
                        .nodeTimeout(Duration.ofMillis(50))
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(1)))
                        .poolSize(8)
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        // README-END
        locksAndReleases(redlock);
    }

    @Test
    void zookeeper() {
        String connectString = zkServer.address();
        // README-BEGIN options-zookeeper
        ZooKeeperLockProvider zookeeper = ZooKeeperLockProvider.builder()
                .connectString(connectString) // or curator(…)
                .options(ZooKeeperLockOptions.builder()
                        .rootPath("/distlock")
                        .timeouts(TimeoutOptions.defaults().withConnectTimeout(Duration.ofSeconds(5)))
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        // README-END
        locksAndReleases(zookeeper);
    }

    @Test
    void etcd() {
        String endpoint = etcdServer.endpoint();
        // README-BEGIN options-etcd
        EtcdLockProvider etcd = EtcdLockProvider.builder()
                .endpoints(endpoint) // or client(…)
                .options(EtcdLockOptions.builder()
                        .keyPrefix("/distlock/")
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(2)))
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        // README-END
        locksAndReleases(etcd);
    }

    @Test
    void mysql() {
        String jdbcUrl = mariaDb.jdbcUrl();
        String dbUser = mariaDb.user();
        String dbPassword = mariaDb.password();
        // README-BEGIN options-mysql
        MySqlLockProvider mysql = MySqlLockProvider.builder()
                .jdbcUrl(jdbcUrl) // or dataSource(…)
                .options(MySqlLockOptions.builder()
                        .credentials(Credentials.of(dbUser, dbPassword))
                        .createSchema(true)
                        .poolSize(10)
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        // README-END
        locksAndReleases(mysql);
    }

    @Test
    void postgresql() {
        String jdbcUrl = postgres.jdbcUrl();
        String dbUser = postgres.user();
        String dbPassword = postgres.password();
        // README-BEGIN options-postgresql
        PostgresLockProvider postgresql = PostgresLockProvider.builder()
                .jdbcUrl(jdbcUrl) // or dataSource(…)
                .options(PostgresLockOptions.builder()
                        .credentials(Credentials.of(dbUser, dbPassword))
                        .createSchema(true)
                        .poolSize(10)
                        .build())
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        // README-END
        locksAndReleases(postgresql);
    }

    @Test
    void docsOptionsPage_snippets_equalTheTestedCode() {
        Path root = Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
                .getParent();
        Path page = root.resolve("docs/options.md");
        Path source = root.resolve("distlock-examples/src/test/java/io/distlock/examples/shape/OneShapeIT.java");
        for (String name : List.of(
                "options-redis",
                "options-redlock",
                "options-zookeeper",
                "options-etcd",
                "options-mysql",
                "options-postgresql")) {
            ReadmeExamples.assertSnippetMatchesSource(page, source, name);
        }
    }
}
