package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.distlock.Lease;
import io.distlock.LockOptions;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingZooKeeperServer;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A real 3-server ensemble in this JVM (curator-test), every port on 127.0.0.1. */
@Timeout(120)
class ZooKeeperEnsembleIT {
    /** 5 s sessions: the largest these servers grant (20 ticks of 250 ms). */
    private static final LockOptions OPTIONS =
            LockOptions.builder().leaseTime(Duration.ofSeconds(5)).build();

    private static TestingCluster cluster;
    private static ZooKeeperFixture fixture;

    @BeforeAll
    static void startEnsemble() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
        System.setProperty("zookeeper.admin.enableServer", "false");
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, 250, 200, Map.of(), "127.0.0.1"));
        }
        cluster = new TestingCluster(specs);
        cluster.start();
        fixture = ZooKeeperFixture.ensemble(cluster);
    }

    @AfterAll
    static void stopEnsemble() {
        if (fixture != null) {
            fixture.close();
        }
    }

    /** The peer state of one in-process server, read from its QuorumPeer (4lw is not served here). */
    private static String mode(InstanceSpec spec) {
        for (TestingZooKeeperServer server : cluster.getServers()) {
            if (!server.getInstanceSpec().equals(spec)) {
                continue;
            }
            try {
                Object main = field(server, "main");
                Object qpm =
                        main instanceof QuorumPeerMain ? main : field(field(main, "zooKeeperEmbedded"), "maincluster");
                QuorumPeer peer = (QuorumPeer) field(qpm, "quorumPeer");
                if (peer == null || !peer.isRunning()) {
                    return "down";
                }
                return peer.getPeerState() == QuorumPeer.ServerState.LEADING
                        ? "leader"
                        : peer.getPeerState().toString();
            } catch (ReflectiveOperationException | RuntimeException e) {
                return "down";
            }
        }
        return "unknown";
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // look further up
            }
        }
        throw new NoSuchFieldException(name + " in " + o.getClass());
    }

    private static InstanceSpec leader() {
        return cluster.getInstances().stream()
                .filter(s -> mode(s).equals("leader"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no leader: "
                        + cluster.getInstances().stream()
                                .map(ZooKeeperEnsembleIT::mode)
                                .toList()));
    }

    @Test
    void basicContract_ensemble_acquireWaitReleaseFenced() throws Exception {
        try (ZooKeeperLockProvider a = fixture.newZkClient(OPTIONS);
                ZooKeeperLockProvider b = fixture.newZkClient(OPTIONS)) {
            Lease first = a.lock("ens/basic").acquire();
            assertThat(b.lock("ens/basic").tryAcquire()).isEmpty();
            CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.lock("ens/basic").acquire();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().until(() ->
                    fixture.children(a.internals().lockPath("ens/basic")).size() == 2);
            first.release();
            Lease second = waiter.get(10, TimeUnit.SECONDS);
            assertThat(second.fencingToken().getAsLong())
                    .isGreaterThan(first.fencingToken().getAsLong());
            second.release();
        }
    }

    @Test
    void leaderKilled_lockHeldWithWaiters_heldLockSurvivesNoOverlapUsableAfterElection() throws Exception {
        String name = "ens/leader-kill";
        await().atMost(Duration.ofSeconds(30))
                .until(() -> cluster.getInstances().stream().anyMatch(s -> mode(s).equals("leader")));
        InstanceSpec leader = leader();
        List<long[]> history = new ArrayList<>(); // {token, acquiredAt, releasedAt}
        try (ZooKeeperLockProvider holder = fixture.newZkClient(OPTIONS);
                ZooKeeperLockProvider w1 = fixture.newZkClient(OPTIONS);
                ZooKeeperLockProvider w2 = fixture.newZkClient(OPTIONS)) {
            Lease held = holder.lock(name).acquire();
            long heldAt = System.nanoTime();
            List<CompletableFuture<long[]>> waiters = new ArrayList<>();
            for (ZooKeeperLockProvider w : List.of(w1, w2)) {
                waiters.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        Lease l = w.lock(name).acquire();
                        long at = System.nanoTime();
                        assertThat(l.isValid()).isTrue();
                        long token = l.fencingToken().getAsLong();
                        // the hold ends when release is called: the next holder may be granted the lock
                        // before this release's reply reaches us
                        long releasing = System.nanoTime();
                        boolean released = l.release();
                        return new long[] {token, at, releasing, released ? 1 : 0};
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            await().until(() ->
                    fixture.children(holder.internals().lockPath(name)).size() == 3);
            assertThat(cluster.killServer(leader)).isTrue();
            try {
                // a new leader is elected among the two survivors
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> cluster.getInstances().stream()
                                .filter(s -> !s.equals(leader))
                                .anyMatch(s -> mode(s).equals("leader")));
                // the holder's session survives: after reconnecting its lease is valid without gaps
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> held.remainingValidity().compareTo(Duration.ofSeconds(3)) > 0);
                assertThat(held.isValid()).isTrue();
                assertThat(waiters).noneMatch(CompletableFuture::isDone);
                long token = held.fencingToken().getAsLong();
                long releasing = System.nanoTime();
                assertThat(held.release()).isTrue();
                history.add(new long[] {token, heldAt, releasing, 1});
                for (CompletableFuture<long[]> f : waiters) {
                    history.add(f.get(30, TimeUnit.SECONDS));
                }
                // usable after election
                try (ZooKeeperLockProvider fresh = fixture.newZkClient(OPTIONS)) {
                    fresh.lock(name)
                            .tryAcquire(Duration.ofSeconds(10))
                            .orElseThrow()
                            .release();
                }
            } finally {
                cluster.restartServer(leader);
            }
        }
        history.sort((x, y) -> Long.compare(x[1], y[1]));
        for (int i = 1; i < history.size(); i++) {
            assertThat(history.get(i)[1])
                    .as("holder %d acquired after holder %d released", i, i - 1)
                    .isGreaterThanOrEqualTo(history.get(i - 1)[2]);
            assertThat(history.get(i)[0]).isGreaterThan(history.get(i - 1)[0]);
        }
        assertThat(history).allMatch(h -> h[3] == 1);
    }
}
