package io.distlock.etcd.internal;

import io.etcd.jetcd.ByteSequence;

/**
 * Watches for deletes of one key. Two implementations: {@link WatchStream} (every watch of the
 * provider on one gRPC stream, for a client the provider built) and {@link JetcdWatches} (one jetcd
 * watcher, and so one gRPC stream, per watch). Internal.
 */
interface DeleteWatches {

    /**
     * What a watch reports; called on the gRPC transport thread (or the caller's), never under a
     * lock of the watch's implementation: must not block and must not run user code.
     */
    interface Listener {
        /** The server set the watch up; it reports every event after {@code revision}. */
        void created(long revision);

        /**
         * The watched key was deleted at {@code revision}. {@code markedHolder}: the create revision
         * of the deleted key if its last value was the holder mark ({@link HolderMark}; only on
         * watches that ask for the previous value), else 0.
         */
        void deleted(long revision, long markedHolder);

        /** The watch ended without being cancelled by us (stream broken, compacted, refused). */
        void failed(String reason);
    }

    /** A watch: {@link #cancel()} ends it (idempotent); a report already on its way may still arrive. */
    interface Handle {
        void cancel();
    }

    /**
     * Watches {@code key} for deletes for as long as the handle is not cancelled (an own-key watch).
     *
     * @param startRevision the first revision to report, or 0 for "after the server's current one"
     *     (a watch that starts in the past is served by etcd 3.4's unsynced group, up to 100 ms late)
     */
    Handle watchDeletes(ByteSequence key, long startRevision, Listener listener);

    /**
     * Waits for a delete of {@code key} at a revision after {@code after} (a waiter's predecessor),
     * reporting each delete's previous key-value for the holder mark. What the listener is told:
     * {@link Listener#created} with the revision R after which the watch reports every delete of
     * the key, then {@link Listener#deleted} for each delete after {@code after}. If R ≤ {@code
     * after}, every delete after {@code after} is reported; if R > {@code after}, a delete in
     * (after, R] may be missed and the caller must check with a read.
     */
    Handle waitForDelete(ByteSequence key, long after, Listener listener);
}
