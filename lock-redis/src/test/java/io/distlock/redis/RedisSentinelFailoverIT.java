package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.TimeoutOptions;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.RedisSentinelSetup;
import io.distlock.testing.servers.RedisServer;
import io.distlock.testing.servers.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A real Sentinel failover (master + replica + 3 sentinels, quorum 2), with the replication link
 * behind a proxy that can delay it. The replica only misses what the proxy held when the master died.
 */
class RedisSentinelFailoverIT {
    private static final String MASTER = RedisSentinelSetup.MASTER_NAME;
    private static final String NAME = "sentinel-failover/job";
    private RedisServer master;
    private RedisServer replica;
    private TcpProxy link;
    private final List<TestServer> sentinels = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        master = RedisServer.builder().args("--repl-diskless-sync-delay", "0").start();
        link = TcpProxy.start(master.host(), master.port());
        replica = RedisServer.builder()
                .args("--replicaof", "127.0.0.1", Integer.toString(link.port()), "--replica-announce-ip", "127.0.0.1")
                .start();
        try (Jedis m = new Jedis(master.host(), master.port())) {
            await("replica in sync")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> m.info("replication").contains("state=online") && m.waitReplicas(1, 100) == 1);
        }
        for (int i = 0; i < 3; i++) {
            sentinels.add(RedisSentinelSetup.startSentinel(master.port()));
        }
        for (TestServer s : sentinels) {
            try (Jedis j = new Jedis(s.host(), s.port())) {
                await("sentinel sees the replica and the other sentinels")
                        .atMost(Duration.ofSeconds(15))
                        .until(() -> {
                            String info = j.info("sentinel");
                            return info.contains("slaves=1") && info.contains("sentinels=3");
                        });
            }
        }
    }

    @AfterEach
    void stop() {
        sentinels.forEach(TestServer::close);
        link.close();
        replica.close();
        master.close();
    }

    private RedisLockProvider client(int requiredReplicas) {
        return RedisLockProvider.builder()
                .sentinel(MASTER, sentinels.stream().map(TestServer::address).toList())
                .options(RedisLockOptions.builder()
                        .requiredReplicas(requiredReplicas)
                        .replicaAckTimeout(Duration.ofSeconds(1))
                        .timeouts(new TimeoutOptions(Duration.ofMillis(300), Duration.ofSeconds(3)))
                        .build())
                .leaseTime(Duration.ofSeconds(30))
                .build();
    }

    private void killMasterAndAwaitPromotion() {
        master.kill();
        link.close(); // what the replica had not received dies with the master
        // Sentinel kills the normal clients of the instance it promotes: a new connection per poll
        await("sentinel promoted the replica")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> {
                    try (Jedis r = new Jedis(replica.host(), replica.port())) {
                        return r.info("replication").contains("role:master");
                    }
                });
    }

    private static Optional<Lease> tryUntilServed(RedisLockProvider p) {
        // the client may still be switching to the new master: retry through transient errors
        return await("acquisition attempt on the new master")
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> p.lock(NAME).tryAcquire(), r -> true);
    }

    @Test
    void sentinelFailover_withoutReplicaAcks_lockGrantedTwice() {
        try (RedisLockProvider a = client(0);
                RedisLockProvider b = client(0)) {
            link.blackhole(TcpProxy.Direction.BOTH);
            Lease first = a.lock(NAME).tryAcquire().orElseThrow();
            killMasterAndAwaitPromotion();
            Optional<Lease> second = tryUntilServed(b);
            assertThat(second)
                    .as("asynchronous replication: the promoted replica never saw the lock")
                    .isPresent();
            assertThat(second.get().fencingToken().getAsLong())
                    .as("the server-clock floor still orders the tokens")
                    .isGreaterThan(first.fencingToken().getAsLong());
        }
    }

    @Test
    void sentinelFailover_withReplicaAcks_lockSurvivesPromotion() {
        try (RedisLockProvider a = client(1);
                RedisLockProvider b = client(0)) {
            Lease first = a.lock(NAME).tryAcquire().orElseThrow();
            killMasterAndAwaitPromotion();
            Optional<Lease> second = tryUntilServed(b);
            assertThat(second)
                    .as("the acknowledged lock is on the promoted replica")
                    .isEmpty();
            assertThat(first.fencingToken()).isPresent();
        }
    }
}
