package io.distlock.compare;

import io.distlock.compare.peers.CuratorLockClient;
import io.distlock.tck.compare.ComparisonTarget;
import io.distlock.tck.servers.TestServer;
import io.distlock.tck.servers.ZooKeeperServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

/**
 * ZooKeeper: distlock's lock-zookeeper and Curator's InterProcessMutex on one ZooKeeper 3.8 server
 * ({@code forceSync=no}). Requests are counted from {@code mntr}'s packets_received.
 */
final class ZooKeeperBackend extends ServerBackend {
    private TestServer server;
    private CuratorFramework floorClient;

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public void start() throws Exception {
        server = ZooKeeperServer.start();
        floorClient = CuratorFrameworkFactory.newClient(server.address(), 10_000, 5_000, new RetryOneTime(100));
        floorClient.start();
        if (!floorClient.blockUntilConnected(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("cannot connect to ZooKeeper at " + server.address());
        }
    }

    private long packets() {
        try {
            return Probes.field(Probes.fourLetter(server.host(), server.port(), "mntr"), "zk_packets_received");
        } catch (IOException e) {
            throw unchecked(e);
        }
    }

    private void exists() {
        try {
            floorClient.checkExists().forPath("/");
        } catch (Exception e) {
            throw unchecked(e);
        }
    }

    @Override
    public List<ComparisonTarget> targets(boolean peers) {
        String version;
        try {
            version = Probes.fourLetter(server.host(), server.port(), "srvr")
                    .lines()
                    .findFirst()
                    .orElse("?");
        } catch (IOException e) {
            version = "?";
        }
        List<ComparisonTarget> out = new ArrayList<>();
        out.add(ours("zookeeper", "zookeeper://" + server.address())
                .withFloor(this::exists, 2)
                .withServerRequests(counter(this::packets))
                .withServerVersion(version));
        if (peers) {
            String connect = server.address();
            out.add(ComparisonTarget.of("curator InterProcessMutex", "zookeeper", () -> new CuratorLockClient(connect))
                    .withFloor(this::exists, 2)
                    .withServerRequests(counter(this::packets))
                    .withServerVersion(version)
                    .asPeer());
        }
        return out;
    }

    @Override
    public String serverDescription() {
        return "ZooKeeper " + server.address() + " (forceSync=no)";
    }

    @Override
    public void close() {
        if (floorClient != null) {
            floorClient.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
