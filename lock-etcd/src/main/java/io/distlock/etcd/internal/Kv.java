package io.distlock.etcd.internal;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.lease.LeaseRevokeResponse;
import java.util.concurrent.CompletableFuture;

/**
 * Every request the lock makes to etcd, one method each, so that the lock's logic names each
 * request once whatever carries it. Two implementations: {@link JetcdKv} (jetcd's own API: its
 * retries, endpoint switching and auth-token refresh) and {@link DirectKv} (the same requests as
 * plain gRPC calls on the channel of a client the provider built, with {@link JetcdKv} behind it
 * for any call that fails). Every range reads keys only. Internal.
 */
interface Kv {

    /**
     * The acquire transaction, one request:
     *
     * <pre>
     * If(createRevision(key) == 0)
     *   Then(put(key, "", lease = leaseId), get(the oldest key under the lock's prefix),
     *        get(the two newest keys under the lock's prefix))
     *   Else(get(key), get(the oldest key under the lock's prefix))
     * </pre>
     *
     * Oldest and newest by create revision; the reads see the same snapshot as the put.
     */
    CompletableFuture<TxnResponse> createOrRead(LockKeys lock, ByteSequence key, long leaseId);

    /**
     * The keys under the lock's prefix created at or before {@code maxCreateRevision}, newest first,
     * at most three: our key and the two created last before it. {@code serializable}: answered by
     * the member asked, without a consensus round (it may be behind).
     */
    CompletableFuture<GetResponse> keysUpTo(LockKeys lock, long maxCreateRevision, boolean serializable);

    /**
     * Writes the holder mark ({@link HolderMark#VALUE}) on {@code key} only if its create revision
     * is {@code createRevision} and it carries no mark yet, keeping the key's lease ({@code
     * leaseId}): {@code If(createRevision(key) == createRevision, value(key) == "") Then(put(key,
     * mark))}. (A key moved to another lease carries the mark already: a late mark never puts it
     * back on {@code leaseId}.)
     */
    CompletableFuture<TxnResponse> markHolder(ByteSequence key, long createRevision, long leaseId);

    /**
     * Moves a held key to lease {@code leaseId} if it is still ours, writing the holder mark (the
     * key is the oldest: its holder holds the lock): {@code If(createRevision(key) ==
     * createRevision) Then(put(key, mark, lease = leaseId))}. A put keeps the key's create
     * revision, so the fencing token and the key's place in the queue stay.
     */
    CompletableFuture<TxnResponse> moveKey(ByteSequence key, long createRevision, long leaseId);

    /** Deletes {@code key}. */
    CompletableFuture<DeleteResponse> delete(ByteSequence key);

    /** Grants a lease of {@code ttlSeconds}. */
    CompletableFuture<LeaseGrantResponse> grant(long ttlSeconds);

    /** One keepalive of {@code leaseId} (a TTL of 0 or less in the answer: the lease is gone). */
    CompletableFuture<LeaseKeepAliveResponse> keepAliveOnce(long leaseId);

    /** Revokes {@code leaseId}, deleting every key attached to it. */
    CompletableFuture<LeaseRevokeResponse> revoke(long leaseId);
}
