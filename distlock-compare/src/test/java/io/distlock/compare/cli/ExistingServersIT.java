package io.distlock.compare.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.testing.servers.EtcdServer;
import io.distlock.testing.servers.MariaDbServer;
import io.distlock.testing.servers.PostgresServer;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.RedisServers;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * {@code ./distlock compare} against servers it did not start (the project's local servers, given
 * by URI as a team gives its staging servers): everything the run creates, distlock's and the peers',
 * is named under the run's prefix and gone afterwards (Redis keys, Redlock nodes' keys, ZooKeeper
 * nodes, etcd keys, MySQL tables, PostgreSQL tables, sequences and indexes), and what was there before is untouched.
 */
class ExistingServersIT {
    private static final String MINE = "belongs-to-someone-else";

    private static RedisServer redis;
    private static RedisServers redlock;
    private static TestServer zookeeper;
    private static EtcdServer etcd;
    private static MariaDbServer mysql;
    private static PostgresServer postgresql;
    private static CuratorFramework curator;
    private static Client jetcd;

    @BeforeAll
    static void startServersAndLeaveSomethingOfOurOwn() throws Exception {
        redis = RedisServer.start();
        redlock = RedisServers.independentMasters(3);
        zookeeper = ZooKeeperServer.start();
        etcd = EtcdServer.start();
        mysql = MariaDbServer.start();
        postgresql = PostgresServer.start();
        redis.call("SET", MINE, "1");
        curator = CuratorFrameworkFactory.newClient(zookeeper.address(), new RetryOneTime(100));
        curator.start();
        assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        curator.create().forPath("/" + MINE);
        jetcd = Client.builder().endpoints(etcd.endpoint()).build();
        etcd.put("/" + MINE, "1");
        try (Connection c = mysql.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + MINE.replace('-', '_') + " (id INT)");
        }
        try (Connection c = postgresql.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + MINE.replace('-', '_') + " (id INT)");
        }
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c :
                new AutoCloseable[] {jetcd, curator, postgresql, mysql, etcd, zookeeper, redlock, redis}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // stopping anyway
            }
        }
    }

    @Test
    void run_againstExistingServers_leavesNothingUnderItsPrefix_andTheirOwnDataAlone(@TempDir Path dir)
            throws Exception {
        List<String> redlockNodes = new ArrayList<>();
        redlock.servers().forEach(s -> redlockNodes.add(s.address()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        String[] args = {
            "--quick",
            "--scenarios",
            "uncontended,handoff_1,renewal",
            "--iterations",
            "50",
            "--rtt",
            "0,200us",
            "--scale",
            "locks",
            "--scale-locks",
            "1,3",
            "--redis",
            "redis://" + redis.address(),
            "--redlock",
            "redlock://" + String.join(",", redlockNodes),
            "--zookeeper",
            "zookeeper://" + zookeeper.address(),
            "--etcd",
            "etcd://" + etcd.address(),
            "--mysql",
            "mysql://" + mysql.user() + "@" + mysql.address() + "/" + mysql.database(),
            "--postgresql",
            "postgresql://" + postgresql.user() + "@" + postgresql.address() + "/" + postgresql.database(),
            "--out",
            dir.toString()
        };
        int code = CompareMain.run(
                args,
                Map.of(
                        "DISTLOCK_COMPARE_MYSQL_PASSWORD",
                        mysql.password(),
                        "DISTLOCK_COMPARE_POSTGRESQL_PASSWORD",
                        postgresql.password()),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(code)
                .as(err.toString(StandardCharsets.UTF_8) + out.toString(StandardCharsets.UTF_8))
                .isZero();
        String results = Files.readString(dir.resolve("results.json"));
        String prefix = field(results, "run_prefix");
        assertThat(prefix).startsWith("distlock-compare-");
        // what each backend removed, named in the report; the peers ran and wrote under the prefix too
        for (String b : List.of("redis", "redlock", "zookeeper", "etcd", "mysql", "postgresql")) {
            assertThat(field(results, "cleanup." + b))
                    .as(b)
                    .contains("none left")
                    .doesNotContain("LEFT");
            assertThat(results).contains("\"server." + b + "\": \"existing servers ");
        }
        assertThat(field(results, "cleanup.redis")).containsPattern("removed [1-9][0-9]* keys");
        assertThat(field(results, "cleanup.mysql")).contains(prefix.replace('-', '_') + "_LOCK");
        assertThat(field(results, "cleanup.postgresql"))
                .contains(prefix.replace('-', '_') + "_LOCK", prefix.replace('-', '_') + "_token");
        assertThat(results).doesNotContain(mysql.password()).doesNotContain(postgresql.password());

        try (Jedis j = new Jedis(redis.host(), redis.port())) {
            assertThat(j.keys(prefix + "*")).isEmpty();
            assertThat(j.get(MINE)).isEqualTo("1");
        }
        for (RedisServer node : redlock.servers()) {
            try (Jedis j = new Jedis(node.host(), node.port())) {
                assertThat(j.keys(prefix + "*")).as(node.address()).isEmpty();
            }
        }
        assertThat(curator.getChildren().forPath("/"))
                .noneMatch(c -> c.startsWith("distlock-compare-"))
                .contains(MINE);
        ByteSequence all = ByteSequence.from("/", StandardCharsets.UTF_8);
        List<String> keys = new ArrayList<>();
        jetcd.getKVClient()
                .get(all, GetOption.builder().isPrefix(true).withKeysOnly(true).build())
                .get(10, TimeUnit.SECONDS)
                .getKvs()
                .forEach(kv -> keys.add(kv.getKey().toString(StandardCharsets.UTF_8)));
        assertThat(keys).noneMatch(k -> k.contains("distlock-compare-")).contains("/" + MINE);
        try (Connection c = mysql.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW TABLES")) {
            List<String> tables = new ArrayList<>();
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
            assertThat(tables).noneMatch(t -> t.startsWith("distlock_compare_")).contains(MINE.replace('-', '_'));
        }
        try (Connection c = postgresql.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT relname FROM pg_class")) {
            List<String> objects = new ArrayList<>();
            while (rs.next()) {
                objects.add(rs.getString(1));
            }
            // tables, sequences, indexes and the peer's table (its name folded to lower case)
            assertThat(objects)
                    .noneMatch(o -> o.startsWith("distlock_compare_"))
                    .contains(MINE.replace('-', '_'));
        }
    }

    /** The string value of {@code key} in results.json's environment. */
    private static String field(String json, String key) {
        int at = json.indexOf("\"" + key + "\": \"");
        assertThat(at).as(key).isNotNegative();
        int from = at + key.length() + 5;
        return json.substring(from, json.indexOf('"', from));
    }
}
