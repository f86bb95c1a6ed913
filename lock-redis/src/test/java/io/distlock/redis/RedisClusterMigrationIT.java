package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.redis.core.RedisKeys;
import io.distlock.testing.servers.RedisCluster;
import io.distlock.testing.servers.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Locks on a Redis Cluster whose slot moves to another master while they are used ({@link
 * RedisCluster#migrateSlot}: {@code MIGRATING}/{@code IMPORTING}, keys moved one at a time with a
 * pause, so requests meet {@code ASK} for keys already moved and {@code TRYAGAIN} for scripts whose
 * keys are on both sides): renewals keep held locks (also batched ones in one slot), releases free
 * them, contending clients acquire through the migration, and no lock is ever held twice.
 */
class RedisClusterMigrationIT {
    private static final RedisKeys KEYS = new RedisKeys(RedisLockOptions.DEFAULT_KEY_PREFIX);
    private static RedisCluster cluster;
    private final List<RedisLockProvider> clients = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @AfterEach
    void closeClients() {
        pool.shutdownNow();
        clients.forEach(RedisLockProvider::close);
    }

    private RedisLockProvider client(Duration lease) {
        RedisLockProvider p = RedisLockProvider.builder()
                .cluster(cluster.nodes().stream().map(RedisServer::address).toList())
                .lockOptions(LockOptions.builder().leaseTime(lease).build())
                .build();
        clients.add(p);
        return p;
    }

    /** {@code n} lock names whose keys are in one hash slot (found by trying names). */
    private static List<String> namesInOneSlot(String prefix, int n) {
        List<String> names = new ArrayList<>();
        int slot = JedisClusterCRC16.getSlot(KEYS.lockKey(prefix + 0));
        names.add(prefix + 0);
        for (int i = 1; names.size() < n; i++) {
            if (JedisClusterCRC16.getSlot(KEYS.lockKey(prefix + i)) == slot) {
                names.add(prefix + i);
            }
        }
        return names;
    }

    /** A master that does not serve {@code slot} now. */
    private static RedisServer otherMaster(int slot) {
        RedisServer owner = cluster.masterOf(slot);
        for (int i = 0; i < cluster.masterCount(); i++) {
            if (cluster.node(i) != owner) {
                return cluster.node(i);
            }
        }
        throw new IllegalStateException("no other master");
    }

    @Test
    void heldLocks_slotMigratedKeyByKey_renewalsKeepThemAndReleasesFreeThem() throws Exception {
        Duration lease = Duration.ofSeconds(1); // renewed every 333 ms, several times during the move
        RedisLockProvider a = client(lease);
        RedisLockProvider b = client(lease);
        List<String> names = namesInOneSlot("migrate-held-", 20);
        int slot = cluster.slot(KEYS.lockKey(names.get(0)));
        List<Lease> leases = new ArrayList<>();
        for (String name : names) {
            leases.add(a.lock(name).tryAcquire().orElseThrow());
        }

        // 40 keys (lock and counter of each) moved one by one, 50 ms apart: 2 s half moved, two leases
        int moved = cluster.migrateSlot(slot, otherMaster(slot), Duration.ofMillis(50));

        assertThat(moved).isGreaterThanOrEqualTo(40);
        assertThat(leases).allMatch(Lease::isValid);
        assertThat(leases).noneMatch(l -> l.lost().toCompletableFuture().isDone());
        assertThat(b.lock(names.get(0)).tryAcquire()).isEmpty();
        for (Lease l : leases) {
            assertThat(l.release()).isTrue();
        }
        for (String name : names) {
            assertThat(b.lock(name).tryAcquire())
                    .as("after the release of %s", name)
                    .isPresent();
        }
    }

    @Test
    void contendingClients_acrossSlotMigrations_neverHoldTheLockTwice() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        String name = "migrate-contended";
        int slot = cluster.slot(KEYS.lockKey(name));
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger acquisitions = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<List<Throwable>>> workers = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            RedisLockProvider p = client(lease);
            workers.add(pool.submit(() -> {
                List<Throwable> errors = new ArrayList<>();
                while (!stop.get()) {
                    try {
                        Optional<Lease> l = p.lock(name).tryAcquire(Duration.ofSeconds(10));
                        if (l.isEmpty()) {
                            continue;
                        }
                        if (holders.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        acquisitions.incrementAndGet();
                        TimeUnit.MILLISECONDS.sleep(2); // the critical section's work
                        holders.decrementAndGet();
                        l.get().release();
                    } catch (InterruptedException e) {
                        break;
                    } catch (RuntimeException e) {
                        errors.add(e);
                    }
                }
                return errors;
            }));
        }
        List<Integer> acquiredByMigration = new ArrayList<>();
        for (int m = 0; m < 4; m++) {
            int before = acquisitions.get();
            org.awaitility.Awaitility.await("acquisitions before migration " + m)
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> acquisitions.get() >= before + 20);
            cluster.migrateSlot(slot, otherMaster(slot), Duration.ofMillis(150));
            acquiredByMigration.add(acquisitions.get());
        }
        int last = acquisitions.get();
        org.awaitility.Awaitility.await("acquisitions after the last migration")
                .atMost(Duration.ofSeconds(20))
                .until(() -> acquisitions.get() >= last + 20);
        stop.set(true);
        List<Throwable> errors = new ArrayList<>();
        for (Future<List<Throwable>> w : workers) {
            errors.addAll(w.get(30, TimeUnit.SECONDS));
        }

        assertThat(overlaps).hasValue(0);
        assertThat(errors).isEmpty();
        assertThat(acquiredByMigration).hasSize(4);
    }
}
