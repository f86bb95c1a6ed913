package io.distlock.etcd;

import io.distlock.testing.servers.EtcdCluster;
import io.distlock.testing.servers.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** This module's view of a cluster started by the shared launcher {@link EtcdCluster}. */
final class EtcdTestCluster implements EtcdServerControl {
    private final EtcdCluster cluster;

    private EtcdTestCluster(EtcdCluster cluster) {
        this.cluster = cluster;
    }

    static EtcdTestCluster start(int n) {
        return new EtcdTestCluster(EtcdCluster.start(n));
    }

    List<String> endpoints() {
        return cluster.endpoints();
    }

    String endpoint(int i) {
        return "http://" + cluster.member(i).address();
    }

    /** Index of the current leader (waits up to 10 s for one). */
    int leader() {
        return cluster.members().indexOf(cluster.leader());
    }

    /** {@link EtcdCluster#restartMemberWithoutData(int)}: wiped, removed, re-added, caught up. */
    void restartWithoutData(int i) {
        cluster.restartMemberWithoutData(i);
    }

    boolean isRunning(int i) {
        return cluster.member(i).isRunning();
    }

    void kill(int i) {
        cluster.member(i).kill();
    }

    void pause(int i, boolean paused) {
        if (paused) {
            cluster.member(i).pause();
        } else {
            cluster.member(i).resume();
        }
    }

    /** Kills every member (data stays). */
    @Override
    public void stop() {
        for (TestServer m : cluster.members()) {
            m.kill();
        }
    }

    /** Restarts every member with its data, in parallel (each needs a quorum to be healthy). */
    @Override
    public void startAgain() {
        List<CompletableFuture<Void>> fs = new ArrayList<>();
        for (TestServer m : cluster.members()) {
            if (!m.isRunning()) {
                fs.add(CompletableFuture.runAsync(() -> m.restart(true)));
            }
        }
        try {
            CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot restart the etcd cluster", e);
        }
    }

    @Override
    public void close() {
        cluster.close();
    }
}
