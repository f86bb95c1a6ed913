package io.distlock.redis;

import static io.distlock.redis.RedisTestAccess.lockKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.distlock.BackendUnavailableException;
import io.distlock.Capabilities;
import io.distlock.Lease;
import io.distlock.TimeoutOptions;
import io.distlock.testing.faults.TcpProxy;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Master + replica, failover done by hand the way Sentinel does it ({@code REPLICAOF NO ONE} on the
 * replica after the master died). Shows the documented weakness of asynchronous replication and
 * what {@code requiredReplicas} changes.
 */
class RedisFailoverIT {
    private static final String NAME = "failover/job";
    private RedisServer master;
    private RedisServer replica;
    private TcpProxy link;

    @BeforeEach
    void start() throws Exception {
        master = RedisServer.builder().args("--repl-diskless-sync-delay", "0").start();
        link = TcpProxy.start(master.host(), master.port()); // the replication link, which the tests delay
        replica = RedisServer.builder()
                .args("--replicaof", "127.0.0.1", Integer.toString(link.port()))
                .start();
        try (Jedis m = new Jedis(master.host(), master.port())) {
            // online on the master's side and answering acknowledgements
            await("replica in sync")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> m.info("replication").contains("state=online") && m.waitReplicas(1, 100) == 1);
        }
    }

    @AfterEach
    void stop() {
        link.close();
        replica.close();
        master.close();
    }

    private RedisLockProvider client(RedisServer server, int requiredReplicas) {
        return RedisLockProvider.builder()
                .standalone(server.host(), server.port())
                .options(RedisLockOptions.builder()
                        .requiredReplicas(requiredReplicas)
                        .replicaAckTimeout(Duration.ofSeconds(1))
                        .timeouts(new TimeoutOptions(Duration.ofMillis(300), Duration.ofSeconds(3)))
                        .build())
                .leaseTime(Duration.ofSeconds(10))
                .build();
    }

    private void failOver() {
        master.kill();
        link.close(); // what the replica had not received is lost with the master
        try (Jedis r = new Jedis(replica.host(), replica.port())) {
            r.replicaofNoOne();
        }
    }

    @Test
    void failover_withoutReplicaAcks_lockAcquiredJustBeforeMasterDiesIsGrantedAgain() {
        try (RedisLockProvider a = client(master, 0)) {
            assertThat(a.capabilities().failover()).isEqualTo(Capabilities.Failover.MAY_GRANT_TWICE);
            link.blackhole(TcpProxy.Direction.BOTH); // the replica lags: it has not seen the acquisition yet
            Lease first = a.lock(NAME).tryAcquire().orElseThrow();
            assertThat(first.isValid()).isTrue();
            failOver();
            try (RedisLockProvider b = client(replica, 0)) {
                Optional<Lease> second = b.lock(NAME).tryAcquire();
                assertThat(second)
                        .as("the promoted replica never saw the first acquisition: the lock is granted twice")
                        .isPresent();
                assertThat(first.isValid())
                        .as("the first holder still believes it holds the lock")
                        .isTrue();
                second.get().release();
            }
        }
    }

    @Test
    void failover_requiredReplicasWhileReplicaLags_acquisitionFailsInsteadOfBeingLost() {
        try (RedisLockProvider a = client(master, 1)) {
            link.blackhole(TcpProxy.Direction.BOTH);
            assertThatThrownBy(() -> a.lock(NAME).tryAcquire())
                    .isInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("0 of 1 required replicas");
            try (Jedis m = new Jedis(master.host(), master.port())) {
                assertThat(m.exists(lockKey(a, NAME)))
                        .as("the acquisition was undone")
                        .isFalse();
            }
            link.resume();
        }
    }

    @Test
    void failover_requiredReplicasAcknowledged_lockSurvivesPromotion() {
        try (RedisLockProvider a = client(master, 1)) {
            Lease first = a.lock(NAME).tryAcquire().orElseThrow();
            long token = first.fencingToken().getAsLong();
            failOver();
            try (RedisLockProvider b = client(replica, 0)) {
                assertThat(b.lock(NAME).tryAcquire())
                        .as("the acknowledged acquisition is on the promoted replica")
                        .isEmpty();
                try (Jedis r = new Jedis(replica.host(), replica.port())) {
                    r.del(lockKey(b, NAME)); // let the lease end, as its TTL would
                }
                Lease next = b.lock(NAME).tryAcquire().orElseThrow();
                assertThat(next.fencingToken().getAsLong()).isGreaterThan(token);
                next.release();
            }
        }
    }
}
