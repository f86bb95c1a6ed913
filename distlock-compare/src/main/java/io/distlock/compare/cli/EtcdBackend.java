package io.distlock.compare.cli;

import io.distlock.compare.ComparisonTarget;
import io.distlock.compare.cli.peers.JetcdLockClient;
import io.distlock.testing.servers.EtcdServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
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
    private static final ByteSequence HANDOFF_KEY = ByteSequence.from("handoff-floor", StandardCharsets.UTF_8);

    private EtcdServer server;
    private Client floorClient;
    private Client watchClient;
    private Watch.Watcher watcher;
    /** When B's watch reported each delete of {@link #HANDOFF_KEY} (nanoTime), oldest first. */
    private final BlockingQueue<Long> deletesSeen = new LinkedBlockingQueue<>();

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public void start() {
        server = EtcdServer.start();
        floorClient = Client.builder().endpoints(server.endpoint()).build();
    }

    private long messages() {
        try {
            return Probes.sumMetric(Probes.httpGet(server.endpoint() + "/metrics"), "grpc_server_msg_received_total");
        } catch (IOException e) {
            throw unchecked(e);
        }
    }

    private void get() {
        try {
            floorClient
                    .getKVClient()
                    .get(ByteSequence.from("floor", StandardCharsets.UTF_8))
                    .get(5, TimeUnit.SECONDS);
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
                watchClient = Client.builder().endpoints(server.endpoint()).build();
                CountDownLatch created = new CountDownLatch(1);
                // no start revision: the watch is synced (served at once), like a waiter's
                watcher = watchClient
                        .getWatchClient()
                        .watch(
                                HANDOFF_KEY,
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
            floorClient.getKVClient().put(HANDOFF_KEY, ByteSequence.EMPTY).get(5, TimeUnit.SECONDS);
            deletesSeen.clear();
            if (idleNanos > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(idleNanos); // as a holder holds
            }
            long t0 = System.nanoTime();
            CompletableFuture<?> delete = floorClient.getKVClient().delete(HANDOFF_KEY);
            Long at = deletesSeen.poll(5, TimeUnit.SECONDS);
            if (at == null) {
                throw new IllegalStateException("hand-off floor: no watch notification");
            }
            long t1 = System.nanoTime();
            watchClient.getKVClient().get(HANDOFF_KEY).get(5, TimeUnit.SECONDS);
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
            version = Probes.httpGet(server.endpoint() + "/version").trim();
        } catch (IOException e) {
            version = "?";
        }
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("etcd", server.uri())
                .withFloor(this::get, 2)
                .withHandoffFloor(this::handoffFloor)
                .withServerRequests(counter(this::messages))
                .withServerVersion(version));
        if (peers) {
            String endpoint = server.endpoint();
            out.add(ComparisonTarget.of("jetcd Lock", "etcd", () -> new JetcdLockClient(endpoint))
                    .withFloor(this::get, 2)
                    .withHandoffFloor(this::handoffFloor)
                    .withServerRequests(counter(this::messages))
                    .withServerVersion(version)
                    .asPeer());
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return "etcd " + server.address() + " (--unsafe-no-fsync)";
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
        if (server != null) {
            server.close();
        }
    }
}
