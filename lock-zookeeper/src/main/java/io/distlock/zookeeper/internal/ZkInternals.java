package io.distlock.zookeeper.internal;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;

/**
 * The inside of a ZooKeeper provider, for tests and benchmarks: {@code
 * provider.unwrap(ZkInternals.class)}. Not an API; may change without notice.
 */
public interface ZkInternals {

    /** The Curator client the provider uses (its own, or the one it was given). */
    CuratorFramework curator();

    /** The ZooKeeper path of lock {@code lockName}'s parent node, relative to the chroot (Curator namespace). */
    String lockPath(String lockName);

    /** The negotiated session timeout (the requested one before the first connection). */
    Duration sessionTimeout();

    /** What the driver did so far. */
    ZkCounters counters();

    /**
     * Creates queue nodes with the pipelined listing from now on, never as a {@code multi} with the
     * parent's {@code setData} (what the provider does by itself once the server refuses that
     * {@code setData}); for benchmarks that compare both paths.
     */
    void disableMultiCreate();
}
