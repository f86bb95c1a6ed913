package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.cli.peers.CuratorLockClient;
import io.distlock.testing.servers.TestServer;
import io.distlock.testing.servers.ZooKeeperServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * ZooKeeper: distlock's lock-zookeeper and Curator's InterProcessMutex on one ZooKeeper 3.8 server
 * ({@code forceSync=no}). Requests are counted from {@code mntr}'s packets_received.
 *
 * <p>Floors interleaved with the uncontended run: the raw read round trip ({@code exists}, × 2);
 * the write floor, one {@code create} + one {@code delete} of an ephemeral node by the raw handle
 * ({@code create_delete_floor_p50_us}): a ZooKeeper lock cannot do with less than those two writes,
 * which go through the server's commit pipeline and cost more than a read; and, for ours, the bare
 * requests ({@code bare_requests_floor_p50_us}): lock-zookeeper's two, the {@code multi} of an
 * ephemeral-sequential create and a {@code setData} of its parent, then the {@code delete}, by the
 * raw handle under a parent of its own.
 *
 * <p>Hand-off floor ({@code handoff_floor_p50_us}, next to the hand-off scenarios): client A (the
 * floor client's raw handle) deletes an ephemeral node on which client B (a second session's raw
 * handle) has set an {@code exists} watch; the time from A's delete call to B's notification, plus
 * one {@code exists} round trip by B (as distlock-bench's ZooKeeperBench measures it).
 */
final class ZooKeeperBackend extends ServerBackend {
    private TestServer server;
    private CuratorFramework floorClient;
    private CuratorFramework delayedClient;
    private CuratorFramework watchClient;
    private String cleanedUp;

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public void start(ServerAddress theirs, RunPrefix runPrefix, boolean delayLine) throws Exception {
        use(
                theirs,
                () -> {
                    server = ZooKeeperServer.start();
                    return new ServerAddress("zookeeper", List.of(server.address()), null, null, "");
                },
                runPrefix,
                delayLine);
        floorClient = connect(address);
        floorClient.create().creatingParentsIfNeeded().forPath(bareParent());
        if (line != null) {
            delayedClient = connect(line.route(address));
        }
    }

    /** {@code h:p,h:p[/chroot]} of {@code a}. */
    private static String connectString(ServerAddress a) {
        return String.join(",", a.nodes()) + (a.path().isEmpty() ? "" : "/" + a.path());
    }

    /** A started Curator client of {@code a}, logged in (digest) if it names a user, connected. */
    private static CuratorFramework connect(ServerAddress a) throws InterruptedException {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(connectString(a))
                .sessionTimeoutMs(10_000)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new RetryOneTime(100));
        if (a.user() != null) {
            b.authorization("digest", (a.user() + ":" + a.password()).getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework c = b.build();
        c.start();
        if (!c.blockUntilConnected(10, TimeUnit.SECONDS)) {
            c.close();
            throw new IllegalStateException("cannot connect to ZooKeeper at " + a.describe());
        }
        return c;
    }

    private String bareParent() {
        return prefix.zkRoot() + "/bare";
    }

    /** Creates an ephemeral-sequential node under the root with {@code prefix}; returns its path. */
    private static String ephemeral(org.apache.zookeeper.ZooKeeper zk, String prefix) throws Exception {
        return zk.create(
                prefix,
                new byte[0],
                org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL);
    }

    private long packets() {
        try {
            return Probes.field(Probes.fourLetter(address.host(0), address.port(0), "mntr"), "zk_packets_received");
        } catch (IOException e) {
            throw unchecked(e);
        }
    }

    /** The write floor: one create and one delete of an ephemeral node, by the raw handle. */
    private void createDelete() {
        try {
            org.apache.zookeeper.ZooKeeper zk = floorClient.getZookeeperClient().getZooKeeper();
            zk.delete(ephemeral(zk, prefix.zkRoot() + "/floor-"), -1);
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    /** The bare requests: the multi (create + the parent's setData), then the delete. */
    private void bareRequests() {
        try {
            org.apache.zookeeper.ZooKeeper zk = floorClient.getZookeeperClient().getZooKeeper();
            List<org.apache.zookeeper.OpResult> r = zk.multi(List.of(
                    org.apache.zookeeper.Op.create(
                            bareParent() + "/n-",
                            new byte[0],
                            org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                            org.apache.zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL),
                    org.apache.zookeeper.Op.setData(bareParent(), new byte[0], -1)));
            if (((org.apache.zookeeper.OpResult.SetDataResult) r.get(1))
                            .getStat()
                            .getNumChildren()
                    != 1) {
                throw new IllegalStateException("bare requests: the node was not alone under " + bareParent());
            }
            zk.delete(((org.apache.zookeeper.OpResult.CreateResult) r.get(0)).getPath(), -1);
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    /**
     * One hand-off floor sample, in nanoseconds, after {@code idleNanos} idle before the delete: A's
     * delete → B's watch notification, plus one exists by B.
     */
    private long handoffFloor(long idleNanos) {
        try {
            if (watchClient == null) {
                watchClient = connect(address);
            }
            org.apache.zookeeper.ZooKeeper a = floorClient.getZookeeperClient().getZooKeeper();
            org.apache.zookeeper.ZooKeeper b = watchClient.getZookeeperClient().getZooKeeper();
            String path = ephemeral(a, prefix.zkRoot() + "/handoff-floor-");
            CountDownLatch fired = new CountDownLatch(1);
            AtomicLong at = new AtomicLong();
            if (b.exists(path, event -> {
                        if (event.getType() == org.apache.zookeeper.Watcher.Event.EventType.NodeDeleted) {
                            at.set(System.nanoTime());
                            fired.countDown();
                        }
                    })
                    == null) {
                throw new IllegalStateException("hand-off floor: node " + path + " not visible to the watcher");
            }
            CountDownLatch deleted = new CountDownLatch(1);
            if (idleNanos > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(idleNanos); // as a holder holds
            }
            long t0 = System.nanoTime();
            a.delete(path, -1, (rc, p, ctx) -> deleted.countDown(), null);
            if (!fired.await(5, TimeUnit.SECONDS)) {
                throw new IllegalStateException("hand-off floor: no watch notification");
            }
            long t1 = System.nanoTime();
            b.exists(path, false);
            long t2 = System.nanoTime();
            if (!deleted.await(5, TimeUnit.SECONDS)) {
                throw new IllegalStateException("hand-off floor: delete unanswered");
            }
            return (at.get() - t0) + (t2 - t1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("hand-off floor interrupted", e);
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    private void exists() {
        exists(floorClient);
    }

    private void delayedExists() {
        exists(delayedClient);
    }

    private static void exists(CuratorFramework client) {
        try {
            client.checkExists().forPath("/");
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version;
        try {
            version = Probes.fourLetter(address.host(0), address.port(0), "srvr")
                    .lines()
                    .findFirst()
                    .orElse("?");
        } catch (IOException e) {
            version = "?";
        }
        String v = version;
        List<ComparisonTarget> direct = at(address, this::exists, peers, v);
        direct.set(
                0,
                direct.get(0)
                        .withExtraFloor("create_delete_floor", this::createDelete)
                        .withExtraFloor("bare_requests_floor", this::bareRequests)
                        .withHandoffFloor(this::handoffFloor));
        if (direct.size() > 1) {
            direct.set(
                    1,
                    direct.get(1)
                            .withExtraFloor("create_delete_floor", this::createDelete)
                            .withHandoffFloor(this::handoffFloor));
        }
        return paired(direct, () -> at(line.route(address), this::delayedExists, peers, v));
    }

    private List<ComparisonTarget> at(ServerAddress a, Runnable floor, boolean peers, String version) {
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours(
                        "zookeeper",
                        "zookeeper://" + a.userInfo() + connectString(a) + "?rootPath=" + prefix.zkRoot()
                                + "/distlock&leaseTime=10s")
                .withFloor(floor, 2)
                .withServerRequests(counter(this::packets))
                .withServerConnections(connections())
                .withServerVersion(version));
        if (peers) {
            String connect = connectString(a);
            String base = prefix.zkRoot() + "/curator";
            out.add(ComparisonTarget.of(
                            "curator InterProcessMutex",
                            "zookeeper",
                            () -> new CuratorLockClient(connect, a.user(), a.password(), base))
                    .withFloor(floor, 2)
                    .withServerRequests(counter(this::packets))
                    .withServerConnections(connections())
                    .withServerVersion(version)
                    .asPeer());
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return where("ZooKeeper " + address.describe() + " (forceSync=no)");
    }

    /** Deletes the run's root node and everything under it, then checks that it is gone. */
    @Override
    public synchronized String cleanUp() {
        if (cleanedUp == null && floorClient != null) {
            String root = prefix.zkRoot();
            try {
                long nodes = count(floorClient, root);
                floorClient.delete().deletingChildrenIfNeeded().forPath(root);
                boolean left = floorClient.checkExists().forPath(root) != null;
                cleanedUp = address.describe() + ": removed " + root + " and the " + (nodes - 1)
                        + " nodes under it (distlock's lock parents, Curator's lock nodes, the probes'); "
                        + (left ? root + " LEFT" : "none left");
            } catch (Exception e) {
                cleanedUp = address.describe() + ": removing " + root + " failed: " + e;
            }
        }
        return cleanedUp == null ? "nothing created" : cleanedUp;
    }

    /** {@code path} and the nodes under it; 0 if it does not exist. */
    private static long count(CuratorFramework c, String path) throws Exception {
        if (c.checkExists().forPath(path) == null) {
            return 0;
        }
        long n = 1;
        for (String child : c.getChildren().forPath(path)) {
            n += count(c, path + "/" + child);
        }
        return n;
    }

    @Override
    public void close() {
        if (watchClient != null) {
            watchClient.close();
        }
        if (delayedClient != null) {
            delayedClient.close();
        }
        if (floorClient != null) {
            floorClient.close();
        }
        closeLine();
        if (server != null) {
            server.close();
        }
    }
}
