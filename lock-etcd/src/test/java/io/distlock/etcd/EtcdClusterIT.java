package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import io.distlock.TimeoutOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Faults on a 3-member cluster (a fresh cluster per test). */
class EtcdClusterIT {
    private EtcdTestCluster cluster;
    private final List<EtcdLockProvider> clients = new ArrayList<>();

    @BeforeEach
    void start() {
        cluster = EtcdTestCluster.start(3);
    }

    @AfterEach
    void stop() {
        for (EtcdLockProvider c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // a member is down; the lease expires with its TTL
            }
        }
        cluster.close();
    }

    private EtcdLockProvider client(List<String> endpoints, Duration leaseTime) {
        EtcdLockProvider p = EtcdLockProvider.builder()
                .endpoints(endpoints)
                .options(EtcdLockOptions.builder()
                        .timeouts(TimeoutOptions.of(Duration.ofSeconds(2)))
                        .build())
                .lockOptions(
                        LockOptions.defaults().mutate().leaseTime(leaseTime).build())
                .build();
        clients.add(p);
        return p;
    }

    private static CompletableFuture<Lease> acquireAsync(EtcdLockProvider p, String name) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return p.lock(name).acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void leaderKilled_holderAndWaiters_oneValidHolderAtATimeAndProgressAfterElection() throws Exception {
        Duration lease = Duration.ofSeconds(3);
        EtcdLockProvider a = client(cluster.endpoints(), lease);
        EtcdLockProvider b = client(cluster.endpoints(), lease);
        EtcdLockProvider c = client(cluster.endpoints(), lease);
        Lease held = a.lock("leader-kill").acquire();
        CompletableFuture<Lease> wb = acquireAsync(b, "leader-kill");
        CompletableFuture<Lease> wc = acquireAsync(c, "leader-kill");
        try (io.etcd.jetcd.Client admin = io.etcd.jetcd.Client.builder()
                .endpoints(cluster.endpoints().toArray(new String[0]))
                .build()) {
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> admin.getKVClient()
                                    .get(
                                            EtcdDriverTestKeys.bytes("/distlock/"),
                                            io.etcd.jetcd.options.GetOption.builder()
                                                    .isPrefix(true)
                                                    .withCountOnly(true)
                                                    .build())
                                    .get(2, TimeUnit.SECONDS)
                                    .getCount()
                            == 3);
        }
        int leader = cluster.leader();
        assertThat(leader).isNotNegative();
        cluster.kill(leader);
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.leader() >= 0);
        assertThat(wb).isNotDone();
        assertThat(wc).isNotDone();
        // the holder either kept its lease through the election or was told it lost it; never both
        // it and a waiter valid
        long t1;
        if (held.isValid()) {
            held.release();
        }
        t1 = held.fencingToken().getAsLong();
        Lease first =
                CompletableFuture.anyOf(wb, wc).thenApply(Lease.class::cast).get(10, TimeUnit.SECONDS);
        assertThat(held.isValid()).isFalse();
        assertThat(first.fencingToken().getAsLong()).isGreaterThan(t1);
        CompletableFuture<Lease> other = first == wb.getNow(null) ? wc : wb;
        assertThat(other).isNotDone();
        first.release();
        Lease second = other.get(10, TimeUnit.SECONDS);
        assertThat(second.fencingToken().getAsLong())
                .isGreaterThan(first.fencingToken().getAsLong());
        assertThat(first.isValid()).isFalse();
        second.release();
    }

    @Test
    void clientsMemberKilled_clientContinuesThroughAnotherEndpoint_lockSurvives() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        int follower = (cluster.leader() + 1) % 3;
        List<String> endpoints = new ArrayList<>();
        endpoints.add(cluster.endpoint(follower));
        for (int i = 0; i < 3; i++) {
            if (i != follower) {
                endpoints.add(cluster.endpoint(i));
            }
        }
        EtcdLockProvider a = client(endpoints, lease);
        Lease held = a.lock("member-kill").acquire();
        cluster.kill(follower);
        // stay valid for several lease times: keepalives go through another member
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5000);
        await().atMost(Duration.ofSeconds(8))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    assertThat(held.isValid())
                            .as("lease valid after its member died")
                            .isTrue();
                    return System.nanoTime() > until;
                });
        Lease other = a.lock("member-kill-2").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        other.release();
        assertThat(held.release()).isTrue();
    }

    @Test
    void clientsOnlyMemberStalls_lostSignalFiresByDeadline_beforeServerExpiresLease() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        int follower = (cluster.leader() + 1) % 3;
        EtcdLockProvider a = client(List.of(cluster.endpoint(follower)), lease);
        Lease held = a.lock("stall").acquire();
        int other = (follower + 1) % 3;
        try (io.etcd.jetcd.Client admin = io.etcd.jetcd.Client.builder()
                .endpoints(cluster.endpoint(other))
                .build()) {
            long deadline = System.nanoTime() + held.remainingValidity().toNanos();
            cluster.pause(follower, true); // the client's traffic now goes nowhere
            try {
                held.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
                long lateMs = (System.nanoTime() - deadline) / 1_000_000;
                // deadline read before the pause; at most one keepalive interval (leaseTime/3) later
                assertThat(lateMs).isLessThan(700 + 200);
                assertThat(held.isValid()).isFalse();
                // the server still holds our key: we gave up before it could expire the lease
                long keys = admin.getKVClient()
                        .get(
                                EtcdDriverTestKeys.bytes("/distlock/"),
                                io.etcd.jetcd.options.GetOption.builder()
                                        .isPrefix(true)
                                        .withCountOnly(true)
                                        .build())
                        .get(2, TimeUnit.SECONDS)
                        .getCount();
                assertThat(keys)
                        .as("key still on the server when the loss was signalled")
                        .isEqualTo(1);
            } finally {
                cluster.pause(follower, false);
            }
        }
    }

    @Test
    void memberRestartedWithoutData_leaderThenFollower_rejoinsWithTheDataAndHeldLockKeepsItsKey() throws Exception {
        // long enough for a renewal stuck on the killed leader (2 s request timeout) to be retried elsewhere
        Duration lease = Duration.ofSeconds(5);
        EtcdLockProvider a = client(cluster.endpoints(), lease);
        Lease held = a.lock("wiped").acquire();
        long token = held.fencingToken().getAsLong();
        int[] replaced = {-1};
        try (io.etcd.jetcd.Client admin = io.etcd.jetcd.Client.builder()
                .endpoints(cluster.endpoints().toArray(new String[0]))
                .build()) {
            admin.getKVClient()
                    .put(EtcdDriverTestKeys.bytes("/data/before"), EtcdDriverTestKeys.bytes("kept"))
                    .get(5, TimeUnit.SECONDS);
            List<Long> oldIds = memberIds(admin);
            int leader = cluster.leader();
            int follower = (leader + 1) % 3;
            replaced[0] = follower;
            for (int wiped : new int[] {leader, follower}) {
                long revisionBefore = admin.getKVClient()
                        .get(EtcdDriverTestKeys.bytes("/data/before"))
                        .get(5, TimeUnit.SECONDS)
                        .getHeader()
                        .getRevision();

                cluster.restartWithoutData(wiped);

                assertThat(cluster.isRunning(wiped)).isTrue();
                List<io.etcd.jetcd.cluster.Member> members = admin.getClusterClient()
                        .listMember()
                        .get(5, TimeUnit.SECONDS)
                        .getMembers();
                assertThat(members)
                        .hasSize(3)
                        .allSatisfy(m -> assertThat(m.getName())
                                .as("every member started")
                                .isNotEmpty());
                // served by the wiped member alone, from its own state: the data came back
                try (io.etcd.jetcd.Client only = io.etcd.jetcd.Client.builder()
                        .endpoints(cluster.endpoint(wiped))
                        .build()) {
                    io.etcd.jetcd.kv.GetResponse r = only.getKVClient()
                            .get(
                                    EtcdDriverTestKeys.bytes("/data/before"),
                                    io.etcd.jetcd.options.GetOption.builder()
                                            .withSerializable(true)
                                            .build())
                            .get(5, TimeUnit.SECONDS);
                    assertThat(r.getHeader().getRevision()).isGreaterThanOrEqualTo(revisionBefore);
                    assertThat(r.getKvs())
                            .singleElement()
                            .satisfies(kv -> assertThat(kv.getValue().toString(java.nio.charset.StandardCharsets.UTF_8))
                                    .isEqualTo("kept"));
                    io.etcd.jetcd.kv.GetResponse lockKeys = only.getKVClient()
                            .get(
                                    EtcdDriverTestKeys.bytes("/distlock/"),
                                    io.etcd.jetcd.options.GetOption.builder()
                                            .isPrefix(true)
                                            .withSerializable(true)
                                            .build())
                            .get(5, TimeUnit.SECONDS);
                    assertThat(lockKeys.getKvs())
                            .as("the held lock's key, created at its token's revision")
                            .singleElement()
                            .satisfies(kv -> assertThat(kv.getCreateRevision()).isEqualTo(token));
                }
                assertThat(held.isValid()).as("lease renewed through the fault").isTrue();
            }
            assertThat(memberIds(admin))
                    .hasSize(3)
                    .filteredOn(oldIds::contains)
                    .as("two of the three members replaced by new ids")
                    .hasSize(1);
        }
        assertThat(held.release()).isTrue();
        // a client that reaches only a replaced member gets the next token
        EtcdLockProvider b = client(List.of(cluster.endpoint(replaced[0])), lease);
        Lease next = b.lock("wiped").tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(next.fencingToken().getAsLong()).isGreaterThan(token);
        next.release();
    }

    private static List<Long> memberIds(io.etcd.jetcd.Client admin) throws Exception {
        return admin.getClusterClient().listMember().get(5, TimeUnit.SECONDS).getMembers().stream()
                .map(io.etcd.jetcd.cluster.Member::getId)
                .toList();
    }
}
