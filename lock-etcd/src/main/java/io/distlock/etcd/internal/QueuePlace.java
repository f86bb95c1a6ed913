package io.distlock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import java.util.List;
import java.util.Objects;

/**
 * Where one acquisition attempt stands in its lock's queue: our key and its create revision (our
 * place; also the fencing token once we hold the lock), the predecessor (the key created last
 * before ours, which a waiter watches) and what is known about the keys older than ours. Read by
 * the acquiring thread, updated also from watch and read callbacks. Internal.
 */
final class QueuePlace {
    private volatile ByteSequence key;
    private volatile long revision;
    private volatile ByteSequence predecessor;
    /** A revision at which {@link #predecessor} existed (that of the read that named it). */
    private volatile long predecessorListedAt;
    /** The create revision of {@link #predecessor} as listed (to match a delete's holder mark). */
    private volatile long predecessorRevision;
    /**
     * A predecessor that was, at some moment while it existed, the only key under the prefix older
     * than ours (at {@link #revision}): its delete then leaves ours the oldest. Set by the listing
     * that named it, by the read that confirms a wait's watch, or by a delete carrying its holder
     * mark; keys are never re-made with an older revision, so the fact stays true for as long as
     * our key keeps its revision.
     */
    private volatile ByteSequence oldestPredecessor;
    /** Our key (at {@link #revision}) is known to be gone from the server. */
    private volatile boolean keyDeleted;

    ByteSequence key() {
        return key;
    }

    long revision() {
        return revision;
    }

    ByteSequence predecessor() {
        return predecessor;
    }

    long predecessorListedAt() {
        return predecessorListedAt;
    }

    long predecessorRevision() {
        return predecessorRevision;
    }

    boolean keyDeleted() {
        return keyDeleted;
    }

    /** Our key and its create revision; what we knew about the keys older than it goes if they change. */
    synchronized void setOurs(ByteSequence key, long revision) {
        if (!Objects.equals(key, this.key) || revision != this.revision) {
            oldestPredecessor = null;
        }
        this.key = key;
        this.revision = revision;
    }

    /** Our key is there (again): made by the acquire transaction, or read back by it. */
    void keyPresent() {
        keyDeleted = false;
    }

    /** Our key is gone from the server. */
    void keyGone() {
        keyDeleted = true;
    }

    /** As {@link #keyGone()}, only if our key is still {@code key} created at {@code revision}. */
    synchronized void keyGone(ByteSequence key, long revision) {
        if (key.equals(this.key) && revision == this.revision) {
            keyDeleted = true;
        }
    }

    /**
     * The predecessor named by a read at {@code listedAt}, created at {@code predRevision};
     * {@code oldest}: it was then the only key older than ours.
     */
    synchronized void setPredecessor(ByteSequence pred, long predRevision, boolean oldest, long listedAt) {
        predecessorListedAt = listedAt;
        predecessorRevision = predRevision;
        predecessor = pred;
        if (oldest) {
            oldestPredecessor = pred;
        }
    }

    /** Whether the predecessor was at some moment the only key older than ours. */
    boolean predecessorWasOldest() {
        ByteSequence p = predecessor;
        return p != null && p.equals(oldestPredecessor);
    }

    /** {@code pred} was the only key older than {@code key} at {@code revision}; remember it if still ours. */
    synchronized void markOldest(ByteSequence pred, ByteSequence key, long revision) {
        if (key.equals(this.key) && revision == this.revision) {
            oldestPredecessor = pred;
        }
    }

    /**
     * As {@link #markOldest}, only if {@code pred} (created at {@code predRevision}) is still the
     * predecessor we listed: the fact is about that key, not about a later key of the same name.
     */
    synchronized void markOldestIfListed(ByteSequence pred, long predRevision, ByteSequence key, long revision) {
        if (key != null
                && key.equals(this.key)
                && revision == this.revision
                && pred.equals(predecessor)
                && predRevision == predecessorRevision) {
            oldestPredecessor = pred;
        }
    }

    /**
     * Whether a listing ({@link Kv#keysUpTo}) starts with our key: its name and its create revision.
     * A serializable read from a member that is behind could otherwise show an earlier key of the
     * same name (one that an earlier attempt of ours on this session deleted before this one was
     * created: names are reused, see {@link Session#takeSlot()}) alone, and make us a holder while
     * another client holds the lock.
     */
    boolean listsOursFirst(List<KeyValue> kvs) {
        return !kvs.isEmpty() && kvs.get(0).getKey().equals(key) && kvs.get(0).getCreateRevision() == revision;
    }
}
