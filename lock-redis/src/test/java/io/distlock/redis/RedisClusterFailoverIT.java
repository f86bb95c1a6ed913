package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.redis.core.RedisKeys;
import io.distlock.testing.servers.RedisCluster;
import io.distlock.testing.servers.RedisServer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Redis Cluster of 3 masters with a replica each, where the master serving a lock's slot is killed
 * and the cluster promotes its replica: without replica acknowledgement a lock acquired while the
 * replica lagged is granted again, with a larger fencing token ({@code MAY_GRANT_TWICE}); with {@code
 * requiredReplicas = 1} the lock survives the promotion, keeps renewing and is released on the new
 * master.
 */
class RedisClusterFailoverIT {
    private static final RedisKeys KEYS = new RedisKeys(RedisLockOptions.DEFAULT_KEY_PREFIX);
    private RedisCluster cluster;
    private final List<RedisLockProvider> clients = new ArrayList<>();

    @BeforeEach
    void start() {
        cluster = RedisCluster.start(3, 1);
    }

    @AfterEach
    void stop() {
        clients.forEach(RedisLockProvider::close);
        cluster.close();
    }

    private RedisLockProvider client(RedisLockOptions options) {
        RedisLockProvider p = RedisLockProvider.builder()
                .cluster(cluster.nodes().stream().map(RedisServer::address).toList())
                .options(options)
                .lockOptions(
                        LockOptions.builder().leaseTime(Duration.ofSeconds(30)).build())
                .build();
        clients.add(p);
        return p;
    }

    /** Cuts the replica's link to its master for good (a wrong {@code masterauth}): it lags from now on. */
    private static void detach(RedisServer replica) throws IOException {
        replica.call("CONFIG", "SET", "masterauth", "detached");
        replica.call("CLIENT", "KILL", "TYPE", "master");
    }

    @Test
    void failover_withoutReplicaAcks_lockAcquiredWhileTheReplicaLaggedIsGrantedAgain() throws Exception {
        RedisLockProvider a = client(RedisLockOptions.defaults());
        RedisLockProvider b = client(RedisLockOptions.defaults());
        String name = "cluster-failover-lag";
        RedisServer master = cluster.masterOf(cluster.slot(KEYS.lockKey(name)));
        detach(cluster.replicasOf(master).get(0));
        Lease first = a.lock(name).tryAcquire().orElseThrow();

        cluster.failover(master, Duration.ofSeconds(30));

        Optional<Lease> second = b.lock(name).tryAcquire(Duration.ofSeconds(10));
        assertThat(second).as("the promoted replica never saw the first grant").isPresent();
        assertThat(second.get().fencingToken().getAsLong())
                .isGreaterThan(first.fencingToken().getAsLong());
    }

    @Test
    void failover_requiredReplicasAcknowledged_lockSurvivesPromotionAndIsReleasedThere() throws Exception {
        RedisLockOptions acked = RedisLockOptions.builder()
                .requiredReplicas(1)
                .replicaAckTimeout(Duration.ofSeconds(1))
                .build();
        RedisLockProvider a = client(acked);
        RedisLockProvider b = client(acked);
        String name = "cluster-failover-acked";
        RedisServer master = cluster.masterOf(cluster.slot(KEYS.lockKey(name)));
        Lease held = a.lock(name).tryAcquire().orElseThrow();

        RedisServer promoted = cluster.failover(master, Duration.ofSeconds(30));

        assertThat(cluster.masterOf(cluster.slot(KEYS.lockKey(name)))).isSameAs(promoted);
        assertThat(b.lock(name).tryAcquire(Duration.ofSeconds(2))).isEmpty();
        // the killed master comes back as the promoted one's replica: requests wait for it again
        cluster.rejoin(master, Duration.ofSeconds(30));
        held.extend(Duration.ofSeconds(30)); // an owner-checked request on the new master
        assertThat(held.isValid()).isTrue();
        assertThat(held.release()).isTrue();
        assertThat(b.lock(name).tryAcquire(Duration.ofSeconds(5))).isPresent();
    }
}
