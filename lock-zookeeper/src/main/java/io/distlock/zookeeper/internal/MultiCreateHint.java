package io.distlock.zookeeper.internal;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Which of the two create paths a new queue node takes in a lock's parent.
 *
 * <p>The <b>multi</b>: one {@code multi} of the create and a {@code setData} of the parent (empty
 * data, any version). Its reply carries the parent's Stat <em>in the transaction that created our
 * node</em>: {@code numChildren == 1} means our node is the only one (the lock is ours, no listing
 * needed), and the parent's {@code mzxid} is our node's {@code czxid} (the fencing token). One
 * request when nobody else queues.
 *
 * <p>The <b>pipelined listing</b>: the create with a {@code getChildren} right behind it on the same
 * session, which a contender needs anyway. Taken in a parent whose latest create found others
 * queued (a lossy per-driver hint, 256 slots by hash: a collision only costs the slower path for one
 * create), and for good once the server refused the multi's {@code setData} (no WRITE permission on
 * a lock's parent).
 */
final class MultiCreateHint {
    // lock parents whose latest create found other nodes in the queue, one slot per hash
    private final AtomicReferenceArray<String> contendedParents = new AtomicReferenceArray<>(256);
    private volatile boolean multiCreate = true;

    /** Whether a create in {@code parent} goes as the multi. */
    boolean createAsMulti(String parent) {
        return multiCreate && !parent.equals(contendedParents.get(slot(parent)));
    }

    /** Remembers whether the latest create in {@code parent} found other nodes queued. */
    void noteQueue(String parent, boolean others) {
        int slot = slot(parent);
        if (others) {
            contendedParents.set(slot, parent);
        } else {
            String seen = contendedParents.get(slot);
            if (parent.equals(seen)) {
                contendedParents.compareAndSet(slot, seen, null); // by identity: the one read
            }
        }
    }

    /** The pipelined listing from now on (the server refused the multi's setData, or a benchmark asks). */
    void refuseMulti() {
        multiCreate = false;
    }

    private int slot(String parent) {
        int h = parent.hashCode();
        return (h ^ (h >>> 16)) & (contendedParents.length() - 1);
    }
}
