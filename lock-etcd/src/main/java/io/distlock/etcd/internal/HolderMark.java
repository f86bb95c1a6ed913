package io.distlock.etcd.internal;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.ByteSequence;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The holder mark: the value a holder that had to wait writes on its own key once it holds the
 * lock (our keys are created with an empty value), meaning "this key was the oldest under the
 * lock's prefix".
 *
 * <p>Who writes it: a holder that had to wait, once its key is proven the oldest, with one
 * transaction {@code If(createRevision(ourKey) == ourRevision) Then(put(ourKey, "holder",
 * ignoreLease))} ({@link Kv#markHolder}), sent from the session thread without waiting for its
 * answer (off the hand-off path; the release does not wait for it either, and a holder released
 * before the mark is sent sends none). A holder that got the lock at once writes none: the waiter
 * behind it listed it as the oldest key and needs no mark.
 *
 * <p>What it tells the waiter behind the holder: when the holder's key is deleted (released, or
 * gone with its lease), the waiter's watch reports the delete with the key's previous value; if
 * that is the mark and the key's create revision is the one the waiter listed, that key was at
 * some moment the oldest, and so the only key older than the waiter's, and the waiter holds the
 * lock without reading ({@link PredecessorWait}).
 *
 * <p>Why the mark never lies: it is written only after the key was proven the oldest (a key older
 * than it can never appear later: create revisions only grow); the compare on the create revision
 * keeps it off any other key of the same name (a later attempt of the same session that reuses the
 * name has a larger create revision), also if it reaches the server late, after the release or
 * after the lease ended (then the key is gone and the compare fails: nothing is written). A key
 * deleted before its mark was applied is simply reported without it: the waiter reads. A held key
 * moved to a lease of its own ({@link EtcdHeld}: an extension, a delayed release) is marked by the
 * move itself; the mark's transaction requires an unmarked key, so a late mark, which through
 * jetcd's API names the key's first lease, never puts a moved key back on it. Internal.
 */
final class HolderMark {
    private static final Logger log = LoggerFactory.getLogger(HolderMark.class);

    /** The mark's value. */
    static final ByteString VALUE = ByteString.copyFromUtf8("holder");

    private HolderMark() {}

    /** The create revision of {@code prev} (a deleted key's last version) if it carries the mark, else 0. */
    static long markedRevision(io.etcd.jetcd.api.KeyValue prev) {
        return VALUE.equals(prev.getValue()) ? prev.getCreateRevision() : 0;
    }

    /** The same for a previous value and create revision reported by a jetcd watcher. */
    static long markedRevision(byte[] value, long createRevision) {
        return VALUE.equals(ByteString.copyFrom(value)) ? createRevision : 0;
    }

    /**
     * Sends the mark for {@code key} (created at {@code revision} on {@code leaseId}) without
     * waiting for the answer, bounded by the request timeout (a timer on the session thread: no
     * other thread is woken). A failure only costs the waiter behind us one read.
     */
    static void write(EtcdDriver driver, ByteSequence key, long revision, long leaseId, String lockName) {
        driver.thread()
                .within(driver.kv().markHolder(key, revision, leaseId), driver.requestTimeoutNanos())
                .whenComplete((r, t) -> {
                    if (t != null) {
                        log.debug("distlock.etcd.holder_mark_failed lock={} error={}", lockName, t.toString());
                    }
                });
    }
}
