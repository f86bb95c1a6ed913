package io.distlock.testing.servers;

import static io.distlock.testing.servers.ProcessChecks.alive;
import static io.distlock.testing.servers.ProcessChecks.assertGone;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class LocalServersIT {

    @AfterAll
    static void noDirectoriesLeft() {
        ProcessChecks.assertNoDirsOfThisJvm();
    }

    @Test
    void redis_startPauseResumeKillRestart_behavesAsSignalled() throws Exception {
        RedisServer redis = RedisServer.start();
        long pid = redis.pid();
        Path dir;
        try (redis) {
            assertThat(redis.host()).isEqualTo("127.0.0.1");
            assertThat(redis.call("PING")).isEqualTo("PONG");
            redis.call("SET", "k", "v");

            redis.pause();
            CompletableFuture<String> pending = CompletableFuture.supplyAsync(() -> {
                try {
                    return redis.call("GET", "k");
                } catch (IOException e) {
                    return "error: " + e;
                }
            });
            // a stopped server cannot answer; the request completes only after resume
            assertThat(pending).isNotDone();
            assertThat(pendingAfter(pending, 300)).isFalse();
            redis.resume();
            assertThat(pending.get(5, TimeUnit.SECONDS)).isEqualTo("v");

            redis.kill();
            assertGone(pid);
            assertThat(redis.isRunning()).isFalse();

            redis.restart(true);
            assertThat(redis.pid()).isNotEqualTo(pid);
            // test-speed mode persists nothing
            assertThat(redis.call("GET", "k")).isEmpty();
            pid = redis.pid();
        }
        assertGone(pid);
    }

    private static boolean pendingAfter(CompletableFuture<?> f, long millis) {
        try {
            f.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (Exception e) {
            return true;
        }
    }

    @Test
    void redis_durableRestartKeepingData_keepsKeysAndWithoutDataLosesThem() throws Exception {
        try (RedisServer redis = RedisServer.builder().durable(true).start()) {
            int port = redis.port();
            redis.call("SET", "k", "v");
            redis.kill();
            redis.restart(true);
            assertThat(redis.port()).isEqualTo(port);
            assertThat(redis.call("GET", "k")).isEqualTo("v");
            redis.restart(false);
            assertThat(redis.call("GET", "k")).isEmpty();
        }
    }

    @Test
    void redisServers_independentMasters_allAnswerAndDoNotReplicate() throws Exception {
        List<Long> pids = new ArrayList<>();
        try (RedisServers nodes = RedisServers.independentMasters(3)) {
            assertThat(nodes.addresses().split(",")).hasSize(3).doesNotHaveDuplicates();
            nodes.get(0).call("SET", "k", "0");
            for (RedisServer s : nodes.servers()) {
                pids.add(s.pid());
                assertThat(s.call("INFO", "replication")).contains("role:master");
            }
            assertThat(nodes.get(1).call("GET", "k")).isEmpty();
        }
        pids.forEach(ProcessChecks::assertGone);
    }

    @Test
    void redisSentinel_failover_promotesTheReplica() throws Exception {
        try (RedisSentinelSetup setup = RedisSentinelSetup.start()) {
            RedisServer oldMaster = setup.master();
            RedisServer replica = setup.replica();
            assertThat(setup.reportedMasterAddress()).isEqualTo(oldMaster.address());
            assertThat(replica.call("ROLE")).startsWith("[slave");
            oldMaster.call("SET", "k", "v");
            await().atMost(Duration.ofSeconds(5)).until(() -> "v".equals(replica.call("GET", "k")));

            RedisServer promoted = setup.failover();

            assertThat(promoted).isSameAs(replica);
            assertThat(oldMaster.isRunning()).isFalse();
            assertThat(promoted.call("ROLE")).startsWith("[master");
            assertThat(setup.reportedMasterAddress()).isEqualTo(promoted.address());
            assertThat(promoted.call("GET", "k")).isEqualTo("v");
            promoted.call("SET", "k2", "v2"); // writable

            // the old master comes back empty and rejoins as a replica of the new one (the setup sends
            // REPLICAOF itself rather than wait on Sentinel's 20-90 s pace; see rejoin's javadoc)
            assertThat(setup.rejoin(false)).isSameAs(oldMaster);
            assertThat(setup.replica()).isSameAs(oldMaster);
            assertThat(setup.master()).isSameAs(promoted);
            await().atMost(Duration.ofSeconds(10)).until(() -> "v2".equals(oldMaster.call("GET", "k2")));
            assertThat(oldMaster.call("ROLE")).startsWith("[slave");
        }
    }

    @Test
    void redisCluster_threeMasters_stateOkAndSlotsCovered() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3)) {
            for (RedisServer n : cluster.nodes()) {
                String info = n.call("CLUSTER", "INFO");
                assertThat(info).contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3");
            }
            // a key in another node's slot is redirected
            assertThatThrownBy(() -> {
                        for (RedisServer n : cluster.nodes()) {
                            n.call("SET", "some-key", "v");
                        }
                    })
                    .hasMessageContaining("MOVED");
        }
    }

    @Test
    void etcd_singleMember_putGetAndRestartKeepsData() throws Exception {
        try (EtcdServer etcd = EtcdServer.start()) {
            etcd.put("k", "v");
            assertThat(etcd.get("k")).isEqualTo("v");
            etcd.restart(true);
            assertThat(etcd.get("k")).isEqualTo("v");
            etcd.restart(false);
            assertThat(etcd.get("k")).isNull();
        }
    }

    @Test
    void etcdCluster_leaderKilled_anotherLeaderIsElectedAndOldRejoinsWithAndWithoutData() throws Exception {
        try (EtcdCluster cluster = EtcdCluster.start(3)) {
            assertThat(cluster.endpoints()).hasSize(3);
            TestServer leader = cluster.leader();
            long pid = leader.pid();
            leader.kill();
            assertGone(pid);
            TestServer next = cluster.awaitLeader(Duration.ofSeconds(15));
            assertThat(next).isNotSameAs(leader);
            TestServer other = cluster.members().stream()
                    .filter(m -> m.isRunning())
                    .findFirst()
                    .orElseThrow();
            Probes.httpPost(
                    other.host(),
                    other.port(),
                    "/v3/kv/put",
                    "{\"key\":\"" + EtcdServer.b64("k") + "\",\"value\":\"" + EtcdServer.b64("v") + "\"}");
            leader.restart(true);
            assertThat(leader.isRunning()).isTrue();
            // without its data: removed, re-added as a new member, caught up from the others
            leader.restart(false);
            assertThat(leader.isRunning()).isTrue();
            String served = Probes.httpPost(
                    leader.host(),
                    leader.port(),
                    "/v3/kv/range",
                    "{\"key\":\"" + EtcdServer.b64("k") + "\",\"serializable\":true}");
            assertThat(Probes.jsonField(served, "value")).isEqualTo(EtcdServer.b64("v"));
            String members = Probes.httpPost(leader.host(), leader.port(), "/v3/cluster/member/list", "{}");
            assertThat(java.util.regex.Pattern.compile("\"name\":\"[^\"]+\"")
                            .matcher(members)
                            .results()
                            .count())
                    .as("three started (named) members in %s", members)
                    .isEqualTo(3);
        }
    }

    @Test
    void zooKeeper_standalone_answersSrvrAndRestarts() {
        try (TestServer zk = ZooKeeperServer.start()) {
            assertThat(ZooKeeperEnsemble.mode(zk)).contains("standalone");
            zk.restart(false);
            assertThat(ZooKeeperEnsemble.mode(zk)).contains("standalone");
        }
    }

    @Test
    void zooKeeperEnsemble_leaderKilled_anotherLeaderIsElected() {
        try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.start(3)) {
            TestServer leader = zk.leader();
            assertThat(ZooKeeperEnsemble.mode(leader)).contains("leader");
            leader.kill();
            TestServer next = zk.awaitLeader(Duration.ofSeconds(30));
            assertThat(next).isNotSameAs(leader);
            leader.restart(true);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ZooKeeperEnsemble.mode(leader)
                            .filter("follower"::equals)
                            .isPresent());
        }
    }

    @Test
    void mariaDb_start_userCanCreateTablesInTestDatabase() throws Exception {
        try (MariaDbServer db = MariaDbServer.start()) {
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id INT PRIMARY KEY) ENGINE=InnoDB");
                s.execute("INSERT INTO t VALUES (1)");
                try (ResultSet rs = s.executeQuery("SELECT DATABASE(), CURRENT_USER()")) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo("distlock_test");
                    assertThat(rs.getString(2)).startsWith("distlock@");
                }
            }
            db.restart(true);
            try (Connection c = db.connect();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(1);
            }
            db.restart(false);
            try (Connection c = db.connect();
                    Statement s = c.createStatement()) {
                assertThatThrownBy(() -> s.executeQuery("SELECT COUNT(*) FROM t"))
                        .hasMessageContaining("doesn't exist");
            }
        }
    }

    @Test
    void binaries_missing_messageNamesPackageAndScript() {
        assertThatThrownBy(() -> Binaries.require("redis-server", "/nonexistent/redis-server"))
                .isInstanceOf(ServerStartException.class)
                .hasMessageContaining("redis-server")
                .hasMessageContaining("scripts/install-servers.sh");
    }

    @Test
    void closedServer_processGone() {
        RedisServer redis = RedisServer.start();
        long pid = redis.pid();
        assertThat(alive(pid)).isTrue();
        redis.close();
        assertGone(pid);
        redis.close(); // idempotent
    }
}
