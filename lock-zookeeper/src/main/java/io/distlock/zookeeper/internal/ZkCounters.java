package io.distlock.zookeeper.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What one provider's driver did, counted since it started: the paths taken by acquisitions and
 * releases, for tests and benchmarks that assert which path ran. Reached through {@link
 * ZkInternals#counters()}. Not an API.
 */
public final class ZkCounters {
    final AtomicLong watchNotifications = new AtomicLong();
    final AtomicLong childrenRereads = new AtomicLong();
    final AtomicLong statRereads = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    final AtomicLong skippedRereads = new AtomicLong();
    final AtomicLong lostCreateReplies = new AtomicLong();
    final AtomicLong recoveredCreates = new AtomicLong();
    final AtomicLong announcedReleases = new AtomicLong();
    final AtomicLong multiCreates = new AtomicLong();

    ZkCounters() {}

    /** Watch notifications delivered to waiters. */
    public long watchNotifications() {
        return watchNotifications.get();
    }

    /** Pipelined create + listings that had to be followed by another listing. */
    public long childrenRereads() {
        return childrenRereads.get();
    }

    /** Creates whose reply lacked the node's Stat, so that the czxid took an extra read. */
    public long statRereads() {
        return statRereads.get();
    }

    /** Second nodes with an attempt's own prefix (a create retried after a lost reply), deleted. */
    public long duplicates() {
        return duplicates.get();
    }

    /**
     * Waiters that took the lock on their predecessor's deletion without listing the queue again
     * (the predecessor was the lowest node, or announced its release).
     */
    public long skippedRereads() {
        return skippedRereads.get();
    }

    /** Creates whose outcome was unknown (the connection was lost before the reply). */
    public long lostCreateReplies() {
        return lostCreateReplies.get();
    }

    /** Nodes found again by their prefix after a create whose reply was lost. */
    public long recoveredCreates() {
        return recoveredCreates.get();
    }

    /** Releases sent as {@code setData} + {@code delete} in one {@code multi}. */
    public long announcedReleases() {
        return announcedReleases.get();
    }

    /** Creates sent as one {@code multi} with a {@code setData} of the lock's parent. */
    public long multiCreates() {
        return multiCreates.get();
    }
}
