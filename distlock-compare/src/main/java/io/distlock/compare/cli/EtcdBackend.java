package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.ScalePoints;
import io.distlock.compare.Scenario;
import io.distlock.compare.cli.peers.JetcdLockClient;
import io.distlock.testing.servers.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * etcd: distlock's lock-etcd and jetcd's Lock client on one etcd 3.4 member ({@code
 * --unsafe-no-fsync}). Requests are counted as gRPC messages received by the server (/metrics).
 *
 * <p>Hand-off floor ({@code handoff_floor_p50_us}): client A (the floor client) deletes a key that
 * client B (a second jetcd client) watches for deletes; the time from A's delete call to B's
 * watch notification, plus one {@code get} round trip by B. Both through jetcd's own API.
 */
final class EtcdBackend extends ServerBackend {
    private EtcdServer server;
    private Client floorClient;
    private Client delayedClient;
    private Client watchClient;
    private Watch.Watcher watcher;
    private ByteSequence handoffKey;
    private ByteSequence floorKey;
    /** When B's watch reported each delete of the hand-off key (nanoTime), oldest first. */
    private final BlockingQueue<Long> deletesSeen = new LinkedBlockingQueue<>();

    private String cleanedUp;

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public void start(ServerAddress theirs, RunPrefix runPrefix, boolean delayLine) {
        use(
                theirs,
                () -> {
                    server = EtcdServer.start();
                    return new ServerAddress("etcd", List.of(server.address()), null, null, "");
                },
                runPrefix,
                delayLine);
        handoffKey = bytes(prefix.etcdPrefix() + "handoff-floor");
        floorKey = bytes(prefix.etcdPrefix() + "floor");
        floorClient = client(address);
        if (line != null) {
            delayedClient = client(line.route(address));
        }
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    /** {@code http://h:p,…} of {@code a}. */
    private static String[] endpoints(ServerAddress a) {
        return a.nodes().stream().map(n -> "http://" + n).toArray(String[]::new);
    }

    /** A jetcd client of {@code a}, logged in if it names a user. */
    static Client client(ServerAddress a) {
        ClientBuilder b = Client.builder().endpoints(endpoints(a));
        if (a.user() != null) {
            b.user(bytes(a.user())).password(bytes(a.password() == null ? "" : a.password()));
        }
        return b.build();
    }

    private long messages() {
        try {
            return Probes.sumMetric(
                    Probes.httpGet("http://" + address.nodes().get(0) + "/metrics"), "grpc_server_msg_received_total");
        } catch (IOException e) {
            throw unchecked(e);
        }
    }

    private void get() {
        get(floorClient);
    }

    private void delayedGet() {
        get(delayedClient);
    }

    private void get(Client client) {
        try {
            client.getKVClient().get(floorKey).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    /**
     * One hand-off floor sample, in nanoseconds, after {@code idleNanos} idle before the delete: A's delete → B's notification, plus one get by B.
     */
    private long handoffFloor(long idleNanos) {
        try {
            if (watcher == null) {
                watchClient = client(address);
                CountDownLatch created = new CountDownLatch(1);
                // no start revision: the watch is synced (served at once), like a waiter's
                watcher = watchClient
                        .getWatchClient()
                        .watch(
                                handoffKey,
                                WatchOption.builder()
                                        .withNoPut(true)
                                        .withCreateNotify(true)
                                        .build(),
                                Watch.listener(r -> {
                                    long at = System.nanoTime();
                                    if (r.isCreatedNotify()) {
                                        created.countDown();
                                    }
                                    r.getEvents().forEach(e -> {
                                        if (e.getEventType() == WatchEvent.EventType.DELETE) {
                                            deletesSeen.add(at);
                                        }
                                    });
                                }));
                if (!created.await(5, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("hand-off floor: watch not set up");
                }
            }
            floorClient.getKVClient().put(handoffKey, ByteSequence.EMPTY).get(5, TimeUnit.SECONDS);
            deletesSeen.clear();
            if (idleNanos > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(idleNanos); // as a holder holds
            }
            long t0 = System.nanoTime();
            CompletableFuture<?> delete = floorClient.getKVClient().delete(handoffKey);
            Long at = deletesSeen.poll(5, TimeUnit.SECONDS);
            if (at == null) {
                throw new IllegalStateException("hand-off floor: no watch notification");
            }
            long t1 = System.nanoTime();
            watchClient.getKVClient().get(handoffKey).get(5, TimeUnit.SECONDS);
            long t2 = System.nanoTime();
            delete.get(5, TimeUnit.SECONDS);
            return (at - t0) + (t2 - t1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("hand-off floor interrupted", e);
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version;
        try {
            version = Probes.httpGet("http://" + address.nodes().get(0) + "/version")
                    .trim();
        } catch (IOException e) {
            version = "?";
        }
        String v = version;
        List<ComparisonTarget> direct = at(address, this::get, peers, v);
        direct.set(0, direct.get(0).withHandoffFloor(this::handoffFloor));
        if (direct.size() > 1) {
            direct.set(
                    1,
                    direct.get(1)
                            .withHandoffFloor(this::handoffFloor)
                            .withLimit(
                                    Scenario.HANDOFF_MANY,
                                    ScalePoints.defaults().maxWaiterClients(),
                                    "the threads of one jetcd client share its lease, which etcd's lock RPC takes"
                                            + " for one owner: one client per waiter, at most "
                                            + ScalePoints.defaults().maxWaiterClients()));
        }
        return paired(direct, () -> at(line.route(address), this::delayedGet, peers, v));
    }

    private List<ComparisonTarget> at(ServerAddress a, Runnable floor, boolean peers, String version) {
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours(
                        "etcd",
                        "etcd://" + a.userInfo() + String.join(",", a.nodes()) + "?keyPrefix=" + prefix.etcdPrefix()
                                + "distlock/&leaseTime=10s")
                .withFloor(floor, 2)
                .withServerRequests(counter(this::messages))
                .withServerConnections(connections())
                .withServerVersion(version));
        if (peers) {
            String keyPrefix = prefix.etcdPrefix() + "jetcd/";
            out.add(ComparisonTarget.of("jetcd Lock", "etcd", () -> new JetcdLockClient(client(a), keyPrefix))
                    .withFloor(floor, 2)
                    .withServerRequests(counter(this::messages))
                    .withServerConnections(connections())
                    .withServerVersion(version)
                    .asPeer());
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return where("etcd " + address.describe() + " (--unsafe-no-fsync)");
    }

    /** Deletes every key under the run's prefix (one range delete) and counts what is left. */
    @Override
    public synchronized String cleanUp() {
        if (cleanedUp == null && floorClient != null) {
            ByteSequence p = bytes(prefix.etcdPrefix());
            try {
                long removed = floorClient
                        .getKVClient()
                        .delete(p, DeleteOption.builder().isPrefix(true).build())
                        .get(30, TimeUnit.SECONDS)
                        .getDeleted();
                long left = floorClient
                        .getKVClient()
                        .get(
                                p,
                                GetOption.builder()
                                        .isPrefix(true)
                                        .withCountOnly(true)
                                        .build())
                        .get(30, TimeUnit.SECONDS)
                        .getCount();
                cleanedUp = address.describe() + ": removed " + removed + " keys under " + prefix.etcdPrefix()
                        + " (distlock's and jetcd's lock keys, the probes'); "
                        + (left == 0 ? "none left" : left + " LEFT")
                        + "; the leases of both libraries were revoked when their clients closed";
            } catch (Exception e) {
                cleanedUp = address.describe() + ": removing the keys under " + prefix.etcdPrefix() + " failed: " + e;
            }
        }
        return cleanedUp == null ? "nothing created" : cleanedUp;
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        if (watchClient != null) {
            watchClient.close();
        }
        if (floorClient != null) {
            floorClient.close();
        }
        if (delayedClient != null) {
            delayedClient.close();
        }
        closeLine();
        if (server != null) {
            server.close();
        }
    }
}
